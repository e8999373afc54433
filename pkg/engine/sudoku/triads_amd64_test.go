//go:build amd64 && !purego

package sudoku

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// triadKernels are the assembly triad scans: each is tested wherever the
// processor has its instructions (requireAsm with its path), whichever
// triadScan chooses.
var triadKernels = []struct {
	name, path string
	scan       func(f *[32]uint32, tr *triadView, s *triadSums) bool
}{
	{triadAsmName, "triads", triadScanAVX512},
	{triadAVX2Name, "triadsAVX2", triadScanAVX2},
}

// checkTriadScan compares an assembly scan with triadScanGo on the band
// words f, output for output; it returns "" if they agree.
func checkTriadScan(scan func(*[32]uint32, *triadView, *triadSums) bool, f *[32]uint32) string {
	var trGo, trAsm triadView
	var sGo, sAsm triadSums
	okGo := triadScanGo(f, &trGo, &sGo)
	// Garbage in the outputs, as the search leaves them: the scan
	// writes every field.
	trAsm.rowP[3], trAsm.perms[1][2], sAsm.work, sAsm.colF[8] = 0xdead, 77, 0x1ff, 5
	okAsm := scan(f, &trAsm, &sAsm)
	if okGo == okAsm && trGo == trAsm && sGo == sAsm {
		return ""
	}
	return fmt.Sprintf("band words %#x:\n got  ok %v %+v %+v\n want ok %v %+v %+v",
		*f, okAsm, trAsm, sAsm, okGo, trGo, sGo)
}

// TestTriadScanRandom compares the assembly and Go triad scans on random
// band words: dense, sparse, single bits, bands all empty or all full,
// and garbage in the unused words 27-31.
func TestTriadScanRandom(t *testing.T) {
	for _, k := range triadKernels {
		t.Run(k.path, func(t *testing.T) {
			requireAsm(t, k.path)
			testTriadScanRandom(t, k.scan)
		})
	}
}

func testTriadScanRandom(t *testing.T, scan func(*[32]uint32, *triadView, *triadSums) bool) {
	rng := rand.New(rand.NewPCG(19, 1))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for k := range n {
		var f [32]uint32
		for i := range f {
			w, x, y := rng.Uint32(), rng.Uint32(), rng.Uint32()
			switch k % 8 {
			case 1: // sparse
				w &= x & y
			case 2: // dense
				w |= x | y
			case 3: // one candidate a row, or none
				w = 1<<rng.IntN(9) | 1<<(9+rng.IntN(9)) | 1<<(18+rng.IntN(9))
				w &= x | y
			case 4: // whole bands empty or full
				switch rng.IntN(3) {
				case 0:
					w = 0
				case 1:
					w = bandBits
				}
			case 5: // a few bits
				w = 1<<(x%27) | 1<<(y%27)
			}
			if i < 27 {
				w &= bandBits
			}
			f[i] = w
		}
		if msg := checkTriadScan(scan, &f); msg != "" {
			t.Fatalf("case %d: %s", k, msg)
		}
	}
	for _, w := range []uint32{0, bandBits} {
		var f [32]uint32
		for i := range 27 {
			f[i] = w
		}
		if msg := checkTriadScan(scan, &f); msg != "" {
			t.Fatal(msg)
		}
	}
}

// TestTriadScanSolving compares the assembly and Go triad scans on every
// state that reaches the triads while solving corpora.
func TestTriadScanSolving(t *testing.T) {
	for _, k := range triadKernels {
		t.Run(k.path, func(t *testing.T) {
			requireAsm(t, k.path)
			testTriadScanSolving(t, k.name, k.scan)
		})
	}
}

func testTriadScanSolving(t *testing.T, name string, scan func(*[32]uint32, *triadView, *triadSums) bool) {
	files := []struct {
		name string
		max  int // puzzles taken from the start of the file; 0: all
	}{
		{"top1465.txt.gz", 0},
		{"serg-benchmark.txt.gz", 3000},
		{"forum-hardest-1106.txt.gz", 0},
		{"royle17.txt.gz", 3000},
	}
	if testing.Short() {
		files = files[:2]
		files[1].max = 500
	}
	// The search runs on triadScanGo: a wrong assembly scan could send it
	// round in circles.
	defer func(asm, avx2 bool) { useTriadAsm, useTriadAVX2 = asm, avx2 }(useTriadAsm, useTriadAVX2)
	useTriadAsm, useTriadAVX2 = false, false
	calls, fails := 0, 0
	var first string
	triadHook = func(f [32]uint32) {
		calls++
		if msg := checkTriadScan(scan, &f); msg != "" {
			if fails == 0 {
				first = msg
			}
			fails++
		}
	}
	defer func() { triadHook = nil }()
	s := NewSolver()
	for _, file := range files {
		for _, g := range corpusHead(t, file.name, file.max) {
			s.Classify(g)
		}
	}
	if fails > 0 {
		t.Fatalf("%d of %d states differ; the first: %s", fails, calls, first)
	}
	if calls < 10000 {
		t.Fatalf("%d states reached the triads, want at least 10,000", calls)
	}
	t.Logf("%d states compared (kernel %s)", calls, name)
}

func BenchmarkTriadScanAsm(b *testing.B) {
	requireAsm(b, "triads")
	benchTriadScan(b, triadScanAVX512)
}

func BenchmarkTriadScanAVX2(b *testing.B) {
	requireAsm(b, "triadsAVX2")
	benchTriadScan(b, triadScanAVX2)
}

package sudoku

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkTriadScan compares triadScanAsm with triadScanGo on the band words
// f, output for output; it returns "" if they agree.
func checkTriadScan(f *[32]uint32) string {
	var trGo, trAsm triadView
	var sGo, sAsm triadSums
	okGo := triadScanGo(f, &trGo, &sGo)
	okAsm := triadScanAsm(f, &trAsm, &sAsm)
	if okGo == okAsm && trGo == trAsm && sGo == sAsm {
		return ""
	}
	return fmt.Sprintf("band words %#x:\n got  ok %v %+v %+v\n want ok %v %+v %+v",
		*f, okAsm, trAsm, sAsm, okGo, trGo, sGo)
}

// needTriadAsm logs and returns false when there is no assembly kernel to
// compare with triadScanGo: a purego build, another architecture, or a
// CPU without the features.
func needTriadAsm(t *testing.T) bool {
	t.Helper()
	if !haveTriadAsm {
		t.Logf("the assembly triad scan (%s) does not run here: nothing compared", triadAsmName)
		return false
	}
	return true
}

// TestTriadScanRandom compares the assembly and Go triad scans on random
// band words: dense, sparse, single bits, bands all empty or all full,
// and garbage in the unused words 27-31.
func TestTriadScanRandom(t *testing.T) {
	if !needTriadAsm(t) {
		return
	}
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
		if msg := checkTriadScan(&f); msg != "" {
			t.Fatalf("case %d: %s", k, msg)
		}
	}
	for _, w := range []uint32{0, bandBits} {
		var f [32]uint32
		for i := range 27 {
			f[i] = w
		}
		if msg := checkTriadScan(&f); msg != "" {
			t.Fatal(msg)
		}
	}
}

// TestTriadScanSolving compares the assembly and Go triad scans on every
// state that reaches the triads while solving corpora.
func TestTriadScanSolving(t *testing.T) {
	if !needTriadAsm(t) {
		return
	}
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
	defer func(asm bool) { useTriadAsm = asm }(useTriadAsm)
	useTriadAsm = false
	calls, fails := 0, 0
	var first string
	triadHook = func(f [32]uint32) {
		calls++
		if msg := checkTriadScan(&f); msg != "" {
			if fails == 0 {
				first = msg
			}
			fails++
		}
	}
	defer func() { triadHook = nil }()
	s := NewSolver()
	for _, file := range files {
		gs := corpus(t, file.name)
		if file.max > 0 && len(gs) > file.max {
			gs = gs[:file.max]
		}
		for _, g := range gs {
			s.Classify(g)
		}
	}
	if fails > 0 {
		t.Fatalf("%d of %d states differ; the first: %s", fails, calls, first)
	}
	if calls < 10000 {
		t.Fatalf("%d states reached the triads, want at least 10,000", calls)
	}
	t.Logf("%d states compared (kernel %s)", calls, triadAsmName)
}

// triadStates returns the band words of every state that reaches the
// triads while solving the first n puzzles of a corpus.
func triadStates(tb testing.TB, name string, n int) [][32]uint32 {
	gs := corpus(tb, name)
	if len(gs) > n {
		gs = gs[:n]
	}
	var states [][32]uint32
	triadHook = func(f [32]uint32) { states = append(states, f) }
	defer func() { triadHook = nil }()
	s := NewSolver()
	for _, g := range gs {
		s.Classify(g)
	}
	return states
}

func benchTriadScan(b *testing.B, scan func(*[32]uint32, *triadView, *triadSums) bool) {
	states := triadStates(b, "top1465.txt.gz", 300)
	var tr triadView
	var s triadSums
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for i := range states {
			scan(&states[i], &tr, &s)
		}
		n += len(states)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/scan")
}

// BenchmarkTriadScanGo and BenchmarkTriadScanAsm time the two triad scans
// on the states of the first 300 puzzles of top1465.
func BenchmarkTriadScanGo(b *testing.B) { benchTriadScan(b, triadScanGo) }

func BenchmarkTriadScanAsm(b *testing.B) {
	if !haveTriadAsm {
		b.Skipf("no assembly triad scan (kernel %s)", triadAsmName)
	}
	benchTriadScan(b, triadScanAsm)
}

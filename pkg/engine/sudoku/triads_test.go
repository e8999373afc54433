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

// TestChoose compares choose with a plain reading of its rule (the first
// band or stack, in the order band 0, stack 0, band 1, ..., with the
// fewest permutations above 9; in it the first digit with the fewest, 2
// or more) on random views, fixed bands and stacks among them.
func TestChoose(t *testing.T) {
	plain := func(tr *triadView) (kind, idx, d int, ok bool) {
		best := 255
		for i := range 3 {
			for k := range 2 {
				if m := int(tr.perms[k][i]); m > 9 && m < best {
					best, kind, idx = m, k, i
				}
			}
		}
		if best == 255 {
			return 0, 0, 0, false
		}
		bestN := 7
		for dd := range 9 {
			if m := int(permCount[tr.presence(kind, idx, dd)&511]); m >= 2 && m < bestN {
				bestN, d = m, dd
			}
		}
		return kind, idx, d, true
	}
	rng := rand.New(rand.NewPCG(9, 10))
	chosen := 0
	for range 200000 {
		var tr triadView
		for d := range 9 {
			tr.rowP[d], tr.colP[d] = rng.Uint32()&bandBits, rng.Uint32()&bandBits
		}
		for k := range 2 {
			for i := range 3 {
				tr.perms[k][i] = uint8(9 + rng.IntN(46))
				if rng.IntN(3) == 0 {
					tr.perms[k][i] = 9 // fixed
				}
			}
		}
		k1, i1, d1, ok1 := tr.choose()
		k2, i2, d2, ok2 := plain(&tr)
		if k1 != k2 || i1 != i2 || d1 != d2 || ok1 != ok2 {
			t.Fatalf("choose(%+v) = %d %d %d %v, want %d %d %d %v", tr, k1, i1, d1, ok1, k2, i2, d2, ok2)
		}
		if ok1 {
			chosen++
		}
	}
	t.Logf("200000 views, %d with a band or stack to branch on", chosen)
}

// TestRestrict compares restrict with a plain reading: a band keeps the
// digit to the permutation's cells; a stack keeps it, in each band, to
// the one column of the stack the permutation gives that band.
func TestRestrict(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		var st state
		for i := range 27 {
			st.f[i] = rng.Uint32() & bandBits
		}
		kind, idx, d, k := rng.IntN(2), rng.IntN(3), rng.IntN(9), rng.IntN(6)
		want := st
		if kind == 0 {
			want.f[3*d+idx] &= permCells[k]
			want.todo |= 1 << (3*d + idx)
		} else {
			for b := range 3 {
				for j := range 3 {
					if permsBits[k]>>(3*b+j)&1 == 0 {
						want.f[3*d+b] &^= colMask[3*idx+j]
					}
				}
				want.todo |= 1 << (3*d + b)
			}
		}
		want.colDirty |= 1 << d
		got := st
		got.restrict(kind, idx, d, k)
		if got != want {
			t.Fatalf("restrict(%d, %d, %d, %d): got %+v, want %+v", kind, idx, d, k, got, want)
		}
	}
}

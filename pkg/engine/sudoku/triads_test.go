package sudoku

import (
	"math/rand/v2"
	"testing"
)

// triadStates returns the band words of every state that reaches the
// triads while solving the first n puzzles of a corpus.
func triadStates(tb testing.TB, name string, n int) [][32]uint32 {
	gs := corpusHead(tb, name, n)
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

// BenchmarkTriadScanGo times the Go triad scan on the states of the first
// 300 puzzles of top1465 (BenchmarkTriadScanAsm the assembly one).
func BenchmarkTriadScanGo(b *testing.B) { benchTriadScan(b, triadScanGo) }

// TestChoose compares choose with a plain reading of its rule (the first
// band or stack, in the order band 0, stack 0, band 1, ..., with the
// fewest permutations above 9; in it the first digit with the fewest, 2
// or more) on the views that triadScanGo makes of random band words,
// with random permutation totals, fixed bands and stacks among them: the
// digit comes from the keys that the scan computes for each band and
// stack (the assembly scans' are compared with the Go's in
// TestTriadScanAsm and its siblings).
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
		var f [32]uint32
		for i := range 27 {
			f[i] = rng.Uint32() & rng.Uint32() & bandBits
			if rng.IntN(4) == 0 {
				f[i] |= rng.Uint32() & bandBits
			}
		}
		var tr triadView
		var sums triadSums
		triadScanGo(&f, &tr, &sums)
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

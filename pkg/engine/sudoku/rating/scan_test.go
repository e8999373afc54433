package rating

import (
	"slices"
	"testing"
)

// TestScanMemory rates puzzles of every band with the scan memory and
// without it: the same steps, in the same words, so the same ratings.
func TestScanMemory(t *testing.T) {
	all := readRated(t)
	step := 7
	if testing.Short() {
		step = 29
	}
	with, without := NewSolver(), NewSolver()
	without.mem.off = true
	n := 0
	for k := 0; k < len(all); k += step {
		p := all[k]
		if p.rating > 75 {
			continue // the chains come after every scan with a memory
		}
		r1, s1 := with.Explain(p.puzzle)
		r2, s2 := without.Explain(p.puzzle)
		if r1 != r2 || !slices.Equal(s1, s2) {
			t.Fatalf("line %d: with the scan memory %+v (%d steps), without %+v (%d steps)", p.line, r1, len(s1), r2, len(s2))
		}
		n++
	}
	if n < 100 {
		t.Fatalf("compared %d puzzles, want at least 100", n)
	}
}

//go:build amd64 && !purego

package sudoku

import "testing"

// TestSolutionAsm compares state.solution in Go and in AVX-512 on every
// solved state the search reaches on the corpora (first and second
// solutions), written over a grid full of another value: the two must
// write the same 81 cells, and Check must accept them.
func TestSolutionAsm(t *testing.T) {
	if !haveSolutionAsm {
		t.Skip("this CPU has no AVX-512 BW: state.solution runs in Go only (the solver tests cover it)")
	}
	defer func(v bool) { useSolutionAsm = v }(useSolutionAsm)
	compared := 0
	s := NewSolver()
	for _, tc := range []struct {
		name string
		n    int
	}{
		{"top1465.txt.gz", 0},
		{"royle17.txt.gz", 5000},
		{"serg-benchmark.txt.gz", 3000},
	} {
		gs := corpus(t, tc.name)
		if tc.n > 0 && tc.n < len(gs) {
			gs = gs[:tc.n]
		}
		for _, g := range gs {
			var sol [2][2]Grid
			var n [2]int
			for k, on := range []bool{false, true} {
				useSolutionAsm = on
				for j := range sol[k] {
					for i := range sol[k][j] {
						sol[k][j][i] = 0xEE
					}
				}
				s.sol = sol[k]
				n[k], _ = s.Solve(&g, 2)
				sol[k] = s.sol
			}
			if n[0] != n[1] || sol[0] != sol[1] {
				t.Fatalf("%s: puzzle %s: Go: %d solutions %v; AVX-512: %d solutions %v", tc.name, g, n[0], sol[0], n[1], sol[1])
			}
			for j := range min(n[1], 2) {
				if err := Check(g, sol[1][j]); err != nil {
					t.Fatalf("%s: puzzle %s: solution %d %s: %v", tc.name, g, j, sol[1][j], err)
				}
				compared++
			}
		}
	}
	t.Logf("%d solutions read alike by Go and AVX-512", compared)
}

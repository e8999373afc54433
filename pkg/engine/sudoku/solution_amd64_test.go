//go:build amd64 && !purego

package sudoku

import (
	"math/rand/v2"
	"testing"
)

// TestSolutionAsm compares state.solution in Go and in assembly (AVX-512,
// AVX2) on every solved state the search reaches on the corpora (first
// and second solutions), written over a grid full of another value: the
// two must write the same 81 cells, and Check must accept them.
func TestSolutionAsm(t *testing.T) {
	for _, k := range []struct {
		path         string
		avx512, avx2 bool
	}{
		{"solution", true, false},
		{"solutionAVX2", false, true},
	} {
		t.Run(k.path, func(t *testing.T) {
			requireAsm(t, k.path)
			defer func(a, b bool) { useSolutionAsm, useSolutionAVX2 = a, b }(useSolutionAsm, useSolutionAVX2)
			compared := 0
			s := NewSolver()
			for _, tc := range solverCorpora {
				for _, g := range corpusHead(t, tc.name, tc.n) {
					var sol [2][2]Grid
					var n [2]int
					for j, on := range []bool{false, true} {
						useSolutionAsm, useSolutionAVX2 = on && k.avx512, on && k.avx2
						for i := range sol[j] {
							for c := range sol[j][i] {
								sol[j][i][c] = 0xEE
							}
						}
						s.sol = sol[j]
						n[j], _ = s.Solve(&g, 2)
						sol[j] = s.sol
					}
					if n[0] != n[1] || sol[0] != sol[1] {
						t.Fatalf("%s: puzzle %s: Go: %d solutions %v; %s: %d solutions %v", tc.name, g, n[0], sol[0], k.path, n[1], sol[1])
					}
					for j := range min(n[1], 2) {
						if err := Check(g, sol[1][j]); err != nil {
							t.Fatalf("%s: puzzle %s: solution %d %s: %v", tc.name, g, j, sol[1][j], err)
						}
						compared++
					}
				}
			}
			t.Logf("%d solutions read alike by Go and %s", compared, k.path)
		})
	}
}

// TestCheckAsm compares checkAVX512 and checkAVX2 with checkFast (which
// TestCheckFast holds to a plain reading) on the solutions of top1465 and of 2,000
// royle17 puzzles with their givens, each also changed in one or two
// cells to any byte (the last cells, 63 to 80, as often as the others),
// with two cells swapped, with a given changed, and without givens with
// two rows of different bands or two columns of different stacks swapped
// (rows and columns still full, two boxes not).
func TestCheckAsm(t *testing.T) {
	for _, k := range []struct {
		path  string
		check func(puzzle, solution *Grid) bool
	}{
		{"solution", checkAVX512},
		{"solutionAVX2", checkAVX2},
	} {
		t.Run(k.path, func(t *testing.T) {
			requireAsm(t, k.path)
			testCheckAsm(t, k.path, k.check)
		})
	}
}

func testCheckAsm(t *testing.T, name string, check func(puzzle, solution *Grid) bool) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := NewSolver()
	compared, refused := 0, 0
	for _, name := range []string{"top1465.txt.gz", "royle17.txt.gz"} {
		for _, p := range corpusHead(t, name, 2000) {
			if n, _ := s.Solve(&p, 1); n != 1 {
				t.Fatalf("%s: puzzle %s: %d solutions with limit 1", name, p, n)
			}
			sol := s.Solution(0)
			for trial := range 16 {
				q, g := p, sol
				cell := func() int {
					if rng.IntN(2) == 0 {
						return 63 + rng.IntN(18)
					}
					return rng.IntN(81)
				}
				switch trial % 8 {
				case 1:
					g[cell()] = byte(rng.IntN(256))
				case 2:
					g[cell()] = byte(rng.IntN(11))
					g[cell()] = byte(rng.IntN(11))
				case 3:
					i, j := cell(), cell()
					g[i], g[j] = g[j], g[i]
				case 4:
					q[cell()] = byte(rng.IntN(10))
				case 5:
					q[cell()] = byte(rng.IntN(256))
				case 6, 7:
					q = Grid{}
					a := rng.IntN(9)
					b := (a/3*3 + 3 + rng.IntN(6)) % 9 // another band or stack
					for i := range 9 {
						if trial%8 == 6 {
							g[9*a+i], g[9*b+i] = g[9*b+i], g[9*a+i]
						} else {
							g[9*i+a], g[9*i+b] = g[9*i+b], g[9*i+a]
						}
					}
				}
				got, want := check(&q, &g), checkFast(&q, &g)
				if got != want {
					t.Fatalf("%s: check(%v, %v) = %v, checkFast %v", name, q, g, got, want)
				}
				compared++
				if !want {
					refused++
				}
			}
		}
	}
	if refused == 0 || refused == compared {
		t.Fatalf("%d grids compared, %d refused: want some of each", compared, refused)
	}
	t.Logf("%d grids checked alike by %s and checkFast, %d refused", compared, name, refused)
}

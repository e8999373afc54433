package sudokujobs

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Each kind of request gives what it asks for: a unique solution that
// keeps the grid's digits, exactly C clues (also with --symmetric, where
// pairs step by two), 180-degree symmetry, minimality (no single clue can
// go), at most C clues with --minimal.
func TestGenerateMeetsRequests(t *testing.T) {
	r := &genRunner{solver: sudoku.NewSolver(), attempts: maxAttempts}
	for _, p := range []GenerateParams{
		{},
		{Symmetric: true},
		{Minimal: true},
		{Symmetric: true, Minimal: true},
		{Clues: 30},
		{Clues: 30, Symmetric: true},
		{Clues: 25, Symmetric: true},
		{Clues: 80, Symmetric: true},
		{Clues: 81},
		{Clues: 23, Minimal: true},
		{Clues: 27, Minimal: true, Symmetric: true},
	} {
		for i := range 12 {
			g, _, err := r.generate(rand.New(rand.NewPCG(7, uint64(i))), p)
			if err != nil {
				t.Fatalf("%+v puzzle %d: %v", p, i, err)
			}
			if n, _ := r.solver.Solve(&g, 2); n != 1 {
				t.Fatalf("%+v puzzle %d %s: %d solutions", p, i, g, n)
			}
			clues := g.Clues()
			switch {
			case p.Clues != 0 && !p.Minimal && clues != p.Clues:
				t.Errorf("%+v puzzle %d: %d clues", p, i, clues)
			case p.Clues != 0 && p.Minimal && clues > p.Clues:
				t.Errorf("%+v puzzle %d: %d clues, more than asked", p, i, clues)
			}
			if p.Symmetric {
				for c := range 81 {
					if (g[c] == 0) != (g[80-c] == 0) {
						t.Fatalf("%+v puzzle %d %s: cells %d and %d not symmetric", p, i, g, c, 80-c)
					}
				}
			}
			if (p.Minimal || p.Clues == 0 && !p.Symmetric) && !r.minimal(g) {
				t.Errorf("%+v puzzle %d %s: a clue can go", p, i, g)
			}
		}
	}
}

// A request that random removal does not meet ends with an error that
// says what was asked, not with a puzzle that does not meet it.
func TestGenerateUnreachable(t *testing.T) {
	r := &genRunner{solver: sudoku.NewSolver(), attempts: 20}
	_, _, err := r.generate(rand.New(rand.NewPCG(1, 1)), GenerateParams{Clues: 18})
	if err == nil || !strings.Contains(err.Error(), "no puzzle with 18 clues in 20 random solution grids") {
		t.Fatalf("18 clues: %v", err)
	}
	_, _, err = r.generate(rand.New(rand.NewPCG(1, 1)), GenerateParams{Clues: 18, Minimal: true, Symmetric: true})
	if err == nil || !strings.Contains(err.Error(), "no symmetric minimal puzzle with at most 18 clues") {
		t.Fatalf("18 clues, symmetric and minimal: %v", err)
	}
}

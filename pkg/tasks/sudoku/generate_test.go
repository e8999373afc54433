package sudoku

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
	"github.com/woprlabs/wopr/pkg/tasks"
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

// With --rating, a task's puzzles are rated within the band, the same seed
// makes the same puzzles, and a band out of reach fails the task naming
// the band and the nearest rating.
func TestGenerateRated(t *testing.T) {
	r := Generate{}.NewRunner(tasks.Env{}).(*genRunner)
	p := GenerateParams{Count: 4, Seed: 2, Rating: rating.Band{Min: 32, Max: 44}, Symmetric: true}
	payload, _ := json.Marshal(genTask{GenerateParams: p, From: 0, To: 4})
	out, err := r.Run(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	var res genResult
	if err := json.Unmarshal(out.Data, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Puzzles) != 4 || len(res.Ratings) != 4 {
		t.Fatalf("%d puzzles, %d ratings; want 4", len(res.Puzzles), len(res.Ratings))
	}
	for i, pz := range res.Puzzles {
		g, _ := sudoku.ParseLine(pz)
		if got := rating.NewSolver().Rate(g); got.Rating != res.Ratings[i] || got.Rating < 32 || got.Rating > 44 {
			t.Errorf("puzzle %d %s: rated %d, result says %d; want 3.2-4.4", i, pz, got.Rating, res.Ratings[i])
		}
	}
	again, _ := r.Run(context.Background(), payload)
	if string(again.Data) != string(out.Data) {
		t.Errorf("same seed, other puzzles:\n%s\n%s", out.Data, again.Data)
	}
	r.rated = 3
	p.Rating = rating.Band{Min: 115, Max: 120}
	payload, _ = json.Marshal(genTask{GenerateParams: p, From: 0, To: 1})
	if _, err := r.Run(context.Background(), payload); err == nil || !strings.Contains(err.Error(), "no puzzle rated within the band 11.5-12.0 in 3 puzzles (the nearest rated") {
		t.Errorf("11.5-12.0: got %v, want the band missed", err)
	}
	for _, bad := range []GenerateParams{
		{Count: 1, Rating: rating.Band{Min: 50, Max: 40}},
		{Count: 1, Rating: rating.Band{Min: 40, Max: 50}, Clues: 30},
		{Count: 1, Rating: rating.Band{Min: 40, Max: 50}, Minimal: true},
	} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "--rating") {
			t.Errorf("%+v: got %v, want an error naming --rating", bad, err)
		}
	}
}

// A generation of more puzzles than a report holds is refused, naming
// --count and the limit.
func TestGenerateCountBounded(t *testing.T) {
	for _, n := range []int{0, MaxGenerate + 1, 10_000_000} {
		err := GenerateParams{Count: n}.Validate()
		if want := fmt.Sprintf("--count %d: want 1 to 1000000 puzzles", n); !errors.Is(err, tasks.ErrInvalid) || err.Error() != want {
			t.Errorf("count %d: %v, want %q", n, err, want)
		}
	}
}

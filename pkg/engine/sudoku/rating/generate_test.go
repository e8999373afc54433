package rating

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Generate hits each band it is asked for, symmetric or not, with a
// puzzle of one solution that Rate rates within the band; the same seed
// gives the same puzzle.
func TestGenerateBands(t *testing.T) {
	g := NewGenerator()
	es := sudoku.NewSolver()
	for _, o := range []GenerateOptions{
		{Band: Band{12, 12}, MinClues: 34},
		{Band: Band{15, 23}},
		{Band: Band{26, 44}, Symmetric: true},
		{Band: Band{45, 60}},
		{Band: Band{61, 79}, Symmetric: true},
	} {
		o.Attempts = 500
		p, err := g.Generate(context.Background(), rand.New(rand.NewPCG(3, 9)), o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if r := NewSolver().Rate(p.Puzzle); !r.Solved || o.Band.Distance(r.Rating) != 0 || r.Rating != p.Result.Rating {
			t.Errorf("%+v: %s rates %d (solved %v), Generate said %d; want within %v", o, p.Puzzle, r.Rating, r.Solved, p.Result.Rating, o.Band)
		}
		if c := es.Classify(p.Puzzle); c.Outcome != sudoku.Unique || c.Solution != p.Solution {
			t.Errorf("%+v: %s is %v, want unique with solution %s", o, p.Puzzle, c.Outcome, p.Solution)
		}
		if p.Puzzle.Clues() < o.MinClues {
			t.Errorf("%+v: %d clues, want at least %d", o, p.Puzzle.Clues(), o.MinClues)
		}
		if o.Symmetric {
			for c := range 81 {
				if (p.Puzzle[c] == 0) != (p.Puzzle[80-c] == 0) {
					t.Fatalf("%+v: %s not symmetric at %s", o, p.Puzzle, cellName(c))
				}
			}
		}
		again, _ := NewGenerator().Generate(context.Background(), rand.New(rand.NewPCG(3, 9)), o)
		if again.Puzzle != p.Puzzle {
			t.Errorf("%+v: same seed gave %s then %s", o, p.Puzzle, again.Puzzle)
		}
	}
}

// A band out of reach ends after the attempts with ErrBandMissed and the
// nearest puzzle below it; a cancelled context ends with its error.
func TestGenerateMisses(t *testing.T) {
	g := NewGenerator()
	p, err := g.Generate(context.Background(), rand.New(rand.NewPCG(1, 1)), GenerateOptions{Band: Band{115, 120}, Attempts: 5})
	if !errors.Is(err, ErrBandMissed) || !strings.Contains(err.Error(), "11.5-12.0 in 5 puzzles (the nearest rated") {
		t.Fatalf("got %v, want ErrBandMissed naming the band, the attempts and the nearest", err)
	}
	if !p.Result.Solved || p.Result.Rating >= 115 || p.Attempts == 0 {
		t.Errorf("nearest: %+v, want a solved puzzle below 11.5", p.Result)
	}
	if _, err := g.Generate(context.Background(), rand.New(rand.NewPCG(1, 1)), GenerateOptions{Band: Band{10, 10}, Attempts: 3}); !errors.Is(err, ErrBandMissed) || !strings.Contains(err.Error(), "all rated above it") {
		t.Errorf("1.0: got %v, want ErrBandMissed, all above", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Generate(ctx, rand.New(rand.NewPCG(1, 1)), GenerateOptions{Band: Band{40, 50}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want %v", err, context.Canceled)
	}
}

// rateUpTo agrees with Rate on the puzzles within the ceiling and gives
// up on the others.
func TestRateUpTo(t *testing.T) {
	s, u := NewSolver(), NewSolver()
	for i, p := range readRated(t) {
		if i%25 != 0 || p.rating > 72 {
			continue
		}
		r := s.Rate(p.puzzle)
		for _, ceiling := range []int{23, 44, 60, 70} {
			got := u.rateUpTo(p.puzzle, ceiling)
			if r.Rating <= ceiling && got != r || r.Rating > ceiling && got.Solved {
				t.Fatalf("line %d ceiling %d: got %+v, Rate gives %+v", p.line, ceiling, got, r)
			}
		}
	}
}

func TestParseBand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Band
		err  string
	}{
		{"4.0-6.4", Band{40, 64}, ""},
		{"7-8", Band{70, 80}, ""},
		{"4.2", Band{42, 42}, ""},
		{"1.0-12.0", Band{10, 120}, ""},
		{"4.50-5", Band{45, 50}, ""},
		{"6.4-4.0", Band{}, "lower end 6.4 is above the upper 4.0"},
		{"0.5-3", Band{}, "ratings run from 1.0 to 12.0"},
		{"4-12.5", Band{}, "ratings run from 1.0 to 12.0"},
		{"4.25", Band{}, "want a rating such as 4.2"},
		{"-1-3", Band{}, "want a rating such as 4.2"},
		{"hard", Band{}, "want a rating such as 4.2"},
		{"4.x", Band{}, "want a rating such as 4.2"},
	} {
		got, err := ParseBand(c.in)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseBand(%q) = %v, %v; want %v, error %q", c.in, got, err, c.want, c.err)
		}
	}
}

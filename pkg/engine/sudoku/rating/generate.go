package rating

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Band is a band of ratings in tenths, both ends included: {40, 64} is
// 4.0 to 6.4.
type Band struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Distance returns how far a rating lies outside the band, 0 inside.
func (b Band) Distance(rating int) int { return max(b.Min-rating, rating-b.Max, 0) }

// String returns the band as "4.0-6.4".
func (b Band) String() string {
	return fmt.Sprintf("%d.%d-%d.%d", b.Min/10, b.Min%10, b.Max/10, b.Max%10)
}

// ErrBandMissed is the error of Generate when its attempts run out before
// a puzzle is rated within the band.
var ErrBandMissed = errors.New("no puzzle rated within the band")

// GenerateOptions say what Generate makes.
type GenerateOptions struct {
	Band Band
	// Symmetric removes clues in pairs symmetric about the centre (the
	// centre cell alone).
	Symmetric bool
	// MinClues stops the removal there: easy bands want more givens than
	// a minimal puzzle keeps.
	MinClues int
	// Attempts is the most puzzles made and rated; 0: until ctx ends.
	Attempts int
}

// Generated is a puzzle that Generate made.
type Generated struct {
	Puzzle, Solution sudoku.Grid
	Result           Result // its rating
	Attempts         int    // puzzles made and rated to find it
}

// Generator makes puzzles rated within a band; it holds an exact solver
// and a rater, and like them is used by one goroutine at a time.
type Generator struct {
	es *sudoku.Solver
	rs *Solver
}

// NewGenerator returns a Generator.
func NewGenerator() *Generator { return &Generator{es: sudoku.NewSolver(), rs: NewSolver()} }

// Generate makes puzzles from rng and rates each until the techniques
// solve one within the band, and returns it. Each puzzle is a random
// solution grid with clues removed in random order while the solution
// stays unique (Dig). Rating stops as soon as a puzzle is known to rate
// above the band (the chains of hard puzzles take milliseconds to
// seconds). ctx is looked at once a puzzle. When the attempts
// run out, or ctx ends, it returns the solved puzzle rated nearest below
// the band (Result.Solved false if there was none) with an error:
// one wrapping ErrBandMissed, or ctx's. The puzzles depend only on rng's
// stream.
func (g *Generator) Generate(ctx context.Context, rng *rand.Rand, o GenerateOptions) (Generated, error) {
	var best Generated
	bestDist := -1
	for n := 1; o.Attempts == 0 || n <= o.Attempts; n++ {
		if err := ctx.Err(); err != nil {
			return best, err
		}
		solution := g.RandomSolution(rng)
		p := Generated{Puzzle: g.Dig(rng, solution, o.Symmetric, o.MinClues), Solution: solution, Attempts: n}
		p.Result = g.rs.rateUpTo(p.Puzzle, o.Band.Max)
		if !p.Result.Solved {
			continue // above the band, or beyond the techniques
		}
		dist := o.Band.Distance(p.Result.Rating)
		if dist == 0 {
			return p, nil
		}
		if bestDist < 0 || dist < bestDist {
			best, bestDist = p, dist
		}
	}
	if bestDist < 0 {
		return best, fmt.Errorf("%w %s in %d puzzles (all rated above it)", ErrBandMissed, o.Band, o.Attempts)
	}
	r := best.Result.Rating
	return best, fmt.Errorf("%w %s in %d puzzles (the nearest rated %d.%d)", ErrBandMissed, o.Band, o.Attempts, r/10, r%10)
}

// RandomSolution returns a random solution grid: the three boxes of the
// diagonal, which share no row or column, filled with random permutations
// (any such filling completes, in 9!^3 ways to start), then completed by
// the exact solver.
func (g *Generator) RandomSolution(rng *rand.Rand) sudoku.Grid {
	var grid sudoku.Grid
	for b := 0; b < 9; b += 4 {
		perm := rng.Perm(9)
		for k, d := range perm {
			grid[(b/3*3+k/3)*9+b%3*3+k%3] = uint8(d + 1)
		}
	}
	if n, _ := g.es.Solve(&grid, 1); n != 1 {
		panic("rating: three diagonal boxes that do not complete: " + grid.String())
	}
	return g.es.Solution(0)
}

// Dig empties the cells of solution in random order (in pairs symmetric
// about the centre if symmetric) as long as the puzzle keeps a unique
// solution and at least minClues givens, and returns the puzzle. Without
// symmetry and with minClues below 18 the puzzle is minimal: a clue whose
// removal breaks uniqueness still breaks it once others are gone.
func (g *Generator) Dig(rng *rand.Rand, solution sudoku.Grid, symmetric bool, minClues int) sudoku.Grid {
	p := solution
	clues := 81
	n := 81
	if symmetric {
		n = 41 // cell 40, the centre, is its own partner
	}
	for _, c := range rng.Perm(n) {
		m := c
		if symmetric {
			m = 80 - c
		}
		removed := 2
		if m == c {
			removed = 1
		}
		if clues-removed < minClues {
			continue
		}
		p[c], p[m] = 0, 0
		if k, _ := g.es.Solve(&p, 2); k == 1 {
			clues -= removed
			continue
		}
		p[c], p[m] = solution[c], solution[m]
	}
	return p
}

// MinRating and MaxRating bound the Explainer scale, in tenths: 1.0 is the
// last empty cell of a unit, and the hardest puzzles known rate under 12.
const (
	MinRating = 10
	MaxRating = 120
)

// ParseBand reads a band of ratings written "MIN-MAX" ("4.0-6.4", "7-8")
// or a single rating ("4.2"), with at most one decimal, from MinRating to
// MaxRating.
func ParseBand(s string) (Band, error) {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		hi = lo
	}
	var b Band
	for _, x := range []struct {
		text string
		to   *int
	}{{lo, &b.Min}, {hi, &b.Max}} {
		t, err := parseTenths(strings.TrimSpace(x.text))
		if err != nil {
			return Band{}, fmt.Errorf("%q: %w", s, err)
		}
		*x.to = t
	}
	if err := b.Valid(); err != nil {
		return Band{}, fmt.Errorf("%q: %w", s, err)
	}
	return b, nil
}

// Valid tells whether the band is within the scale and not reversed.
func (b Band) Valid() error {
	switch {
	case b.Min < MinRating || b.Max > MaxRating:
		return fmt.Errorf("ratings run from %d.%d to %d.%d", MinRating/10, MinRating%10, MaxRating/10, MaxRating%10)
	case b.Min > b.Max:
		return fmt.Errorf("the lower end %d.%d is above the upper %d.%d", b.Min/10, b.Min%10, b.Max/10, b.Max%10)
	}
	return nil
}

// parseTenths reads "4", "4.2" or "4.20" as tenths.
func parseTenths(s string) (int, error) {
	whole, frac, _ := strings.Cut(s, ".")
	frac = strings.TrimRight(frac, "0")
	w, err := strconv.Atoi(whole)
	if err != nil || w < 0 || len(frac) > 1 || strings.ContainsAny(whole, "+-") {
		return 0, fmt.Errorf("want a rating such as 4.2, got %q", s)
	}
	t := 10 * w
	if frac != "" {
		if frac[0] < '0' || frac[0] > '9' {
			return 0, fmt.Errorf("want a rating such as 4.2, got %q", s)
		}
		t += int(frac[0] - '0')
	}
	return t, nil
}

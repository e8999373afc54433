package web

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
)

// sudokuLevel is a level a person chooses, as a band of Sudoku Explainer
// ratings (tenths, inclusive) that the generator is asked to hit.
type sudokuLevel struct {
	Name     string
	Min, Max int
	// MinClues stops the removal of clues there: easy puzzles keep more
	// givens than removal to a minimal puzzle would leave.
	MinClues int
}

// sudokuLevels are the levels of /sudoku, from the easiest. Random
// symmetric removal makes a puzzle in about 0.35 ms; of 1,000 (rated when
// the logical solver finishes them, 87%) 11% rate 1.2, 44% 1.5, 17% 1.7 to
// 2.3, 6% 2.5 to 3.8 and 10% 4.0 to 5.6; with 34 givens kept, 78% rate 1.2.
// So each band comes in milliseconds: hidden singles in boxes with many
// givens; singles; locked candidates, pairs and small fish; then turbot
// fish, wings, unique rectangles and BUG.
var sudokuLevels = []sudokuLevel{
	{Name: "easy", Min: 10, Max: 12, MinClues: 34},
	{Name: "medium", Min: 13, Max: 23},
	{Name: "hard", Min: 24, Max: 39},
	{Name: "fiendish", Min: 40, Max: 64},
}

func sudokuLevelNamed(name string) (sudokuLevel, bool) {
	for _, l := range sudokuLevels {
		if l.Name == name {
			return l, true
		}
	}
	return sudokuLevel{}, false
}

// sudokuPuzzle is a generated or pasted puzzle with its unique solution
// and its rating (0 when the logical solver cannot finish it).
type sudokuPuzzle struct {
	Puzzle, Solution sudoku.Grid
	Rating           int
}

// generateSudoku makes puzzles until one is rated within the level's band,
// and returns it. It stops when ctx ends: with the puzzle found so far
// whose rating is nearest the band if there is one (deadline), else with
// ctx's error.
func generateSudoku(ctx context.Context, rng *rand.Rand, level sudokuLevel) (sudokuPuzzle, error) {
	es := sudoku.NewSolver()
	rs := rating.NewSolver()
	var best sudokuPuzzle
	bestDist := -1
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			if bestDist >= 0 && errors.Is(err, context.DeadlineExceeded) {
				return best, nil
			}
			return sudokuPuzzle{}, err
		}
		p := removeSudokuClues(es, rng, randomSudokuSolution(es, rng), level.MinClues)
		r := rs.Rate(p.Puzzle)
		if !r.Solved {
			continue // beyond the techniques: no hint could explain it
		}
		p.Rating = r.Rating
		dist := max(level.Min-r.Rating, r.Rating-level.Max, 0)
		if dist == 0 {
			return p, nil
		}
		if bestDist < 0 || dist < bestDist {
			best, bestDist = p, dist
		}
	}
}

// randomSudokuSolution returns a random solution grid: the three boxes
// of the diagonal, which share no row or column, filled with random
// permutations (any such filling completes, in 9!^3 ways to start), then
// completed by the solver.
func randomSudokuSolution(es *sudoku.Solver, rng *rand.Rand) sudoku.Grid {
	var g sudoku.Grid
	for b := 0; b < 9; b += 4 {
		perm := rng.Perm(9)
		for k, d := range perm {
			g[(b/3*3+k/3)*9+b%3*3+k%3] = uint8(d + 1)
		}
	}
	if n, _ := es.Solve(&g, 1); n != 1 {
		panic("web: three diagonal boxes that do not complete: " + g.String())
	}
	return es.Solution(0)
}

// removeSudokuClues empties the cells of the solution in random order, in
// pairs symmetric about the centre, as long as the puzzle keeps a unique
// solution and at least minClues givens.
func removeSudokuClues(es *sudoku.Solver, rng *rand.Rand, solution sudoku.Grid, minClues int) sudokuPuzzle {
	g := solution
	clues := 81
	for _, c := range rng.Perm(41) { // cell 40, the centre, is its own partner
		m := 80 - c
		removed := 2
		if m == c {
			removed = 1
		}
		if clues-removed < minClues {
			continue
		}
		g[c], g[m] = 0, 0
		if n, _ := es.Solve(&g, 2); n == 1 {
			clues -= removed
			continue
		}
		g[c], g[m] = solution[c], solution[m]
	}
	return sudokuPuzzle{Puzzle: g, Solution: solution}
}

// Band is the level's band of ratings in words, e.g. "1.3–2.3".
func (l sudokuLevel) Band() string {
	return fmt.Sprintf("%d.%d–%d.%d", l.Min/10, l.Min%10, l.Max/10, l.Max%10)
}

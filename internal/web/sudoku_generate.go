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

// sudokuLevels are the levels of /sudoku, from the easiest. Each is a
// band that random symmetric removal reaches in a few tries, so that a
// puzzle comes in milliseconds (TestSudokuLevelsReachable): hidden singles in boxes
// with many givens; singles; locked candidates, pairs and small fish; then
// turbot fish, wings, unique rectangles and BUG.
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
	p, err := rating.NewGenerator().Generate(ctx, rng, rating.GenerateOptions{
		Band: rating.Band{Min: level.Min, Max: level.Max}, Symmetric: true, MinClues: level.MinClues,
	})
	if err != nil && !(errors.Is(err, context.DeadlineExceeded) && p.Result.Solved) {
		return sudokuPuzzle{}, err
	}
	return sudokuPuzzle{Puzzle: p.Puzzle, Solution: p.Solution, Rating: p.Result.Rating}, nil
}

// Band is the level's band of ratings in words, e.g. "1.3–2.3".
func (l sudokuLevel) Band() string {
	return fmt.Sprintf("%d.%d–%d.%d", l.Min/10, l.Min%10, l.Max/10, l.Max%10)
}

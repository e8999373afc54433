package sudoku_test

import (
	"fmt"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Classify tells unique puzzles from the others, with evidence.
func ExampleSolver_Classify() {
	s := sudoku.NewSolver()
	for _, line := range []string{
		"..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
		"55" + strings.Repeat(".", 79),
		strings.Repeat(".", 81),
	} {
		g, err := sudoku.ParseLine(line)
		if err != nil {
			fmt.Println(err)
			continue
		}
		r := s.Classify(g)
		switch r.Outcome {
		case sudoku.Unique:
			fmt.Println(r.Outcome, r.Solution, r.Guesses, "guesses")
		case sudoku.Multiple:
			fmt.Println(r.Outcome, r.Solution != r.Second)
		default:
			fmt.Println(r.Outcome, r.Reason)
		}
	}
	// Output:
	// unique 483921657967345821251876493548132976729564138136798245372689514814253769695417382 0 guesses
	// invalid row 1 has two 5s (r1c1, r1c2)
	// multiple true
}

// Parse reads a file of puzzles, one per line or as 9-row grids, and gives
// one item per puzzle: a grid or the reason it is not one.
func ExampleParse() {
	text := `# two puzzles and a bad line
..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..
..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.

. . 3 | . 2 . | 6 . .
9 . . | 3 . 5 | . . 1
. . 1 | 8 . 6 | 4 . .
------+-------+------
. . 8 | 1 . 2 | 9 . .
7 . . | . . . | . . 8
. . 6 | 7 . 8 | 2 . .
------+-------+------
. . 2 | 6 . 9 | 5 . .
8 . . | 2 . 3 | . . 9
. . 5 | . 1 . | 3 . .
`
	sudoku.Parse(strings.NewReader(text), func(it sudoku.Item) error {
		if it.Err != nil {
			fmt.Printf("puzzles.txt:%d: %v\n", it.Line, it.Err)
			return nil
		}
		fmt.Printf("line %d: %d clues\n", it.Line, it.Grid.Clues())
		return nil
	})
	// Output:
	// line 2: 32 clues
	// puzzles.txt:3: 80 cells, want 81
	// line 5: 32 clues
}

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
)

func sudokuExplainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "solve one puzzle step by step in words, with its Sudoku Explainer rating",
		ArgsUsage: "PUZZLE",
		Description: "PUZZLE is 81 cells on one line (1-9, and '.', '0' or '_' for empty). Each step is the easiest\n" +
			"technique that makes progress, with its rating; the puzzle's rating is the hardest step. Beside it,\n" +
			"the guess-based difficulty: the mean of ln(1+guesses) of the exact solver over 10 random\n" +
			"relabellings of the puzzle (digits, bands, rows in a band, stacks, columns in a stack), as tdoku's\n" +
			"generator measures it: 0 when propagation alone solves it.\n\n" +
			"Example:\n   analyze sudoku explain 570060003030005060601007000053000001000080000900000270000800402080100030200040019",
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("sudoku explain: want exactly one puzzle, got %d arguments", c.NArg())
			}
			g, err := sudoku.ParseLine(c.Args().First())
			if err != nil {
				return usagef("the puzzle: %v", err)
			}
			es := sudoku.NewSolver()
			if sr := es.Classify(g); sr.Outcome != sudoku.Unique {
				return fmt.Errorf("%s: not rated", sr.Why())
			}
			r, steps := rating.NewSolver().Explain(g)
			w := c.App.Writer
			for i, st := range steps {
				fmt.Fprintf(w, "%3d  %d.%d  %s\n", i+1, st.Rating/10, st.Rating%10, st.Text)
			}
			if !r.Solved {
				fmt.Fprintf(w, "stuck: the puzzle needs techniques not implemented (nested forcing chains); rating so far %d.%d\n", r.Rating/10, r.Rating%10)
			} else {
				fmt.Fprintf(w, "rating %d.%d (%s)\n", r.Rating/10, r.Rating%10, r.Hardest)
			}
			fmt.Fprintf(w, "guess difficulty %.2f (mean ln(1+guesses) over %d relabellings)\n", es.GuessDifficulty(&g), sudoku.Relabellings)
			return nil
		},
	}
}

package main

import (
	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

func sudokuRateCommand() *cli.Command {
	return &cli.Command{
		Name:      "rate",
		Usage:     "rate whole corpora on the Sudoku Explainer scale with human techniques",
		ArgsUsage: "FILE...",
		Description: "Each puzzle is solved step by step with the easiest technique that makes progress, and rated by\n" +
			"its hardest step (Sudoku Explainer's ER: 1.2 hidden single ... 8.5+ dynamic forcing chains). Beside it,\n" +
			"the guess-based difficulty: the mean of ln(1+guesses) of the exact solver over 10 random relabellings\n" +
			"(as tdoku's generator measures it; 0 when propagation alone solves the puzzle). FILEs are read as by\n" +
			"`sudoku solve` (- is stdin; --out - and --rejects - are stdout). --out gets one line per puzzle in input order: \"<rating> <puzzle> <guess difficulty>\"\n" +
			"(rating \"?\" for a puzzle that needs techniques not implemented, nested forcing chains), or the outcome\n" +
			"and the reason for a puzzle not uniquely solved (also written to --rejects). The report has a histogram\n" +
			"of ratings with the mean guess difficulty of each, the puzzles that needed each technique, and the\n" +
			"hardest puzzles with their lines.\n\n" +
			"Example:\n   analyze sudoku rate datasets/sudoku/top1465.txt.gz --out ratings.txt",
		OnUsageError: onUsageError,
		Flags:        append(corpusFlags("100: rating takes up to seconds a puzzle"), jobFlags()...),
		Action: func(c *cli.Context) error {
			return corpusJob(c, sudoku.Rate{}.Name(), nil)
		},
	}
}

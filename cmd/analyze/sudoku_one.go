package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// puzzleLike tells whether a command-line argument is written as a puzzle
// on one line: at least 17 characters, each a digit or one of '.', '_'
// (so never a file name with a directory or an extension).
func puzzleLike(arg string) bool {
	return len(arg) >= 17 && strings.Trim(arg, "0123456789._") == ""
}

// puzzleArgs tells whether the arguments of sudoku solve are puzzles rather
// than files: each looks like one and names no file.
func puzzleArgs(args []string) bool {
	for _, a := range args {
		if !puzzleLike(a) {
			return false
		}
		if _, err := os.Stat(a); err == nil {
			return false
		}
	}
	return len(args) > 0
}

// onePuzzle is the answer of sudoku solve PUZZLE... for one puzzle, as
// --json prints it.
type onePuzzle struct {
	Puzzle   string `json:"puzzle"`
	Outcome  string `json:"outcome"`
	Solution string `json:"solution,omitempty"` // unique, multiple
	Second   string `json:"second,omitempty"`   // multiple: another solution
	Why      string `json:"why,omitempty"`      // all but unique
	Guesses  int    `json:"guesses"`
}

// solvePuzzles is sudoku solve with puzzles for arguments, in this process
// (no job, no cluster): for each, its solution on a line of stdout; for a
// puzzle that has none or several, or whose text is not a puzzle, the
// reason on stderr ("the puzzle has several solutions: r2c5 can be 3 or
// 8, among others", followed on stdout by two of them), and the command
// fails (exit 1; a malformed puzzle is a usage error, exit 2).
func solvePuzzles(c *cli.Context, args []string) error {
	if c.IsSet("out") || c.IsSet("rejects") || c.IsSet("nats") {
		return usagef("sudoku solve PUZZLE: --out, --rejects and --nats are for puzzle files; the answer goes to stdout")
	}
	s := sudoku.NewSolver()
	var answers []onePuzzle
	failed := 0
	for i, a := range args {
		name := "the puzzle"
		if len(args) > 1 {
			name = fmt.Sprintf("puzzle %d", i+1)
		}
		g, err := sudoku.ParseLine(a)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		r := s.Classify(g)
		ans := onePuzzle{Puzzle: g.String(), Outcome: r.Outcome.String(), Why: r.Why(), Guesses: r.Guesses}
		if r.Outcome == sudoku.Unique || r.Outcome == sudoku.Multiple {
			ans.Solution = r.Solution.String()
		}
		if r.Outcome == sudoku.Multiple {
			ans.Second = r.Second.String()
		}
		answers = append(answers, ans)
		if r.Outcome != sudoku.Unique {
			failed++
		}
		if c.Bool("json") {
			continue
		}
		for _, sol := range []string{ans.Solution, ans.Second} {
			if sol != "" {
				fmt.Fprintln(c.App.Writer, sol)
			}
		}
		if ans.Why != "" && len(args) > 1 {
			fmt.Fprintf(c.App.ErrWriter, "analyze: %s: %s\n", name, whyOnStdout(ans))
		}
	}
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, map[string]any{"puzzles": answers}); err != nil {
			return err
		}
	}
	switch {
	case failed == 0:
		return nil
	case len(args) == 1 && c.Bool("json"):
		return errors.New(answers[0].Why)
	case len(args) == 1:
		return errors.New(whyOnStdout(answers[0]))
	}
	return fmt.Errorf("%d of %d puzzles not uniquely solved", failed, len(args))
}

// whyOnStdout is the reason a puzzle has no unique solution, as the text
// output gives it: of a puzzle with several, the two solutions printed.
func whyOnStdout(a onePuzzle) string {
	if a.Second != "" {
		return a.Why + " (two of them are on stdout)"
	}
	return a.Why
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

func init() { gameCommands = append(gameCommands, sudokuCommand) }

func sudokuCommand() *cli.Command {
	return &cli.Command{
		Name:         "sudoku",
		Usage:        "Sudoku: solve and check corpora, generate puzzles, benchmark and compare solvers",
		OnUsageError: onUsageError,
		Subcommands:  append([]*cli.Command{sudokuBenchCommand(), sudokuCompareCommand(), sudokuExplainCommand()}, sudokuJobCommands()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowSubcommandHelp(c)
			}
			return noCommand("sudoku", c.Command.Subcommands, c.Args().First())
		},
	}
}

// maxShown is how many malformed lines bench and compare print on stderr.
const maxShown = 10

// puzzleFile is a puzzle file read and parsed: its grids with their lines,
// and its malformed items.
type puzzleFile struct {
	good, bad []sudoku.Item
	// damaged is the *infile.DamagedError of a compressed file that breaks
	// off or fails its checks: good and bad are the items before it.
	damaged error
}

// readPuzzles reads and parses a puzzle file, plain or compressed (see
// infile.ReadFile), and prints the first maxShown malformed items on stderr
// as FILE:LINE: reason. A file that cannot be read is a usage error.
func readPuzzles(path string, stderr io.Writer) (puzzleFile, error) {
	var p puzzleFile
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return p, usagef("%s: is a directory, want a puzzle file", path)
	}
	text, _, err := infile.ReadFile(path)
	path = infile.Name(path)
	if errors.As(err, new(*infile.DamagedError)) {
		p.damaged = err
	} else if err != nil {
		return p, readError(path, err)
	}
	err = sudoku.ParseBytes(text, 1, func(it sudoku.Item) error {
		if it.Err != nil {
			if len(p.bad) < maxShown {
				fmt.Fprintf(stderr, "analyze: %s:%d: malformed: %v\n", path, it.Line, it.Err)
			}
			p.bad = append(p.bad, it)
			return nil
		}
		p.good = append(p.good, it)
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("read %s: %w", path, err)
	}
	if len(p.bad) > maxShown {
		fmt.Fprintf(stderr, "analyze: %s: %d more malformed lines\n", path, len(p.bad)-maxShown)
	}
	return p, nil
}

// readError is the usage error of an input file that cannot be read.
func readError(path string, err error) error {
	if errors.Is(err, infile.ErrFormat) || errors.Is(err, infile.ErrLimit) {
		return usagef("%v", err) // it names the file
	}
	return usagef("%s: cannot read: %v", path, err)
}

// benchReport is the output of sudoku bench.
type benchReport struct {
	File              string    `json:"file"`
	Puzzles           int       `json:"puzzles"`
	Unique            int       `json:"unique"`
	Multiple          int       `json:"multiple"`
	Unsolvable        int       `json:"unsolvable"`
	Invalid           int       `json:"invalid"`
	Malformed         int       `json:"malformed"`
	Guesses           int64     `json:"guesses"`
	Repeat            int       `json:"repeat"`
	Seconds           float64   `json:"seconds"`
	PuzzlesPerSecond  float64   `json:"puzzles_per_second"`
	TotalSeconds      float64   `json:"total_seconds"`
	SolvedPerRepeat   int       `json:"solved_per_repeat"`
	SecondsPerRepeats []float64 `json:"seconds_per_repeat"`
}

func sudokuBenchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "measure the engine: classify every puzzle of FILE (limit 2: uniqueness included) in one goroutine",
		ArgsUsage: "FILE",
		Description: "Reads and parses FILE (- for stdin) first (not timed), then classifies every puzzle --repeat times, each\n" +
			"solution checked. seconds and puzzles_per_second are those of the median repeat. FILE is plain\n" +
			"text or gzip or zstd, told apart by its first bytes; of a damaged compressed file, the puzzles\n" +
			"before the damage are measured, then the command fails naming the line reached.\n\n" +
			"Example:\n   analyze sudoku bench datasets/sudoku/royle17.txt.gz --repeat 5 --json",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			jsonFlag,
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "classify the whole file `N` times"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("sudoku bench: want exactly one puzzle file, got %d arguments", c.NArg())
			}
			repeat := c.Int("repeat")
			if repeat < 1 {
				return usagef("--repeat %d: want 1 or more", repeat)
			}
			path := c.Args().First()
			p, err := readPuzzles(path, c.App.ErrWriter)
			path = infile.Name(path)
			if err != nil {
				return err
			}
			good, bad := p.good, p.bad
			r := benchReport{File: path, Puzzles: len(good) + len(bad), Malformed: len(bad), Repeat: repeat, SolvedPerRepeat: len(good)}
			s := sudoku.NewSolver()
			for i := range repeat {
				if err := c.Context.Err(); err != nil {
					return err
				}
				var counts [5]int
				var guesses int64
				start := time.Now()
				for j, it := range good {
					if j&4095 == 4095 && c.Context.Err() != nil {
						return c.Context.Err()
					}
					res := s.Classify(it.Grid)
					counts[res.Outcome]++
					guesses += int64(res.Guesses)
				}
				r.SecondsPerRepeats = append(r.SecondsPerRepeats, time.Since(start).Seconds())
				if i == 0 {
					r.Unique, r.Multiple, r.Unsolvable, r.Invalid = counts[sudoku.Unique], counts[sudoku.Multiple], counts[sudoku.Unsolvable], counts[sudoku.Invalid]
					r.Guesses = guesses
				}
			}
			for _, sec := range r.SecondsPerRepeats {
				r.TotalSeconds += sec
			}
			r.Seconds = median(r.SecondsPerRepeats)
			if r.Seconds > 0 {
				r.PuzzlesPerSecond = float64(len(good)) / r.Seconds
			}
			if err := printBench(c.App.Writer, r, c.Bool("json")); err != nil {
				return err
			}
			return p.damaged
		},
	}
}

// printBench prints bench's report as JSON or as a table.
func printBench(w io.Writer, r benchReport, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sudoku bench %s: one goroutine, limit 2, %d repeat(s)\n", r.File, r.Repeat)
	fmt.Fprintf(tw, "  puzzles\t%s\n", tasks.Thousands(uint64(r.Puzzles)))
	for _, row := range []struct {
		name string
		n    int
	}{{"unique", r.Unique}, {"multiple", r.Multiple}, {"unsolvable", r.Unsolvable}, {"invalid", r.Invalid}, {"malformed", r.Malformed}} {
		fmt.Fprintf(tw, "    %s\t%s\n", row.name, tasks.Thousands(uint64(row.n)))
	}
	fmt.Fprintf(tw, "  guesses\t%s\n", tasks.Thousands(uint64(r.Guesses)))
	fmt.Fprintf(tw, "  seconds\t%.3f\n", r.Seconds)
	fmt.Fprintf(tw, "  puzzles per second\t%s\n", tasks.Thousands(uint64(r.PuzzlesPerSecond+0.5)))
	return tw.Flush()
}

// compareResult is one row of sudoku compare.
type compareResult struct {
	Line     int     `json:"line"`
	Strategy string  `json:"strategy"`
	Calls    int64   `json:"calls"`
	Outcome  string  `json:"outcome"`
	Seconds  float64 `json:"seconds"`
	Reason   string  `json:"reason,omitempty"`
}

type compareReport struct {
	File           string          `json:"file"`
	Repeat         int             `json:"repeat"`
	TimeoutSeconds float64         `json:"timeout_seconds"`
	Results        []compareResult `json:"results"`
	// Malformed lines are not run (each is named on stderr too).
	Malformed []malformedLine `json:"malformed"`
}

type malformedLine struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

func sudokuCompareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare search strategies on every puzzle of FILE: calls to the solve function and time",
		ArgsUsage: "FILE",
		Description: "Strategies (calls count the root and every recursive call):\n" +
			"   backtrack   first empty cell, digits 1-9 checked against row, column and box; givens not checked\n" +
			"   candidates  the same over the cell's candidates only; conflicting givens are invalid (0 calls)\n" +
			"   mrv         the cell with fewest candidates, with a forward check before recursing\n" +
			"   fast        the engine (its search nodes)\n" +
			"A run is stopped at its first check (every 4,096 calls) past --timeout: outcome timeout, with the\n" +
			"calls reached (fast, milliseconds at worst, is not stopped). Every solution is checked; givens\n" +
			"that conflict are invalid whatever the strategy. Seconds are the median of --repeat runs (a run\n" +
			"that times out is not repeated). Malformed lines are named on stderr and not run. Runs in this\n" +
			"process, one at a time. FILE (- for stdin) is plain text or gzip or zstd, told apart by its first bytes; of\n" +
			"a damaged compressed file, the puzzles before the damage are run, then the command fails\n" +
			"naming the line reached.\n\n" +
			"Example:\n   analyze sudoku compare datasets/sudoku/euler96.txt.gz --strategies backtrack,mrv,fast --repeat 3",
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			jsonFlag,
			&cli.StringFlag{Name: "strategies", Value: strings.Join(sudoku.Strategies, ","), Usage: "comma-separated `LIST` of backtrack, candidates, mrv, fast"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "time limit `D` of each run"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "run each strategy `N` times per puzzle (seconds: the median)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("sudoku compare: want exactly one puzzle file, got %d arguments", c.NArg())
			}
			var strategies []string
			for _, name := range strings.Split(c.String("strategies"), ",") {
				name = strings.TrimSpace(name)
				if !slices.Contains(sudoku.Strategies, name) {
					return usagef("--strategies: no strategy %q (want a list of %s)", name, strings.Join(sudoku.Strategies, ", "))
				}
				if slices.Contains(strategies, name) {
					return usagef("--strategies: %s named twice", name)
				}
				strategies = append(strategies, name)
			}
			repeat, timeout := c.Int("repeat"), c.Duration("timeout")
			if repeat < 1 {
				return usagef("--repeat %d: want 1 or more", repeat)
			}
			if timeout <= 0 {
				return usagef("--timeout %v: want a positive duration such as 10s", timeout)
			}
			path := c.Args().First()
			p, err := readPuzzles(path, c.App.ErrWriter)
			path = infile.Name(path)
			if err != nil {
				return err
			}
			good, bad := p.good, p.bad
			rep := compareReport{File: path, Repeat: repeat, TimeoutSeconds: timeout.Seconds(),
				Results: []compareResult{}, Malformed: []malformedLine{}}
			for _, it := range bad {
				rep.Malformed = append(rep.Malformed, malformedLine{Line: it.Line, Reason: it.Err.Error()})
			}
			s := sudoku.NewSolver()
			for _, it := range good {
				for _, name := range strategies {
					res, err := compareRun(c.Context, name, it.Grid, s, repeat, timeout)
					if err != nil {
						return fmt.Errorf("%s:%d: %w", path, it.Line, err)
					}
					res.Line = it.Line
					rep.Results = append(rep.Results, res)
				}
			}
			if err := printCompare(c.App.Writer, rep, strategies, timeout, c.Bool("json")); err != nil {
				return err
			}
			return p.damaged
		},
	}
}

// printCompare prints compare's report as JSON or as tables: a row for
// each strategy on each puzzle, then the totals per strategy.
func printCompare(w io.Writer, rep compareReport, strategies []string, timeout time.Duration, asJSON bool) error {
	if asJSON {
		return writeJSON(w, rep)
	}
	good, bad := len(rep.Results)/len(strategies), len(rep.Malformed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	runs := "1 run"
	if rep.Repeat > 1 {
		runs = fmt.Sprintf("the median of %d runs (a run that times out is not repeated)", rep.Repeat)
	}
	fmt.Fprintf(w, "sudoku compare %s: %s, %s, time limit %v each\n", rep.File, tasks.Count(good, "puzzle"), runs, timeout)
	if bad > 0 {
		fmt.Fprintf(w, "%s not run (named on stderr)\n", tasks.Count(bad, "malformed line"))
	}
	if good == 0 {
		return nil
	}
	fmt.Fprintln(tw, "line\tstrategy\tcalls\toutcome\tseconds\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.6f\t\n", r.Line, r.Strategy, tasks.Thousands(uint64(r.Calls)), r.Outcome, r.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if good < 2 {
		return nil
	}
	// Totals per strategy over the file.
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy	solved	unsolvable	invalid	timeout	calls	seconds	")
	for _, name := range strategies {
		var calls int64
		var secs float64
		n := map[string]int{}
		for _, r := range rep.Results {
			if r.Strategy == name {
				calls += r.Calls
				secs += r.Seconds
				n[r.Outcome]++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%.6f\t\n", name, n["solved"], n["unsolvable"], n["invalid"], n["timeout"], tasks.Thousands(uint64(calls)), secs)
	}
	return tw.Flush()
}

// compareRun runs one strategy on one puzzle repeat times (stopping after a
// timeout, which would only repeat) and returns the median time.
func compareRun(ctx context.Context, name string, g sudoku.Grid, s *sudoku.Solver, repeat int, timeout time.Duration) (compareResult, error) {
	res := compareResult{Strategy: name}
	var secs []float64
	for range repeat {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		start := time.Now()
		run, err := sudoku.RunStrategy(rctx, name, g, s)
		el := time.Since(start)
		cancel()
		if err != nil {
			return res, err
		}
		if run.Outcome == sudoku.TimedOut && ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Calls, res.Outcome, res.Reason = run.Calls, run.Outcome.String(), run.Reason
		secs = append(secs, el.Seconds())
		if run.Outcome == sudoku.TimedOut {
			break
		}
	}
	res.Seconds = median(secs)
	return res, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeJSON writes v as one line of JSON, its text as it is ("<stdin>",
// not "\u003cstdin\u003e": the output is never HTML).
func writeJSON(w io.Writer, v any) error {
	data, err := tasks.MarshalPlain(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

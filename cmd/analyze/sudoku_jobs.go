package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// sudokuJobCommands are the Sudoku commands that run as jobs on the
// pipeline; sudoku.go adds them to the sudoku command.
func sudokuJobCommands() []*cli.Command {
	return []*cli.Command{sudokuSolveCommand(), sudokuRateCommand(), sudokuGenerateCommand()}
}

// outputPaths checks the output flags of a command before any work starts:
// each names a file that can be written, and none names one of the inputs
// or another output. "-" is standard output, which one flag at most may
// name.
func outputPaths(c *cli.Context, inputs []string, flags ...string) error {
	type file struct {
		what, abs string
		st        os.FileInfo // nil if it does not exist yet
	}
	named := func(what, path string) file {
		st, _ := os.Stat(path)
		abs, _ := filepath.Abs(path)
		return file{what, abs, st}
	}
	var seen []file
	for _, in := range inputs {
		if in != infile.Stdin {
			seen = append(seen, named("input "+in, in))
		}
	}
	stdout := ""
	for _, flag := range flags {
		path := c.String(flag)
		if path == client.StdoutPath {
			if stdout != "" {
				return usagef("--%s -: --%s writes to standard output already", flag, stdout)
			}
			stdout = flag
			continue
		}
		if path == "" {
			if c.IsSet(flag) {
				return usagef("--%s: want a file name", flag)
			}
			continue
		}
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usagef("--%s %s: directory %s does not exist", flag, path, dir)
		}
		out := named("--"+flag+" file", path)
		if out.st != nil && out.st.IsDir() {
			return usagef("--%s %s: is a directory", flag, path)
		}
		if out.st != nil && !out.st.Mode().IsRegular() {
			continue // a device or a pipe (/dev/null, /dev/stdout): written to as it is
		}
		for _, f := range seen {
			if out.abs == f.abs || out.st != nil && f.st != nil && os.SameFile(out.st, f.st) {
				return usagef("--%s %s: the same file as the %s", flag, path, f.what)
			}
		}
		seen = append(seen, out)
	}
	return nil
}

func sudokuSolveCommand() *cli.Command {
	return &cli.Command{
		Name:      "solve",
		Usage:     "solve whole corpora: every puzzle checked for uniqueness, every bad line reported",
		ArgsUsage: "FILE... | PUZZLE...",
		Description: "PUZZLEs given on the command line (81 cells each) are solved in this process: the solution of\n" +
			"each on stdout, or why it has none (the conflicting givens, a cell with no candidate) or several\n" +
			"(two of them on stdout) on stderr, and exit 1.\n\n" +
			"FILE - is standard input, and --out - or --rejects - standard output (the report then goes to\n" +
			"stderr): zcat corpus.gz | analyze sudoku solve - --out - > solutions.txt\n\n" +
			"Each FILE has one puzzle per line (81 cells: 1-9, and '.', '0' or '_' for empty; '#' comments\n" +
			"and blank lines skipped) or 9-row grids (spaces and '|', '-', '+' separators ignored, a blank\n" +
			"line between grids), as plain text or compressed with gzip or zstd (told apart by the first\n" +
			"bytes, not the name; line numbers are those of the text). Of a damaged compressed FILE, the\n" +
			"lines before the damage are solved and reported, then the command fails (exit 1) naming the\n" +
			"line reached. --out gets exactly one line per puzzle, in input order:\n" +
			"the solution of a unique puzzle, else the outcome (multiple, unsolvable, invalid, malformed) and\n" +
			"the reason. --rejects gets FILE:LINE: outcome: reason for every puzzle not uniquely solved.\n" +
			"Interrupted, the same command with the same --data resumes, reusing finished chunks.\n" +
			"FILEs are read, uploaded and solved a chunk at a time and the outputs written as results come,\n" +
			"so a corpus larger than memory runs (a hundred million puzzles peaked at 363 MB: see\n" +
			"docs/benchmarks.md). Without --nats the workers read the chunks\n" +
			"of a plain FILE from FILE itself: do not change it until its job is done (a resumed job whose\n" +
			"FILE changed fails, naming the bytes); a compressed FILE's text is held in the store under\n" +
			"--data (about 82 bytes a puzzle) until the job is done. Cached results take 41 bytes a puzzle.\n\n" +
			"Examples:\n   analyze sudoku solve datasets/sudoku/royle17.txt.gz --out solutions.txt --rejects rejects.txt\n" +
			"   analyze sudoku solve 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
		OnUsageError: onUsageError,
		Flags: append(append(corpusFlags("by the inputs' size, 100 to 3,000"),
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 if any puzzle is not uniquely solved"},
		), jobFlags()...),
		Action: func(c *cli.Context) error {
			if puzzleArgs(c.Args().Slice()) {
				return solvePuzzles(c, c.Args().Slice())
			}
			var check func(report []byte) error
			if c.Bool("strict") {
				check = func(report []byte) error {
					var r sudoku.SolveReport
					if err := json.Unmarshal(report, &r); err != nil {
						return err
					}
					if n := r.RejectsTotal; n > 0 {
						return fmt.Errorf("--strict: %d of %d puzzles were not uniquely solved", n, r.Puzzles)
					}
					return nil
				}
			}
			return corpusJob(c, sudoku.Solve{}.Name(), check)
		},
	}
}

// corpusFlags are the flags of a command that runs a job over puzzle
// files; auto says what --chunk is when it is not given.
func corpusFlags(auto string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "out", Usage: "write one line per puzzle to `FILE` (- for stdout; the report then goes to stderr)"},
		&cli.StringFlag{Name: "rejects", Usage: "write every puzzle not uniquely solved to `FILE` (- for stdout)"},
		&cli.IntFlag{Name: "chunk", Usage: "`N` puzzles per task, 1 to 3,000", DefaultText: auto},
	}
}

// corpusJob runs a job of kind over the puzzle files named on the command
// line (sudoku solve, sudoku rate): it checks them and the corpus flags,
// has the kind upload them and build the job (sudoku.SubmitCorpus), and
// has check, if set, judge the report. Of a damaged input, the job runs
// on the lines before the damage, its report and outputs are written, and
// the command fails.
func corpusJob(c *cli.Context, kind string, check func(report []byte) error) error {
	files := c.Args().Slice()
	if len(files) == 0 {
		return usagef("sudoku %s: name at least one puzzle file (- for standard input)", c.Command.Name)
	}
	sources := make([]sudoku.Source, len(files))
	stdin := false
	for i, f := range files {
		sources[i] = sudoku.FileSource(f)
		if f == infile.Stdin {
			if stdin {
				return usagef("sudoku %s: - (standard input) named twice", c.Command.Name)
			}
			stdin = true
			continue
		}
		st, err := os.Stat(f)
		if err != nil && puzzleLike(f) {
			return usagef("%s: no such file; puzzles on the command line go to sudoku solve alone, without files", f)
		}
		if err != nil {
			return usagef("%s: cannot read: %v", f, err)
		}
		if st.IsDir() {
			return usagef("%s: is a directory, want a puzzle file", f)
		}
	}
	if err := outputPaths(c, files, "out", "rejects"); err != nil {
		return err
	}
	if n := c.Int("chunk"); c.IsSet("chunk") && (n < 1 || n > sudoku.MaxChunk) {
		return usagef("--chunk %d: want 1 to %d", n, sudoku.MaxChunk)
	}
	o, err := options(c)
	if err != nil {
		return err
	}
	o.Outputs, o.Check = map[string]string{}, check
	p := sudoku.SolveParams{Chunk: c.Int("chunk")}
	if path := c.String("out"); path != "" {
		o.Outputs["out"], p.Out = path, true
	}
	if path := c.String("rejects"); path != "" {
		o.Outputs["rejects"], p.Rejects = path, true
	}
	var damaged error
	err = client.RunWith(c.Context, o, func(ctx context.Context, in tasks.Inputs) (tasks.Spec, error) {
		spec, d, err := sudoku.SubmitCorpus(ctx, in, kind, sources, p)
		if errors.Is(err, tasks.ErrInvalid) {
			return tasks.Spec{}, usagef("%v", err)
		}
		damaged = d
		return spec, err
	})
	return errors.Join(damaged, err)
}

func sudokuGenerateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "generate puzzles with exactly one solution",
		Description: "Puzzle i comes from its own random stream seeded by (--seed, i): the same seed gives the same\n" +
			"puzzles whatever the number of workers. Clues are removed in random order while the solution\n" +
			"stays unique (one pass leaves a minimal puzzle). --clues C stops at exactly C clues (with\n" +
			"--minimal: minimal puzzles of at most C clues); --symmetric removes clues in 180-degree pairs;\n" +
			"--minimal makes sure that removing any single clue breaks uniqueness. A grid that does not give\n" +
			"what is asked is replaced by another, up to 5,000 per puzzle: below about 22 clues, few do.\n" +
			"--rating MIN-MAX keeps only puzzles that `sudoku rate` rates within the band (Sudoku Explainer\n" +
			"scale, 1.0-12.0, e.g. 4.0-6.4): each is a random solution grid dug as above (not with --clues or\n" +
			"--minimal) and rated, up to 2,000 per puzzle; random removal seldom gives more than 7.x, and a\n" +
			"band it does not reach fails its task (in about 20 s) naming the nearest rating found.\n\n" +
			"Examples:\n   analyze sudoku generate --count 1000 --seed 7 --minimal --out puzzles.txt\n" +
			"   analyze sudoku generate --count 10 --rating 4.5-6.0 --symmetric",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "count", Usage: "`N` puzzles to make (required)"},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed `S`: the same seed makes the same puzzles", Value: 1},
			&cli.IntFlag{Name: "clues", Usage: fmt.Sprintf("`C` clues in every puzzle (%d-81; with --minimal: at most C)", sudoku.MinClues), DefaultText: "remove clues while the solution stays unique"},
			&cli.BoolFlag{Name: "symmetric", Usage: "clues symmetric under a 180-degree rotation"},
			&cli.BoolFlag{Name: "minimal", Usage: "removing any clue breaks uniqueness"},
			&cli.StringFlag{Name: "rating", Usage: "keep puzzles rated `MIN-MAX` on the Sudoku Explainer scale (e.g. 4.0-6.4)"},
			&cli.StringFlag{Name: "out", Usage: "write the puzzles, one per line, to `FILE` (- for stdout)", DefaultText: "stdout, and the report to stderr; with --json, the report lists them"},
		}, jobFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("sudoku generate takes no arguments, got %q", c.Args().First())
			}
			if !c.IsSet("count") {
				return usagef("sudoku generate: --count N is required (how many puzzles to make)")
			}
			p := sudoku.GenerateParams{
				Count: c.Int("count"), Seed: c.Uint64("seed"), Clues: c.Int("clues"),
				Symmetric: c.Bool("symmetric"), Minimal: c.Bool("minimal"),
			}
			if c.IsSet("rating") {
				band, err := rating.ParseBand(c.String("rating"))
				if err != nil {
					return usagef("--rating %v", err)
				}
				p.Rating = band
			}
			if err := p.Validate(); err != nil {
				return usagef("%v", err)
			}
			if err := outputPaths(c, nil, "out"); err != nil {
				return err
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			path := c.String("out")
			if path == "" && !c.Bool("json") {
				path = client.StdoutPath // the puzzles on stdout, the report on stderr
			}
			if path != "" {
				o.Outputs, p.Out = map[string]string{"out": path}, true
			}
			params, _ := json.Marshal(p)
			return client.Run(c.Context, o, tasks.Spec{Kind: sudoku.Generate{}.Name(), Params: params})
		},
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/queue"
	"github.com/woprlabs/wopr/pkg/tasks/sudokujobs"
)

func sudokuRateCommand() *cli.Command {
	return &cli.Command{
		Name:      "rate",
		Usage:     "rate whole corpora on the Sudoku Explainer scale with human techniques",
		ArgsUsage: "FILE...",
		Description: "Each puzzle is solved step by step with the easiest technique that makes progress, and rated by\n" +
			"its hardest step (Sudoku Explainer's ER: 1.2 hidden single ... 5.6 BUG). FILEs are read as by\n" +
			"`sudoku solve`. --out gets one line per puzzle in input order: \"<rating> <puzzle>\", \"? <puzzle>\"\n" +
			"for a puzzle that needs techniques not implemented (chains), or the outcome and the reason for a\n" +
			"puzzle not uniquely solved (also written to --rejects). The report has a histogram of ratings,\n" +
			"the puzzles that needed each technique, and the hardest puzzles with their lines.\n\n" +
			"Example:\n   analyze sudoku rate datasets/sudoku/top1465.txt.gz --out ratings.txt",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write one line per puzzle to `FILE`"},
			&cli.StringFlag{Name: "rejects", Usage: "write every puzzle not uniquely solved to `FILE`"},
			&cli.IntFlag{Name: "chunk", Usage: "`N` puzzles per task, 1 to 3,000", DefaultText: "by the inputs' size, 100 to 3,000"},
		}, jobFlags()...),
		Action: func(c *cli.Context) error {
			files := c.Args().Slice()
			if len(files) == 0 {
				return usagef("sudoku rate: name at least one puzzle file")
			}
			for _, f := range files {
				st, err := os.Stat(f)
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
			if n := c.Int("chunk"); c.IsSet("chunk") && (n < 1 || n > sudokujobs.MaxChunk) {
				return usagef("--chunk %d: want 1 to %d", n, sudokujobs.MaxChunk)
			}
			o, err := options(c)
			if err != nil {
				return err
			}
			o.Outputs = map[string]string{}
			p := sudokujobs.SolveParams{Chunk: c.Int("chunk")}
			if path := c.String("out"); path != "" {
				o.Outputs["out"], p.Out = path, true
			}
			if path := c.String("rejects"); path != "" {
				o.Outputs["rejects"], p.Rejects = path, true
			}
			in := readFiles(files)
			if in.err != nil {
				return in.err
			}
			err = client.RunWith(c.Context, o, func(ctx context.Context, b *queue.Broker) (job.Spec, error) {
				total := 0
				for i, f := range files {
					total += len(in.inputs[i].Data)
					name, err := b.Upload(ctx, in.inputs[i])
					if err != nil {
						return job.Spec{}, fmt.Errorf("%s: %w", f, err)
					}
					p.Inputs = append(p.Inputs, sudokujobs.Input{File: f, Object: name})
				}
				if p.Chunk == 0 {
					// Rating costs about a hundred times solving: small chunks.
					p.Chunk = min(sudokujobs.AutoChunk(total), 500)
				}
				params, err := json.Marshal(p)
				return job.Spec{Kind: sudokujobs.Rate{}.Name(), Params: params}, err
			})
			return errors.Join(in.damaged, err)
		},
	}
}

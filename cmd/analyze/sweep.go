package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/study"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/engine/mnk/ladder"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

func mnkSweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "where plain search stops: every rung of the search ladder on a grid of boards and k, with the frontier, the growth and a chart",
		Description: "Each (board, k, rung) is a task that solves the empty board, stopped at --node-budget nodes or after\n" +
			"--cell-time. The rungs add one idea each: minimax, alphabeta, ordered (moves by k-windows), tt\n" +
			"(a transposition table), symmetry (the table keyed by canonical position), solver (mnk solve's\n" +
			"solver). Node counts do not depend on the machine unless --cell-time stopped the cell, so the\n" +
			"report is the same whatever the workers, and a rerun is answered from the cache.\n" +
			"docs/where-search-stops.md is the default sweep's study.\n\n" +
			"Examples:\n" +
			"   analyze mnk sweep --chart sweep.svg                   # the default grid: 119 cells, minutes on 2 cores\n" +
			"   analyze mnk sweep --boards 3x3,3x4,4x4 --k 3,4 --algorithms minimax,alphabeta,tt --csv sweep.csv",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "boards", Value: strings.Join(mnktasks.DefaultSweepBoards, ","), Usage: "the boards `RxC,...`, up to 8x8 (a rung skips those it does not take: the solver takes 36 cells)"},
			&cli.StringFlag{Name: "k", Value: joinInts(mnktasks.DefaultSweepKs), Usage: "the lengths `K,...` of the line that wins (a k longer than a board's longer side skips that board)"},
			&cli.StringFlag{Name: "algorithms", Value: strings.Join(mnktasks.DefaultSweepAlgorithms(), ","), Usage: "the rungs `RUNG,...` of the ladder, of " + strings.Join(ladder.Rungs, ", ")},
			&cli.StringFlag{Name: "node-budget", Value: strconv.Itoa(mnktasks.DefaultSweepNodeBudget), Usage: "stop a cell after `N` nodes (e.g. 50000000, 5e7 or 50M)"},
			&cli.StringFlag{Name: "cell-time", Value: mnktasks.DefaultSweepCellTime.String(), Usage: "stop a cell after `D` (0: no limit); its count then depends on the machine"},
			&cli.IntFlag{Name: "tt-mb", Value: mnktasks.DefaultSweepTTMB, Usage: "the table of the tt, symmetry and solver rungs in `MB`, per cell"},
			&cli.StringFlag{Name: "csv", Usage: "write the rows to `FILE` as CSV"},
			&cli.StringFlag{Name: "chart", Usage: "draw nodes against cells to `FILE`, .svg or .png"},
			&cli.StringFlag{Name: "study", Hidden: true, Usage: "rewrite the generated blocks of the study `FILE` (docs/where-search-stops.md) and its chart beside it"},
		}, jobFlags()...),
		Action: func(c *cli.Context) error {
			p := mnktasks.SweepParams{Boards: splitList(c.String("boards")), Algorithms: splitList(c.String("algorithms")), TTMB: c.Int("tt-mb")}
			for _, s := range splitList(c.String("k")) {
				k, err := strconv.Atoi(s)
				if err != nil {
					return usagef("--k %q: want whole numbers such as 3,4,5", c.String("k"))
				}
				p.Ks = append(p.Ks, k)
			}
			budget, err := parseCount(c.String("node-budget"))
			if err != nil {
				return usagef("--node-budget %q: %v", c.String("node-budget"), err)
			}
			p.NodeBudget = budget
			d, err := time.ParseDuration(c.String("cell-time"))
			if c.String("cell-time") == "0" {
				d, err = 0, nil
			}
			if err != nil || d < 0 {
				return usagef("--cell-time %q: want a duration such as 90s or 5m (0: no limit)", c.String("cell-time"))
			}
			p.CellSeconds = d.Seconds()
			chart, page := c.String("chart"), c.String("study")
			if page != "" {
				if _, err := os.Stat(page); err != nil {
					return usagef("--study %s: %v", page, err)
				}
				if chart == "" {
					chart = strings.TrimSuffix(page, filepath.Ext(page)) + ".svg"
				}
			}
			format := ""
			if chart != "" {
				switch ext := strings.ToLower(filepath.Ext(chart)); ext {
				case ".svg", ".png":
					format = ext[1:]
				default:
					return usagef("--chart %s: want a file name ending in .svg or .png", chart)
				}
			}
			outputs := map[string]string{}
			if path := c.String("csv"); path != "" {
				p.CSV = true
				outputs["csv"] = path
			}
			if err := outputPaths(c, nil, "csv", "chart"); err != nil {
				return err
			}
			err = submit(c, p.Spec, func(o *client.Options) {
				if len(outputs) > 0 {
					o.Outputs = outputs
				}
				if chart != "" {
					// Drawn here, from the report: the daemons that run
					// the sweep do not link the drawing.
					o.Render = func(report []byte) error {
						if err := writeStudy(page, chart, format, report); err != nil {
							return err
						}
						wrote(c, chart, format+" chart of nodes against cells")
						if page != "" {
							wrote(c, page, "the study's generated blocks rewritten")
						}
						return nil
					}
				}
			})
			if path := outputs["csv"]; path != "" && (err == nil || errors.Is(err, client.ErrJobFailed)) {
				if data, rerr := os.ReadFile(path); rerr == nil {
					wrote(c, path, fmt.Sprintf("%d rows of CSV and a header", max(bytes.Count(data, []byte{'\n'})-1, 0)))
				}
			}
			return err
		},
	}
}

// writeStudy draws the chart of the sweep's JSON report to the file chart
// (format svg or png) and, if page is set, rewrites the generated blocks of
// that study page, whose chart it is.
func writeStudy(page, chart, format string, report []byte) error {
	var rep mnktasks.SweepReport
	if err := json.Unmarshal(report, &rep); err != nil {
		return fmt.Errorf("read the sweep's report: %w", err)
	}
	img, err := study.Chart(&rep, format)
	if err != nil {
		return fmt.Errorf("draw %s: %w", chart, err)
	}
	if err := os.WriteFile(chart, img, 0o644); err != nil {
		return err
	}
	if page == "" {
		return nil
	}
	text, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(page), chart)
	if err != nil {
		rel = chart
	}
	text, err = study.Fill(text, &rep, filepath.ToSlash(rel))
	if err != nil {
		return fmt.Errorf("%s: %w", page, err)
	}
	return os.WriteFile(page, text, 0o644)
}

// splitList splits a comma-separated flag, dropping spaces.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// parseCount reads a count of at least 1: digits (with _ between them), a
// number in e notation (2e8), or a number with k, M or G (200M).
func parseCount(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	mult := 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult = 1e3
		case 'M':
			mult = 1e6
		case 'G':
			mult = 1e9
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	if n, err := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), 10, 64); err == nil && mult == 1 {
		if n == 0 {
			return 0, fmt.Errorf("want 1 or more nodes")
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f*mult < 1 || f*mult > 1e19 || f*mult != math.Trunc(f*mult) {
		if err == nil && f*mult < 1 {
			return 0, fmt.Errorf("want 1 or more nodes")
		}
		return 0, fmt.Errorf("want a whole number of nodes such as 50000000, 5e7 or 50M")
	}
	return uint64(f * mult), nil
}

// wrote tells the user, on stderr, that the command wrote file (what it
// holds): "analyze: wrote sweep.csv (14 rows of CSV and a header)".
func wrote(c *cli.Context, file, what string) {
	fmt.Fprintf(c.App.ErrWriter, "analyze: wrote %s (%s)\n", file, what)
}

package study

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// The study page of a sweep (docs/where-search-stops.md) is prose written
// by hand around blocks that the sweep writes: each block is the text
// between "<!-- sweep:NAME -->" and "<!-- /sweep:NAME -->", and Fill
// replaces it with the block NAME of a report. The blocks:
//
//   - settings: the grid, the limits and the worker time.
//   - nodes: boards and k down, rungs across, the nodes of each cell.
//   - frontier: the largest board each rung solved, per k.
//   - growth: the fitted branching factor of each rung, per k, and the
//     next board's cost.
//   - chart: the chart image.
//   - rows: every row, as the report has them.

var studyBlock = regexp.MustCompile(`(?s)(<!-- sweep:([a-z]+) -->\n).*?(<!-- /sweep:([a-z]+) -->)`)

// Fill returns page with its blocks rewritten from rep; chart is the path
// of the chart image from the page.
func Fill(page []byte, rep *mnktasks.SweepReport, chart string) ([]byte, error) {
	blocks := map[string]func() string{
		"settings": func() string { return mdSettings(rep) },
		"nodes":    func() string { return mdNodes(rep) },
		"frontier": func() string { return mdFrontier(rep) },
		"growth":   func() string { return mdGrowth(rep) },
		"chart": func() string {
			return fmt.Sprintf("![Nodes against cells, a panel per k, a line per rung](%s)\n", chart)
		},
		"rows": func() string { return mdRows(rep) },
	}
	var err error
	n := 0
	out := studyBlock.ReplaceAllFunc(page, func(m []byte) []byte {
		sub := studyBlock.FindSubmatch(m)
		name, end := string(sub[2]), string(sub[4])
		f, ok := blocks[name]
		if name != end || !ok {
			if err == nil {
				err = fmt.Errorf("block %q closed by %q: want one of settings, nodes, frontier, growth, chart, rows", name, end)
			}
			return m
		}
		n++
		return append(append(append([]byte{}, sub[1]...), f()...), sub[3]...)
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("no <!-- sweep:NAME --> block to fill")
	}
	return out, err
}

func mdSettings(r *mnktasks.SweepReport) string {
	var seconds float64
	for _, row := range r.Rows {
		seconds += row.Seconds
	}
	limit := "no time limit"
	if r.CellSeconds > 0 {
		limit = fmt.Sprintf("%g s", r.CellSeconds)
	}
	return fmt.Sprintf("Boards %s; k %s; rungs %s. A cell stops at %s nodes or after %s; tables of at most %d MB. "+
		"The %d cells took %s of worker time.\n",
		strings.Join(r.Boards, ", "), joinInts(r.Ks), strings.Join(r.Algorithms, ", "), tasks.Thousands(r.NodeBudget), limit, r.TTMB,
		len(r.Rows), mnktasks.ApproxSeconds(seconds))
}

// mdNodes is the table of nodes: a line per board and k, a column per
// rung, and the value the rungs that finished found.
func mdNodes(r *mnktasks.SweepReport) string {
	var b strings.Builder
	b.WriteString("| board | k | value |")
	for _, a := range r.Algorithms {
		fmt.Fprintf(&b, " %s |", a)
	}
	b.WriteString("\n|---|---|---|")
	for range r.Algorithms {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i := 0; i < len(r.Rows); {
		j := i
		for j < len(r.Rows) && r.Rows[j].Board == r.Rows[i].Board && r.Rows[j].K == r.Rows[i].K {
			j++
		}
		group := r.Rows[i:j]
		value := ""
		for _, row := range group {
			if row.Stopped {
				continue
			}
			if value != "" && value != row.Value {
				value = "rungs disagree"
				break
			}
			value = row.Value
		}
		if value == "" {
			value = "?"
		}
		fmt.Fprintf(&b, "| %s | %d | %s |", group[0].Board, group[0].K, value)
		for _, a := range r.Algorithms {
			cell := ""
			for _, row := range group {
				if row.Algorithm != a {
					continue
				}
				cell = tasks.Thousands(row.Nodes)
				switch row.StoppedBy {
				case "budget":
					cell = "stopped"
				case "time":
					cell = "timed out at " + mnktasks.Approx(float64(row.Nodes))
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
		i = j
	}
	return b.String()
}

func mdFrontier(r *mnktasks.SweepReport) string {
	var b strings.Builder
	b.WriteString("| rung |")
	for _, k := range r.Ks {
		fmt.Fprintf(&b, " k = %d |", k)
	}
	b.WriteString("\n|---|")
	for range r.Ks {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, a := range r.Algorithms {
		fmt.Fprintf(&b, "| %s |", a)
		for _, k := range r.Ks {
			cell := ""
			for _, f := range r.Frontier {
				if f.Algorithm != a || f.K != k {
					continue
				}
				switch {
				case f.Stopped == "":
					cell = fmt.Sprintf("every board, to %s", f.Solved)
				case f.Solved == "":
					cell = "none; stopped on " + f.Stopped
				default:
					cell = fmt.Sprintf("%s; stopped on %s", f.Solved, f.Stopped)
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func mdGrowth(r *mnktasks.SweepReport) string {
	var b strings.Builder
	b.WriteString("| rung | k | factor per cell | boards fitted (cells) | R² | next board | its nodes, predicted | its time, predicted |\n")
	b.WriteString("|---|---|---:|---|---:|---|---:|---:|\n")
	for _, g := range r.Growth {
		next, nodes, secs := "none it takes", "", ""
		if g.Next != "" {
			next = fmt.Sprintf("%s (%d)", g.Next, g.NextCells)
			nodes = mnktasks.Approx(g.PredictedNodes)
			if g.Measured > 0 {
				nodes += fmt.Sprintf(" (stopped at %s)", mnktasks.Approx(float64(g.Measured)))
			}
			if g.PredictedSeconds > 0 {
				secs = mnktasks.ApproxSeconds(g.PredictedSeconds)
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f | %d (%d to %d) | %.3f | %s | %s | %s |\n", g.Algorithm, g.K, g.BranchingFactor, g.Points,
			g.FromCells, g.ToCells, g.R2, next, nodes, secs)
	}
	return b.String()
}

func mdRows(r *mnktasks.SweepReport) string {
	var b bytes.Buffer
	b.WriteString("| board | k | algorithm | value | nodes | seconds | nodes/s | table entries | stopped |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %.3f | %s | %s | %s |\n", row.Board, row.K, row.Algorithm, row.Value,
			tasks.Thousands(row.Nodes), row.Seconds, tasks.Thousands(uint64(row.NodesPerSecond)), tasks.Thousands(row.TableEntries), row.StoppedText())
	}
	return b.String()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

package mnk

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// SweepReport is the report of an "mnk.sweep" job.
type SweepReport struct {
	Boards      []string `json:"boards"`
	Ks          []int    `json:"ks"`
	Algorithms  []string `json:"algorithms"`
	NodeBudget  uint64   `json:"node_budget"`
	CellSeconds float64  `json:"cell_seconds"`
	TTMB        int      `json:"tt_mb"`
	// Rows are the cells that ran, by board (fewest cells first), k and
	// rung, whatever the order their results came in. A failed task has
	// no row (the runtime lists it).
	Rows []SweepRow `json:"rows"`
	// Skipped are the cells of the grid that do not exist (k longer than
	// the board) or that a rung does not take.
	Skipped  []SweepSkip `json:"skipped"`
	Frontier []Frontier  `json:"frontier"`
	Growth   []Growth    `json:"growth"`
}

// SweepRow is one cell: a rung solving the empty board of one game.
type SweepRow struct {
	Board     string `json:"board"` // "RxC"
	Rows      int    `json:"rows"`
	Cols      int    `json:"cols"`
	Cells     int    `json:"cells"`
	K         int    `json:"k"`
	Algorithm string `json:"algorithm"`
	// Value is "win", "draw" or "loss" for the first player, or
	// "unknown" when the cell was stopped.
	Value          string  `json:"value"`
	Nodes          uint64  `json:"nodes"`
	Seconds        float64 `json:"seconds"`
	NodesPerSecond float64 `json:"nodes_per_second"`
	TableEntries   uint64  `json:"table_entries"`
	Stopped        bool    `json:"stopped"`
	// StoppedBy is "budget" or "time" (then Nodes depends on the machine)
	// for a stopped cell, "" otherwise.
	StoppedBy string `json:"stopped_by,omitempty"`
}

// Frontier is how far one rung got at one k: the largest board it solved
// within the budget, and the smallest it did not.
type Frontier struct {
	Algorithm string `json:"algorithm"`
	K         int    `json:"k"`
	// Solved is the largest board solved ("" if none), with its cells and
	// nodes.
	Solved      string `json:"solved"`
	SolvedCells int    `json:"solved_cells"`
	Nodes       uint64 `json:"nodes"`
	// Stopped is the smallest board the rung did not finish ("" if it
	// finished every board).
	Stopped string `json:"stopped"`
}

// Growth is how one rung's nodes grow with the board at one k: the least
// squares fit of ln(nodes) against cells over the boards it finished,
// nodes ~ Nodes0 * BranchingFactor^cells, and what the fit says the next
// board would cost.
type Growth struct {
	Algorithm string `json:"algorithm"`
	K         int    `json:"k"`
	Points    int    `json:"points"` // finished boards fitted (at least 2)
	FromCells int    `json:"from_cells"`
	ToCells   int    `json:"to_cells"`
	// BranchingFactor is the effective branching factor: the factor by
	// which the nodes grow per added cell.
	BranchingFactor float64 `json:"branching_factor"`
	Nodes0          float64 `json:"nodes0"` // the fit's nodes at 0 cells
	R2              float64 `json:"r2"`     // the fit's coefficient of determination
	// Next is the smallest board past the largest one fitted (the sweep's
	// next board, or one more row or column), with the fit's nodes and,
	// at the rate of the largest board fitted, seconds. Empty when there
	// is none the rung takes.
	Next             string  `json:"next,omitempty"`
	NextCells        int     `json:"next_cells,omitempty"`
	PredictedNodes   float64 `json:"predicted_nodes,omitempty"`
	PredictedSeconds float64 `json:"predicted_seconds,omitempty"`
	// Measured is what the sweep found on Next, if it ran it: the nodes
	// reached before it stopped (a lower bound of the cost).
	Measured uint64 `json:"measured,omitempty"`
}

// Report implements tasks.Plan. The rows follow the plan's order, so the
// report does not depend on the order of the merges.
func (sp *sweepPlan) Report(ctx context.Context, sum tasks.Summary) (tasks.Report, error) {
	gr := sp.grid
	rep := &SweepReport{Ks: gr.p.Ks, Algorithms: gr.p.Algorithms, NodeBudget: gr.p.NodeBudget,
		CellSeconds: gr.p.CellSeconds, TTMB: gr.p.TTMB, Rows: []SweepRow{}, Skipped: gr.skipped}
	if rep.Skipped == nil {
		rep.Skipped = []SweepSkip{}
	}
	for _, b := range gr.boards {
		rep.Boards = append(rep.Boards, b.String())
	}
	for i, t := range sp.tasks {
		data, ok := sp.Result(t.ID)
		if !ok {
			continue // failed: the runtime reports it
		}
		var r sweepResult
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("result of task %s: %w", t.ID, err)
		}
		c := gr.cells[i]
		row := SweepRow{Board: c.Board.String(), Rows: c.Board.Rows, Cols: c.Board.Cols, Cells: c.Board.Cells(), K: c.K,
			Algorithm: c.Rung, Value: "unknown", Nodes: r.Nodes, Seconds: r.Seconds, TableEntries: r.TableEntries, Stopped: r.Stopped}
		if r.Seconds > 0 {
			row.NodesPerSecond = float64(r.Nodes) / r.Seconds
		}
		switch {
		case !r.Stopped:
			row.Value = valueWord(r.Value)
		case r.ByTime:
			row.StoppedBy = "time"
		default:
			row.StoppedBy = "budget"
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Frontier, rep.Growth = frontier(rep.Rows, gr), growth(rep.Rows, gr)
	if gr.p.CSV {
		data, err := rep.CSV()
		if err != nil {
			return nil, err
		}
		if err := sum.PutOutput(ctx, "csv", data); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// frontier finds, per rung and k, the largest board solved and the
// smallest not.
func frontier(rows []SweepRow, gr *sweepGrid) []Frontier {
	out := []Frontier{}
	for _, rung := range gr.p.Algorithms {
		for _, k := range gr.p.Ks {
			f := Frontier{Algorithm: rung, K: k}
			seen := false
			for _, r := range rows {
				if r.Algorithm != rung || r.K != k {
					continue
				}
				seen = true
				if !r.Stopped && r.Cells >= f.SolvedCells {
					f.Solved, f.SolvedCells, f.Nodes = r.Board, r.Cells, r.Nodes
				}
				if r.Stopped && f.Stopped == "" {
					f.Stopped = r.Board
				}
			}
			if seen {
				out = append(out, f)
			}
		}
	}
	return out
}

// growth fits, per rung and k, ln(nodes) = a + b cells by least squares
// over the finished boards, and predicts the next board.
func growth(rows []SweepRow, gr *sweepGrid) []Growth {
	out := []Growth{}
	for _, rung := range gr.p.Algorithms {
		for _, k := range gr.p.Ks {
			var xs, ys []float64
			var last SweepRow
			for _, r := range rows {
				if r.Algorithm == rung && r.K == k && !r.Stopped && r.Nodes > 0 {
					xs = append(xs, float64(r.Cells))
					ys = append(ys, math.Log(float64(r.Nodes)))
					last = r
				}
			}
			if len(xs) < 2 || xs[0] == xs[len(xs)-1] {
				continue
			}
			a, b, r2 := leastSquares(xs, ys)
			g := Growth{Algorithm: rung, K: k, Points: len(xs), FromCells: int(xs[0]), ToCells: int(xs[len(xs)-1]),
				BranchingFactor: math.Exp(b), Nodes0: math.Exp(a), R2: r2}
			if next, ok := nextBoard(gr, SweepBoard{last.Rows, last.Cols}, k, rung); ok {
				g.Next, g.NextCells = next.String(), next.Cells()
				g.PredictedNodes = math.Exp(a + b*float64(next.Cells()))
				if last.NodesPerSecond > 0 {
					g.PredictedSeconds = g.PredictedNodes / last.NodesPerSecond
				}
				for _, r := range rows {
					if r.Algorithm == rung && r.K == k && r.Board == g.Next && r.Stopped {
						g.Measured = r.Nodes
					}
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// leastSquares fits y = a + b x and returns a, b and R².
func leastSquares(xs, ys []float64) (a, b, r2 float64) {
	n := float64(len(xs))
	var sx, sy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	b = sxy / sxx
	a = my - b*mx
	r2 = 1
	if syy > 0 {
		r2 = sxy * sxy / (sxx * syy)
	}
	return a, b, r2
}

// nextBoard is the board after last for rung at k: the sweep's next board
// with more cells that has k in a row and that the rung takes, or else one
// more row or column than last (the shorter side grows).
func nextBoard(gr *sweepGrid, last SweepBoard, k int, rung string) (SweepBoard, bool) {
	takes := func(b SweepBoard) bool {
		g, err := mnk.New(b.Rows, b.Cols, k)
		if err != nil {
			return false
		}
		ok, _ := rungTakes(g, rung)
		return ok
	}
	for _, b := range gr.boards {
		if b.Cells() > last.Cells() && takes(b) {
			return b, true
		}
	}
	next := SweepBoard{last.Rows, last.Cols + 1}
	if last.Rows < last.Cols {
		next = SweepBoard{last.Rows + 1, last.Cols}
	}
	if next.Rows > mnk.MaxSide || next.Cols > mnk.MaxSide || !takes(next) {
		return SweepBoard{}, false
	}
	return next, true
}

// Text implements tasks.Report.
func (r *SweepReport) Text() string {
	var b strings.Builder
	limit := "no time limit"
	if r.CellSeconds > 0 {
		limit = "at most " + time.Duration(r.CellSeconds*float64(time.Second)).String()
	}
	fmt.Fprintf(&b, "m,n,k ladder sweep: %s, k %s, %s; a cell stops at %s nodes or %s; tables of %d MB\n",
		tasks.Count(len(r.Boards), "board"), joinInts(r.Ks), strings.Join(r.Algorithms, ", "), tasks.Thousands(r.NodeBudget), limit, r.TTMB)
	fmt.Fprintf(&b, "  %-5s %2s  %-9s  %-7s  %15s  %9s  %13s  %13s  %s\n", "board", "k", "algorithm", "value", "nodes", "seconds", "nodes/s", "table entries", "stopped")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "  %-5s %2d  %-9s  %-7s  %15s  %9.3f  %13s  %13s  %s\n", row.Board, row.K, row.Algorithm, row.Value,
			tasks.Thousands(row.Nodes), row.Seconds, tasks.Thousands(uint64(row.NodesPerSecond)), tasks.Thousands(row.TableEntries), row.StoppedText())
	}
	if len(r.Frontier) > 0 {
		b.WriteString("frontier: the largest board each rung solved within the budget, per k\n")
		for _, f := range r.Frontier {
			solved := "none"
			if f.Solved != "" {
				solved = fmt.Sprintf("%s (%d cells, %s nodes)", f.Solved, f.SolvedCells, tasks.Thousands(f.Nodes))
			}
			if f.Stopped != "" {
				solved += "; stopped on " + f.Stopped
			}
			tasks.Row(&b, fmt.Sprintf("%s, k=%d", f.Algorithm, f.K), "%s", solved)
		}
	}
	if len(r.Growth) > 0 {
		b.WriteString("growth: nodes ~ c * f^cells, least squares over the boards solved\n")
		for _, g := range r.Growth {
			line := fmt.Sprintf("f = %.2f per cell (%d boards, %d to %d cells, R² %.3f)", g.BranchingFactor, g.Points, g.FromCells, g.ToCells, g.R2)
			if g.Next != "" {
				line += fmt.Sprintf("; %s would take %s nodes", g.Next, Approx(g.PredictedNodes))
				if g.PredictedSeconds > 0 {
					line += ", " + ApproxSeconds(g.PredictedSeconds)
				}
				if g.Measured > 0 {
					line += fmt.Sprintf(" (stopped there at %s)", tasks.Thousands(g.Measured))
				}
			}
			tasks.Row(&b, fmt.Sprintf("%s, k=%d", g.Algorithm, g.K), "%s", line)
		}
	}
	if len(r.Skipped) > 0 {
		b.WriteString("skipped\n")
		for _, s := range r.Skipped {
			what := s.Board + ", k=" + strconv.Itoa(s.K)
			if s.Algorithm != "" {
				what += ", " + s.Algorithm
			}
			tasks.Row(&b, what, "%s", s.Reason)
		}
	}
	return b.String()
}

// StoppedText is what the tables say of a cell: "no", or what stopped it.
func (row SweepRow) StoppedText() string {
	if !row.Stopped {
		return "no"
	}
	return row.StoppedBy
}

// Approx writes a large number to two significant figures: 3.4e9 as
// "3.4 billion".
func Approx(x float64) string {
	for _, u := range []struct {
		v    float64
		name string
	}{{1e18, "quintillion"}, {1e15, "quadrillion"}, {1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}} {
		if x >= u.v {
			if x >= 1000*u.v {
				return fmt.Sprintf("%.1e", x)
			}
			return sig2(x/u.v) + " " + u.name
		}
	}
	return tasks.Thousands(uint64(math.Round(x)))
}

// ApproxSeconds writes a duration in seconds to two significant figures,
// in the largest unit that keeps it above 1: "40 s", "3.2 hours",
// "5.1e4 years".
func ApproxSeconds(s float64) string {
	for _, u := range []struct {
		v    float64
		name string
	}{{365.25 * 86400, "years"}, {86400, "days"}, {3600, "hours"}, {60, "minutes"}} {
		if s >= u.v {
			if x := s / u.v; x >= 1000 {
				return fmt.Sprintf("%.1e %s", x, u.name)
			}
			return sig2(s/u.v) + " " + u.name
		}
	}
	return sig2(s) + " s"
}

// sig2 writes x to two significant figures, without an exponent: 160,
// 16, 1.6, 0.016.
func sig2(x float64) string {
	if x == 0 {
		return "0"
	}
	e := math.Floor(math.Log10(math.Abs(x))) - 1
	return strconv.FormatFloat(math.Round(x/math.Pow(10, e))*math.Pow(10, e), 'f', max(0, int(-e)), 64)
}

// sweepCSVHeader names the columns of the CSV rows.
var sweepCSVHeader = []string{"board", "rows", "cols", "cells", "k", "algorithm", "value", "nodes", "seconds", "nodes_per_second",
	"table_entries", "stopped", "stopped_by"}

// CSV writes the rows as CSV with a header line; numbers are written
// exactly, so that reading them back gives the same rows.
func (r *SweepReport) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(sweepCSVHeader)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, row := range r.Rows {
		_ = w.Write([]string{row.Board, strconv.Itoa(row.Rows), strconv.Itoa(row.Cols), strconv.Itoa(row.Cells), strconv.Itoa(row.K),
			row.Algorithm, row.Value, strconv.FormatUint(row.Nodes, 10), f(row.Seconds), f(row.NodesPerSecond),
			strconv.FormatUint(row.TableEntries, 10), strconv.FormatBool(row.Stopped), row.StoppedBy})
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

package mnk

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// runSweep plans a sweep and runs it in this process.
func runSweep(t *testing.T, p SweepParams, sum tasks.Summary) *SweepReport {
	t.Helper()
	plan, err := Sweep{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return taskstest.RunPlan(t, Sweep{}, plan, tasks.Env{}, sum).(*SweepReport)
}

// sweepKnown are the values of small games for the first player.
var sweepKnown = map[string]string{
	"3x3 k3": "draw", "3x4 k3": "win", "3x4 k4": "draw", "4x4 k3": "win", "4x4 k4": "draw",
}

// Every rung that finishes gives the known value; on tic-tac-toe every
// rung finishes, minimax after the 549,946 nodes of the game tree; the
// rungs with a table finish 4x4 k=4. Rows come in the order of the
// boards, k and the ladder, and 3x3 has no k=4.
func TestSweepKnownValues(t *testing.T) {
	race.SkipSerial(t)
	rep := runSweep(t, SweepParams{Boards: []string{"4x4", "3x4", "3x3"}, Ks: []int{4, 3}, NodeBudget: 1_000_000}, tasks.Summary{})
	algs := DefaultSweepAlgorithms()
	if want := []string{"minimax", "alphabeta", "ordered", "tt", "symmetry", "solver", "pns", "zones", "matching"}; !reflect.DeepEqual(algs, want) {
		t.Fatalf("default rungs %v, want %v", algs, want)
	}
	var order []string
	for _, r := range rep.Rows {
		cell := r.Board + " k" + strconv.Itoa(r.K)
		order = append(order, cell+" "+r.Algorithm)
		want, ok := sweepKnown[cell]
		if !ok {
			t.Errorf("row %s %s: no such cell was asked for", cell, r.Algorithm)
			continue
		}
		mustFinish := cell == "3x3 k3" || cell == "4x4 k4" && slices.Contains([]string{"tt", "symmetry", "solver", "pns", "zones", "matching"}, r.Algorithm) ||
			cell != "4x4 k4" && r.Algorithm != "minimax"
		switch {
		case r.Stopped && mustFinish:
			t.Errorf("%s %s: stopped after %d nodes, want it solved within the budget", cell, r.Algorithm, r.Nodes)
		case r.Stopped && (r.Value != "unknown" || r.StoppedBy != "budget" || r.Nodes < rep.NodeBudget):
			t.Errorf("%s %s: stopped with value %s, by %q, after %d nodes; want unknown, by the budget of %d", cell, r.Algorithm, r.Value, r.StoppedBy, r.Nodes, rep.NodeBudget)
		case !r.Stopped && r.Value != want:
			t.Errorf("%s %s: %s, want %s", cell, r.Algorithm, r.Value, want)
		}
	}
	var want []string
	for _, cell := range []string{"3x3 k3", "3x4 k3", "3x4 k4", "4x4 k3", "4x4 k4"} {
		for _, a := range algs {
			want = append(want, cell+" "+a)
		}
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("rows\n%v\nwant\n%v", order, want)
	}
	if r := rep.Rows[0]; r.Algorithm != "minimax" || r.Nodes != 549_946 {
		t.Errorf("3x3 minimax: %d nodes, want 549,946", r.Nodes)
	}
	if want := []SweepSkip{{Board: "3x3", K: 4, Reason: "k 4 > 3, the longer side"}}; !reflect.DeepEqual(rep.Skipped, want) {
		t.Errorf("skipped %+v, want %+v", rep.Skipped, want)
	}
	for _, f := range rep.Frontier {
		if f.Algorithm == "solver" && (f.Solved != "4x4" || f.Stopped != "") {
			t.Errorf("solver frontier at k=%d: %+v, want 4x4 solved and nothing stopped", f.K, f)
		}
	}
}

// The report does not depend on the order in which results are merged.
func TestSweepAnyMergeOrder(t *testing.T) {
	p := SweepParams{Boards: []string{"3x3", "3x4"}, Ks: []int{3}, NodeBudget: 200_000}
	plan, err := Sweep{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	outs := taskstest.Results(t, Sweep{}, plan, tasks.Env{})
	var reports []tasks.Report
	for _, reverse := range []bool{false, true} {
		plan, _ := Sweep{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
		ids := make([]string, 0, len(outs))
		for _, task := range plan.Tasks() {
			ids = append(ids, task.ID)
		}
		if reverse {
			slices.Reverse(ids)
		}
		for _, id := range ids {
			if err := plan.Merge(id, outs[id]); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := plan.Report(context.Background(), tasks.Summary{Tasks: len(ids)})
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, rep)
	}
	if !reflect.DeepEqual(reports[0], reports[1]) {
		t.Errorf("merged in reverse:\n%+v\nin order:\n%+v", reports[1], reports[0])
	}
}

// A cell stops at its time limit (a result, stopped by "time"); a cell
// whose job is cancelled has no result.
func TestSweepCellTimeAndCancel(t *testing.T) {
	payload, _ := json.Marshal(sweepTask{Rows: 6, Cols: 6, K: 5, Rung: "minimax", NodeBudget: 1 << 60, CellSeconds: 0.05, TTMB: 1})
	out, err := Sweep{}.NewRunner(tasks.Env{}).Run(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	var r sweepResult
	if err := json.Unmarshal(out.Data, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Stopped || !r.ByTime || r.Nodes == 0 || r.Seconds < 0.05 {
		t.Errorf("6x6 minimax for 50 ms: %+v, want stopped by time after some nodes", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Sweep{}).NewRunner(tasks.Env{}).Run(ctx, payload); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// Bad parameters name the flag at fault.
func TestSweepInvalid(t *testing.T) {
	ok := SweepParams{Boards: []string{"3x3"}, Ks: []int{3}, Algorithms: []string{"minimax"}, NodeBudget: 10}
	for _, c := range []struct {
		change func(*SweepParams)
		want   string
	}{
		{func(p *SweepParams) { p.Algorithms = []string{"quantum"} }, "--algorithms quantum: no such rung"},
		{func(p *SweepParams) { p.Algorithms = []string{"tt", "tt"} }, "--algorithms: tt twice"},
		{func(p *SweepParams) { p.NodeBudget = 0 }, "--node-budget 0"},
		{func(p *SweepParams) { p.Boards = []string{"9x9"} }, "--boards 9x9: rows and columns must be 1 to 8"},
		{func(p *SweepParams) { p.Boards = []string{"3by3"} }, `--boards "3by3": want RxC`},
		{func(p *SweepParams) { p.Boards = []string{"7x7"}; p.Algorithms = []string{"solver"} }, "--boards 7x7: 49 cells, too large for every rung"},
		{func(p *SweepParams) { p.Ks = []int{0} }, "--k 0: want 1 to 8"},
		{func(p *SweepParams) { p.Ks = []int{4, 5} }, "--k 4,5: every k is longer"},
		{func(p *SweepParams) { p.Ks = []int{3, 3} }, "--k: 3 twice"},
		{func(p *SweepParams) { p.CellSeconds = -1 }, "--cell-time"},
		{func(p *SweepParams) { p.TTMB = -1 }, "--tt-mb -1"},
	} {
		p := ok
		c.change(&p)
		_, err := Sweep{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
		if err == nil || !errors.Is(err, tasks.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an invalid-parameters error with %q", p, err, c.want)
		}
	}
	// A board the solver does not take is skipped for it alone.
	rep := runSweep(t, SweepParams{Boards: []string{"7x6"}, Ks: []int{3}, Algorithms: []string{"ordered", "solver"}, NodeBudget: 1000}, tasks.Summary{})
	if len(rep.Rows) != 1 || rep.Rows[0].Algorithm != "ordered" || len(rep.Skipped) != 1 || rep.Skipped[0].Algorithm != "solver" {
		t.Errorf("7x6 with ordered and solver: rows %+v, skipped %+v; want ordered run and solver skipped", rep.Rows, rep.Skipped)
	}
}

// The fit finds the factor of nodes that grow exactly geometrically, and
// predicts the next board of the sweep, or past the sweep one more row or
// column.
func TestSweepGrowth(t *testing.T) {
	gr, err := SweepParams{Boards: []string{"3x3", "3x4", "4x4", "4x5"}, Ks: []int{3}, Algorithms: []string{"tt", "solver"}, NodeBudget: 1e9}.grid()
	if err != nil {
		t.Fatal(err)
	}
	var rows []SweepRow
	for _, b := range gr.boards {
		n := 10 * math.Pow(3, float64(b.Cells()))
		rows = append(rows, SweepRow{Board: b.String(), Rows: b.Rows, Cols: b.Cols, Cells: b.Cells(), K: 3, Algorithm: "tt", Nodes: uint64(n),
			Stopped: b.Cells() == 20, NodesPerSecond: 1e6})
		rows = append(rows, SweepRow{Board: b.String(), Rows: b.Rows, Cols: b.Cols, Cells: b.Cells(), K: 3, Algorithm: "solver", Nodes: uint64(b.Cells()),
			NodesPerSecond: 1})
	}
	g := growth(rows, gr)
	if len(g) != 2 {
		t.Fatalf("growth %+v, want a fit for tt and one for solver", g)
	}
	tt := g[0]
	if math.Abs(tt.BranchingFactor-3) > 1e-9 || math.Abs(tt.R2-1) > 1e-9 || tt.Points != 3 || tt.Next != "4x5" ||
		math.Abs(tt.PredictedNodes/(10*math.Pow(3, 20))-1) > 1e-9 || tt.Measured != uint64(10*math.Pow(3, 20)) {
		t.Errorf("tt: %+v, want factor 3, R² 1, 3 points, next 4x5 at 10*3^20 nodes, stopped there", tt)
	}
	if s := g[1]; s.Next != "5x5" || s.Points != 4 {
		t.Errorf("solver: next %q over %d points, want 5x5 (one more row than 4x5) over 4", s.Next, s.Points)
	}
	f := frontier(rows, gr)
	if f[0].Solved != "4x4" || f[0].Stopped != "4x5" || f[1].Solved != "4x5" || f[1].Stopped != "" {
		t.Errorf("frontier %+v, want tt 4x4 (stopped on 4x5), solver 4x5", f)
	}
	for x, want := range map[float64]string{160: "160", 15.6: "16", 1.55: "1.6", 0.0163: "0.016", 99.7: "100"} {
		if got := sig2(x); got != want {
			t.Errorf("sig2(%g) = %s, want %s", x, got, want)
		}
	}
}

// The CSV output reads back as the rows. (The chart is drawn from the
// report by internal/study.)
func TestSweepOutputs(t *testing.T) {
	outs := &taskstest.Outputs{}
	rep := runSweep(t, SweepParams{Boards: []string{"3x3", "3x4", "4x4"}, Ks: []int{3, 4}, NodeBudget: 100_000, CSV: true},
		tasks.Summary{Outputs: outs})
	data, ok := outs.Get("csv")
	if !ok {
		t.Fatalf("no csv")
	}
	got, err := readSweepCSV(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rep.Rows) {
		t.Errorf("csv read back:\n%+v\nwant\n%+v", got, rep.Rows)
	}
	if _, ok := outs.Get("chart"); ok {
		t.Error("the job wrote a chart: the kind draws none")
	}
}

// readSweepCSV reads the rows that SweepReport.CSV wrote.
func readSweepCSV(data []byte) ([]SweepRow, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || !reflect.DeepEqual(recs[0], sweepCSVHeader) {
		return nil, errors.New("no header")
	}
	rows := []SweepRow{}
	for _, rec := range recs[1:] {
		var r SweepRow
		var errs [9]error
		r.Board, r.Algorithm, r.Value, r.StoppedBy = rec[0], rec[5], rec[6], rec[12]
		r.Rows, errs[0] = strconv.Atoi(rec[1])
		r.Cols, errs[1] = strconv.Atoi(rec[2])
		r.Cells, errs[2] = strconv.Atoi(rec[3])
		r.K, errs[3] = strconv.Atoi(rec[4])
		r.Nodes, errs[4] = strconv.ParseUint(rec[7], 10, 64)
		r.Seconds, errs[5] = strconv.ParseFloat(rec[8], 64)
		r.NodesPerSecond, errs[6] = strconv.ParseFloat(rec[9], 64)
		r.TableEntries, errs[7] = strconv.ParseUint(rec[10], 10, 64)
		r.Stopped, errs[8] = strconv.ParseBool(rec[11])
		if err := errors.Join(errs[:]...); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

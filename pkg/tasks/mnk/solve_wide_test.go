package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk/wide"
	widepns "github.com/woprlabs/wopr/pkg/engine/mnk/wide/pns"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// withWideFrom runs boards with a side past side through the wide path
// until the test ends.
func withWideFrom(t *testing.T, side int) {
	old := wideFrom
	wideFrom = side
	t.Cleanup(func() { wideFrom = old })
}

// On boards the 8x8 path takes, the wide path (forced) agrees with it: the
// same value and best moves; each first move's answer is its value from
// the 8x8 job with --root-moves ("X wins" exactly where it wins), and the
// 8x8 job of questions's, the root's answer the game's. (The nodes differ
// where X wins: the 8x8 task then follows its proof for the line, which
// fills the shared table with more; package wide/pns compares the nodes
// of the two solvers.)
func TestSolveWideAgrees(t *testing.T) {
	race.SkipSerial(t)
	for _, b := range [][3]int{{4, 4, 3}, {4, 4, 4}, {5, 4, 4}, {5, 5, 4}, {6, 5, 4}, {6, 6, 5}} {
		name := fmt.Sprintf("%d,%d,%d", b[0], b[1], b[2])
		values, _ := runSolve(t, SolveParams{Rows: b[0], Cols: b[1], K: b[2], SplitDepth: 1, RootMoves: true, Method: MethodPNS, TTMB: 4}, tasks.Env{})
		narrow, _ := runSolve(t, SolveParams{Rows: b[0], Cols: b[1], K: b[2], SplitDepth: 1, Method: MethodPNS, TTMB: 4}, tasks.Env{})
		withWideFrom(t, 3)
		wide, ntasks := runSolve(t, SolveParams{Rows: b[0], Cols: b[1], K: b[2], SplitDepth: -1, Method: MethodPNS, TTMB: 4}, tasks.Env{})
		wideFrom = 8
		if wide.Value != values.Value || wide.Value != narrow.Value {
			t.Fatalf("%s: wide %s, 8x8 path %s (values) and %s (questions)", name, wide.Value, values.Value, narrow.Value)
		}
		if wide.Value == "win" && fmt.Sprint(wide.BestMoves) != fmt.Sprint(values.BestMoves) {
			t.Errorf("%s: best moves %v, want %v", name, wide.BestMoves, values.BestMoves)
		}
		if len(wide.TaskDetails) != ntasks || ntasks != len(narrow.TaskDetails) {
			t.Fatalf("%s: %d task details for %d tasks, the 8x8 job %d", name, len(wide.TaskDetails), ntasks, len(narrow.TaskDetails))
		}
		cells := 0
		for i, d := range wide.TaskDetails {
			n := narrow.TaskDetails[i]
			if d.Task != n.Task || d.Position != n.Position || d.Value != n.Value {
				t.Errorf("%s: task %+v, the 8x8 job's %+v", name, d, n)
			}
			for _, c := range d.FirstMoves {
				cells++
				mv := values.MoveValues[fmt.Sprintf("%d,%d", c[0], c[1])]
				if (d.Value == "X wins") != (mv == "win") {
					t.Errorf("%s: after %v %s, its value %s", name, c, d.Value, mv)
				}
			}
			if d.Task == rootQuestion && (d.Value == "O wins") != (values.Value == "loss") {
				t.Errorf("%s: the root %s, the value %s", name, d.Value, values.Value)
			}
		}
		if cells != b[0]*b[1] {
			t.Errorf("%s: the tasks stand for %d first moves, want %d", name, cells, b[0]*b[1])
		}
	}
}

// Boards past 8x8: values that a pairing or a quick win decide, with
// every first move accounted for.
func TestSolveWideBoards(t *testing.T) {
	for _, tc := range []struct {
		rows, cols, k int
		value         string
		best          int // best first moves listed
	}{
		{9, 9, 3, "win", 81},
		{11, 9, 3, "win", 99},
		{9, 9, 9, "draw", 1},
		{10, 10, 10, "draw", 1},
		{11, 8, 8, "draw", 1},
	} {
		name := fmt.Sprintf("%d,%d,%d", tc.rows, tc.cols, tc.k)
		rep, ntasks := runSolve(t, SolveParams{Rows: tc.rows, Cols: tc.cols, K: tc.k, SplitDepth: -1, Method: MethodAuto, TTMB: 16}, tasks.Env{})
		if rep.Value != tc.value || len(rep.BestMoves) != tc.best || !rep.Questions || rep.SplitDepth != 1 {
			t.Errorf("%s: %s, best moves %v; want %s and %d", name, rep.Value, rep.BestMoves, tc.value, tc.best)
		}
		cells := 0
		for _, d := range rep.TaskDetails {
			cells += len(d.FirstMoves)
		}
		if cells != tc.rows*tc.cols || len(rep.TaskDetails) != ntasks {
			t.Errorf("%s: %d tasks stand for %d first moves", name, ntasks, cells)
		}
		if text := rep.Text(); !strings.Contains(text, "tasks  ") || !strings.Contains(text, "after 0,0 (and ") {
			t.Errorf("%s: the report does not list the tasks:\n%s", name, text)
		}
	}
}

// With a node bound, a task that reaches it says how far it got, the value
// stays unknown, and the progress line counts the undecided tasks. 9,9,5
// is open: no task decides it in 2,000 nodes.
func TestSolveWideNodeBound(t *testing.T) {
	race.SkipSerial(t)
	p := SolveParams{Rows: 9, Cols: 9, K: 5, SplitDepth: -1, Method: MethodPNS, TTMB: 16, Nodes: 2000}
	plan, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	rep := taskstest.RunPlan(t, Solve{}, plan, tasks.Env{}, tasks.Summary{}).(*SolveReport)
	if n := len(plan.Tasks()); n != 16 {
		t.Fatalf("9,9,5: %d tasks, want 15 first moves up to symmetry and the root", n)
	}
	if rep.Value != "unknown" || rep.NodeBound != 2000 || len(rep.BestMoves) != 0 {
		t.Errorf("value %s, node bound %d, best moves %v", rep.Value, rep.NodeBound, rep.BestMoves)
	}
	for _, d := range rep.TaskDetails {
		if !d.Undecided || d.Nodes != 2000 || d.Proof == 0 || d.Disproof == 0 || !strings.HasPrefix(d.Value, "undecided after 2,000 nodes (proof ") {
			t.Errorf("task %s: %+v", d.Task, d)
		}
	}
	if got, want := plan.(tasks.Progresses).Progress(), "first moves (up to symmetry): 0 of 15 refuted, 0 won, 15 tasks undecided at the node bound"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	if text := rep.Text(); !strings.Contains(text, "node bound                 2,000 a task") || !strings.Contains(text, "principal variation        not computed: the value is not known") {
		t.Errorf("report:\n%s", text)
	}
}

// The 8x8 path takes a node bound too, in a job of questions only.
func TestSolveNodeBound(t *testing.T) {
	rep, _ := runSolve(t, SolveParams{Rows: 7, Cols: 7, K: 5, SplitDepth: 1, Method: MethodPNS, TTMB: 16, Nodes: 100}, tasks.Env{})
	undecided := 0
	for _, d := range rep.TaskDetails {
		if d.Undecided {
			undecided++
			if d.Nodes != 100 {
				t.Errorf("task %s: %d nodes, want the bound", d.Task, d.Nodes)
			}
		}
	}
	if rep.Value != "unknown" || undecided == 0 {
		t.Errorf("7,7,5 in 100 nodes a task: %s, %d undecided", rep.Value, undecided)
	}
	for _, p := range []SolveParams{
		{Rows: 7, Cols: 7, K: 5, SplitDepth: 0, Method: MethodPNS, TTMB: 16, Nodes: 100},
		{Rows: 7, Cols: 7, K: 5, SplitDepth: 1, RootMoves: true, Method: MethodPNS, TTMB: 16, Nodes: 100},
		{Rows: 4, Cols: 4, K: 4, SplitDepth: 1, Method: MethodAlphaBeta, TTMB: 16, Nodes: 100},
	} {
		if _, err := p.Spec(); !errors.Is(err, tasks.ErrInvalid) || !strings.Contains(err.Error(), "--nodes") {
			t.Errorf("%+v: %v, want --nodes refused", p, err)
		}
	}
}

// What the wide path does not take is refused, naming the flag.
func TestSolveWideRefused(t *testing.T) {
	for _, tc := range []struct {
		p    SolveParams
		want string
	}{
		{SolveParams{Rows: 12, Cols: 12, K: 5, SplitDepth: -1, Method: MethodAuto, TTMB: 16}, "board 12x12: rows and columns must be 1 to 11"},
		{SolveParams{Rows: 12, Cols: 11, K: 5, SplitDepth: -1, Method: MethodAuto, TTMB: 16}, "board 12x11"},
		{SolveParams{Rows: 9, Cols: 9, K: 10, SplitDepth: -1, Method: MethodAuto, TTMB: 16}, "k 10 is out of range"},
		{SolveParams{Rows: 9, Cols: 9, K: 5, SplitDepth: -1, Method: MethodAlphaBeta, TTMB: 16}, "--method alphabeta takes boards of up to 8x8"},
		{SolveParams{Rows: 9, Cols: 9, K: 5, SplitDepth: -1, Method: MethodPNS, TTMB: 16, Certificate: true, CertificatePositions: 10}, "--certificate takes boards of up to 8x8"},
		{SolveParams{Rows: 9, Cols: 9, K: 5, SplitDepth: -1, Method: MethodPNS, TTMB: 16, RootMoves: true}, "--root-moves"},
		{SolveParams{Rows: 9, Cols: 9, K: 5, SplitDepth: 2, Method: MethodPNS, TTMB: 16}, "--split-depth 2"},
		{SolveParams{Rows: 9, Cols: 9, K: 5, SplitDepth: -1, Method: MethodPNS, TTMB: MaxTTMB + 1}, "--tt-mb"},
	} {
		_, err := tc.p.Spec()
		if !errors.Is(err, tasks.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an invalid job naming %q", tc.p, err, tc.want)
		}
		if _, err := (Solve{}).Size(mustJSON(tc.p)); err == nil {
			t.Errorf("%+v: sized", tc.p)
		}
	}
	// A task of a board past 8x8 that is not a question is refused for good.
	r := Solve{}.NewRunner(tasks.Env{})
	_, err := r.Run(context.Background(), mustJSON(solveTask{Rows: 9, Cols: 9, K: 5, TTMB: 16, Method: MethodPNS}))
	if !errors.Is(err, tasks.ErrPermanent) {
		t.Errorf("a 9x9 task without a question: %v", err)
	}
	_, err = r.Run(context.Background(), mustJSON(solveTask{Rows: 9, Cols: 9, K: 5, TTMB: 16, Method: MethodPNS, Question: "x", X: 3}))
	if !errors.Is(err, tasks.ErrPermanent) {
		t.Errorf("a 9x9 task of two X stones and no O: %v", err)
	}
}

// A wide task interrupted saves its table (under a name of its own), the
// next run loads and removes it and takes fewer nodes; a table is also
// saved while a task runs. (7,7,5's "does X win?", forced through the wide
// path.)
func TestSolveWideTableAcrossRestart(t *testing.T) {
	withWideFrom(t, 3)
	dir := t.TempDir()
	payload := mustJSON(solveTask{Rows: 7, Cols: 7, K: 5, TTMB: 16, Method: MethodPNS, Question: "x"})
	run := func(ctx context.Context, env tasks.Env) (solveResult, error) {
		out, err := Solve{}.NewRunner(env).Run(ctx, payload)
		var res solveResult
		if err == nil {
			err = json.Unmarshal(out.Data, &res)
		}
		return res, err
	}
	whole, err := run(context.Background(), tasks.Env{Process: &tasks.Process{}})
	if err != nil || whole.Wins {
		t.Fatalf("the whole task: %+v, %v", whole, err)
	}
	env := tasks.Env{Process: &tasks.Process{}, Dir: dir}
	if _, err := run(&stopAfter{Context: context.Background(), n: 2}, env); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v, want context.Canceled", err)
	}
	path := wideTablePath(filepath.Join(dir, "mnk.solve"), wide.MustNew(7, 7, 5), 16)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("interrupted: no table saved: %v", err)
	}
	resumed, err := run(context.Background(), tasks.Env{Process: &tasks.Process{}, Dir: dir})
	if err != nil || resumed.Wins || resumed.Nodes >= whole.Nodes {
		t.Errorf("after the restart: %+v, %v; want X not to win in fewer than the whole task's %d nodes", resumed, err, whole.Nodes)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the table file is still there after the load: %v", err)
	}
	t.Logf("7,7,5 does X win, wide: %d nodes whole, %d after a restart", whole.Nodes, resumed.Nodes)

	every, gap := tableSaveEvery, minSaveGap
	tableSaveEvery, minSaveGap = 20*time.Millisecond, 0
	defer func() { tableSaveEvery, minSaveGap = every, gap }()
	if _, err := run(context.Background(), tasks.Env{Process: &tasks.Process{}, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no table saved while the task ran: %v", err)
	}
	defer f.Close()
	if _, err := widepns.NewTable(wide.MustNew(7, 7, 5), 16<<20).ReadFrom(f); err != nil {
		t.Errorf("the table saved while the task ran does not load: %v", err)
	}
}

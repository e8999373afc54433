package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// runSingle plans a one-task job, runs its task and returns the report.
func runSingle(t *testing.T, k tasks.Kind, params any, rep tasks.Report) {
	t.Helper()
	plan, err := k.Plan(context.Background(), mustJSON(params), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	ts := plan.Tasks()
	if len(ts) != 1 {
		t.Fatalf("%d tasks, want 1", len(ts))
	}
	out, err := k.NewRunner(tasks.Env{}).Run(context.Background(), ts[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Merge(ts[0].ID, out.Data); err != nil {
		t.Fatal(err)
	}
	got, err := plan.Report(context.Background(), tasks.Summary{Tasks: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if err := json.Unmarshal(b, rep); err != nil {
		t.Fatal(err)
	}
	if got.Text() == "" {
		t.Error("empty text report")
	}
}

func TestSearchJob(t *testing.T) {
	cases := []struct {
		p      SearchParams
		move   [2]int
		result string
	}{
		// X completes the diagonal at once.
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "0,0 0,2 1,1 2,0", Depth: 4}, [2]int{2, 2}, "win in 1 ply"},
		// O must block at (2,2) and still loses: X forks.
		{SearchParams{Rows: 3, Cols: 3, K: 3, Position: "XO./.X./...", Depth: 6}, [2]int{2, 2}, "loss in 4 plies"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "XO./.X./...", Depth: 6}, [2]int{2, 2}, "loss in 4 plies"},
		// Searched to the end of every line, a draw is proven, not a
		// heuristic 0 (X must block the top row at 0,1).
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "1,1 0,0 2,2 0,2", Depth: 9}, [2]int{0, 1}, "draw"},
	}
	for _, c := range cases {
		var rep SearchReport
		runSingle(t, Search{}, c.p, &rep)
		if rep.Board == "" || rep.BestMove != c.move || rep.Result != c.result || len(rep.Iterations) == 0 || rep.Nodes == 0 {
			t.Errorf("%+v: complete %v, move %v, result %q, %d iterations, %d nodes; want move %v, %q",
				c.p, rep.Board != "", rep.BestMove, rep.Result, len(rep.Iterations), rep.Nodes, c.move, c.result)
		}
	}
	var rep SearchReport
	runSingle(t, Search{}, SearchParams{Rows: 7, Cols: 7, K: 5, Moves: "3,3", Depth: 3}, &rep)
	if rep.Depth != 3 || len(rep.Iterations) != 3 || rep.Result != "heuristic" || rep.ToMove != "O" || len(rep.PV) != 3 {
		t.Errorf("7,7,5 depth 3: %+v", rep)
	}
}

// Gomoku: boards over 8 on a side go to the big-board search, with cells
// as [row, col] of that board.
func TestSearchJobBigBoard(t *testing.T) {
	cases := []struct {
		p      SearchParams
		move   [2]int
		result string
	}{
		// O to move must block X's four in row 7 at 7,7 (7,2 is O's).
		{SearchParams{Rows: 15, Cols: 15, K: 5, Moves: "7,3 7,2 7,4 0,0 7,5 0,2 7,6", Depth: 2}, [2]int{7, 7}, "heuristic"},
		// X completes five in column 12 of a 9x13 board.
		{SearchParams{Rows: 9, Cols: 13, K: 5, Moves: "1,12 0,0 2,12 0,2 3,12 0,4 4,12 8,0", Depth: 3}, [2]int{0, 12}, "win in 1 ply"},
		// The same position as a board.
		{SearchParams{Rows: 9, Cols: 13, K: 5, Position: "O.O.O......../............X/............X/............X/............X/............./............./............./O............", Depth: 3},
			[2]int{0, 12}, "win in 1 ply"},
	}
	for _, c := range cases {
		var rep SearchReport
		runSingle(t, Search{}, c.p, &rep)
		if rep.Board == "" || rep.BestMove != c.move || rep.Result != c.result || rep.Board != fmt.Sprintf("%dx%d", c.p.Rows, c.p.Cols) {
			t.Errorf("%+v: complete %v, move %v, result %q, board %s; want move %v, %q", c.p, rep.Board != "", rep.BestMove, rep.Result, rep.Board, c.move, c.result)
		}
	}
	var rep SearchReport
	runSingle(t, Search{}, SearchParams{Rows: 15, Cols: 15, K: 5, Depth: 3}, &rep)
	if rep.BestMove != [2]int{7, 7} || rep.ToMove != "X" || len(rep.PV) != 3 || !strings.HasPrefix(rep.Position, strings.Repeat(".", 15)+"/") {
		t.Errorf("empty 15x15: %+v, want the centre first", rep)
	}
}

func TestMinimaxJob(t *testing.T) {
	for _, c := range []struct {
		cutoff bool
		calls  uint64
	}{{false, 340858}, {true, 66275}} {
		var rep MinimaxReport
		runSingle(t, Minimax{}, MinimaxParams{Rows: 3, Cols: 3, K: 3, Cutoff: c.cutoff}, &rep)
		if rep.Board == "" || rep.Calls != c.calls || rep.BestMove != [2]int{0, 0} || rep.Score != 0 {
			t.Errorf("cutoff %v: %+v, want %d calls, move [0 0], score 0", c.cutoff, rep, c.calls)
		}
	}
}

// TestBadPositions: every way a position can be wrong is an
// invalid-parameters error whose message says what is wrong.
func TestBadPositions(t *testing.T) {
	cases := []struct {
		p    SearchParams
		want string
	}{
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "1,1 0,x", Depth: 2}, "want row,col"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "1,1 3,0", Depth: 2}, "outside the 3x3 board"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "1,1 1,1", Depth: 2}, "occupied"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "0,0 1,0 0,1 1,1 0,2 2,2", Depth: 2}, "the game is over"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "0,0 1,0 0,1 1,1 0,2", Depth: 2}, "the game is over"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Position: "XX./.../...", Depth: 2}, "want as many X as O"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Position: "X../...", Depth: 2}, "2 rows, want 3"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Moves: "1,1", Position: "X../.../...", Depth: 2}, "not both"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Depth: 10}, "depth 10"},
		{SearchParams{Rows: 3, Cols: 3, K: 3}, "a depth or a time"},
		{SearchParams{Rows: 3, Cols: 3, K: 3, Depth: 1, TimeSeconds: -1}, "time -1s"},
		{SearchParams{Rows: 15, Cols: 15, K: 9, Depth: 1}, "k 9 is out of range"},
		{SearchParams{Rows: 20, Cols: 15, K: 5, Depth: 1}, "board 20x15"},
		{SearchParams{Rows: 15, Cols: 15, K: 5, Moves: "7,7 7,7", Depth: 1}, "occupied"},
		{SearchParams{Rows: 15, Cols: 15, K: 5, Moves: "7,7 15,0", Depth: 1}, "outside the 15x15 board"},
		{SearchParams{Rows: 15, Cols: 15, K: 5, Depth: 226}, "depth 226: want 0 to 225"},
		{SearchParams{Rows: 9, Cols: 9, K: 5, Position: "X......../......../.........", Depth: 1}, "3 rows, want 9 for a 9x9 board"},
	}
	for _, c := range cases {
		_, err := Search{}.Plan(context.Background(), mustJSON(c.p), tasks.PlanEnv{})
		if !errorsIsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an invalid-parameters error containing %q", c.p, err, c.want)
		}
	}
	_, err := Minimax{}.Plan(context.Background(), mustJSON(MinimaxParams{Rows: 4, Cols: 4, K: 4}), tasks.PlanEnv{})
	if !errorsIsInvalid(err) || !strings.Contains(err.Error(), "16 empty cells") {
		t.Errorf("minimax on 4x4: %v, want an error about 16 empty cells", err)
	}
}

// On a big board, searched near stones only, results past 3 plies are
// forced only among the moves tried, and say so.
func TestMateWords(t *testing.T) {
	for _, c := range []struct {
		n                int
		exhaustive, near bool
		want             string
	}{
		{1, false, false, "win in 1 ply"},
		{5, false, false, "win in 5 plies"},
		{-4, false, false, "loss in 4 plies"},
		{0, true, false, "draw"},
		{0, false, true, "heuristic"},
		{3, false, true, "win in 3 plies"},
		{-2, false, true, "loss in 2 plies"},
		{5, false, true, "win in 5 plies among moves near stones"},
		{-4, false, true, "loss in 4 plies among moves near stones"},
	} {
		if got := mateWords(c.n, c.exhaustive, c.near); got != c.want {
			t.Errorf("mateWords(%d, %v, %v) = %q, want %q", c.n, c.exhaustive, c.near, got, c.want)
		}
	}
}

package test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// Bad input to solve, search and minimax: one line on stderr saying what is
// wrong, exit code 2, nothing started.
func TestSolveSearchBadInputExitCode2(t *testing.T) {
	runsBinaries(t)
	cases := []usageCase{
		{[]string{"mnk", "solve", "--board", "7x7", "--k", "4", "--method", "alphabeta"}, "at most 36 cells"},
		{[]string{"mnk", "solve", "--method", "mcts"}, `--method "mcts"`},
		{[]string{"mnk", "solve", "--split-depth", "4"}, "split depth 4"},
		{[]string{"mnk", "solve", "--split-depth", "0", "--root-moves"}, "--root-moves needs a task for each first move"},
		{[]string{"mnk", "solve", "--tt-mb", "0"}, "--tt-mb 0"},
		{[]string{"mnk", "solve", "extra"}, "no arguments"},
		{[]string{"mnk", "solve", "--board", "12x12"}, "rows and columns must be 1 to 11"},
		{[]string{"mnk", "solve", "--board", "9x9", "--root-moves"}, "--root-moves takes boards of up to 8x8"},
		{[]string{"mnk", "solve", "--board", "9x9", "--split-depth", "2"}, "splits at the first moves"},
		{[]string{"mnk", "solve", "--board", "7x7", "--k", "5", "--nodes", "100"}, "--nodes bounds the tasks of a pns job of questions"},
		{[]string{"mnk", "solve", "--nodes", "many"}, "--nodes"},
		{[]string{"mnk", "search", "--moves", "1,1 x", "--depth", "2"}, "want row,col"},
		{[]string{"mnk", "search", "--moves", "1,1 5,5", "--depth", "2"}, "outside the 3x3 board"},
		{[]string{"mnk", "search", "--moves", "1,1 1,1", "--depth", "2"}, "occupied"},
		{[]string{"mnk", "search", "--moves", "0,0 1,0 0,1 1,1 0,2 2,2", "--depth", "2"}, "the game is over"},
		{[]string{"mnk", "search", "--moves", "0,0 1,0 0,1 1,1 0,2", "--depth", "2"}, "the game is over"},
		{[]string{"mnk", "search", "--position", "XX./.../...", "--depth", "1"}, "want as many X as O"},
		{[]string{"mnk", "search"}, "a depth or a time"},
		{[]string{"mnk", "search", "--time", "soon"}, "--time"},
		{[]string{"mnk", "search", "--depth", "12"}, "depth 12"},
		{[]string{"mnk", "minimax", "--board", "4x4"}, "16 empty cells"},
		{[]string{"mnk", "minimax", "--moves", "1,1", "--position", "X../.../..."}, "not both"},
		{[]string{"mnk", "search", "--board", "20x20", "--depth", "1"}, "rows and columns must be 1 to 19"},
		{[]string{"mnk", "search", "--board", "15x15", "--k", "9", "--depth", "1"}, "want 1 <= k <= 8"},
		{[]string{"mnk", "search", "--board", "15x15", "--moves", "7,7 7,7", "--depth", "1"}, "occupied"},
		{[]string{"mnk", "count", "--board", "15x15", "--method", "tree"}, "mnk search takes boards up to 19x19"},
		{[]string{"mnk", "count", "--board", "15x15"}, "at most 25 cells"},
		{[]string{"mnk", "simulate", "-x", "sometimes"}, `-x: player "sometimes"`},
		{[]string{"mnk", "simulate", "-o", "human"}, "-o: a simulation has no human player"},
		{[]string{"mnk", "simulate", "--games", "0"}, "--games 0"},
		{[]string{"mnk", "simulate", "--board", "5x5", "--exact"}, "--exact: boards of up to 16 cells"},
		{[]string{"mnk", "simulate", "--board", "5x5", "-x", "perfect"}, "perfect plays boards of up to 16 cells"},
		{[]string{"mnk", "simulate", "-x", "engine:time=5ms", "--exact"}, "moves by the clock"},
	}
	expectUsageErrors(t, cases, always)
}

// Gomoku on the command line: the big-board search blocks a four.
func TestSearchGomokuCLI(t *testing.T) {
	runsBinaries(t)
	out, err := run(t, "analyze", "mnk", "search", "--board", "15x15", "--moves", "7,3 7,2 7,4 0,0 7,5 0,2 7,6",
		"--depth", "3", "--json", "--data", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		mnktasks.SearchReport
		tasks.Common
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.K != 5 || r.BestMove != [2]int{7, 7} || r.ToMove != "O" || r.Depth != 3 {
		t.Errorf("15x15 search: %+v, want O to block at 7,7 (k 5 by default), depth 3", r)
	}
}

// The solve of 5,5,4 on a real nats-server with a coordinator and two
// worker processes gives the same value, best moves and move values as the
// embedded default, and a principal variation that plays out to that
// value. (The line itself follows the proofs the workers' tables hold,
// which depend on which tasks shared a table: docs/games.md.)
func TestSolveMultiProcessEqualsEmbedded(t *testing.T) {
	runsBinaries(t)
	args := []string{"mnk", "solve", "--board", "5x5", "--k", "4", "--root-moves", "--json"}
	type report struct {
		mnktasks.SolveReport
		tasks.Common
	}
	parse := func(out string) report {
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("report %q: %v", out, err)
		}
		return r
	}
	out, err := run(t, "analyze", append(args, "--data", t.TempDir())...)
	if err != nil {
		t.Fatal(err)
	}
	embedded := parse(out)
	c := startCluster(t)
	out, err = run(t, "analyze", append(args, "--nats", c.url)...)
	if err != nil {
		t.Fatal(err)
	}
	multi := parse(out)
	if embedded.Value != "draw" || !embedded.Complete {
		t.Errorf("embedded 5,5,4: value %s, complete %v; want a draw", embedded.Value, embedded.Complete)
	}
	type figures struct {
		Value      string
		BestMoves  [][2]int
		MoveValues map[string]string
		Tasks      int
	}
	e := figures{embedded.Value, embedded.BestMoves, embedded.MoveValues, embedded.Tasks}
	m := figures{multi.Value, multi.BestMoves, multi.MoveValues, multi.Tasks}
	if !reflect.DeepEqual(e, m) {
		t.Errorf("multi-process solve differs from embedded:\ngot  %+v\nwant %+v", m, e)
	}
	for name, r := range map[string]report{"embedded": embedded, "multi-process": multi} {
		if err := playsOut(mnk.MustNew(5, 5, 4), r.PV, mnk.Draw); err != nil {
			t.Errorf("%s principal variation %v: %v", name, r.PV, err)
		}
	}
	t.Logf("5,5,4: embedded %.2f s (speedup %.2f), multi-process %.2f s (speedup %.2f)",
		embedded.ElapsedSeconds, embedded.Speedup, multi.ElapsedSeconds, multi.Speedup)
}

// A board past 8x8 (9,9,3: X wins with every first move) on a real
// nats-server with two worker processes: the same report as the embedded
// default.
func TestSolveWideMultiProcessEqualsEmbedded(t *testing.T) {
	runsBinaries(t)
	args := []string{"mnk", "solve", "--board", "9x9", "--k", "3", "--json"}
	type report struct {
		mnktasks.SolveReport
		tasks.Common
	}
	var reps []report
	for _, where := range [][]string{{"--data", t.TempDir()}, {"--nats", startCluster(t).url}} {
		out, err := run(t, "analyze", append(args, where...)...)
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("report %q: %v", out, err)
		}
		reps = append(reps, r)
	}
	e, m := reps[0], reps[1]
	if e.Value != "win" || len(e.BestMoves) != 81 || e.Tasks != 16 || !e.Complete {
		t.Errorf("embedded 9,9,3: %s, %d best moves, %d tasks", e.Value, len(e.BestMoves), e.Tasks)
	}
	if m.Value != e.Value || !reflect.DeepEqual(m.BestMoves, e.BestMoves) || m.Tasks != e.Tasks {
		t.Errorf("multi-process 9,9,3: %s %v in %d tasks; embedded %s %v in %d", m.Value, m.BestMoves, m.Tasks, e.Value, e.BestMoves, e.Tasks)
	}
}

// playsOut checks that pv, cells [row, col] from the empty board, is a
// legal game that ends with result want.
func playsOut(g *mnk.Game, pv [][2]int, want mnk.Result) error {
	p, res := mnk.Position{}, mnk.Ongoing
	for i, rc := range pv {
		c := mnk.Cell(rc[0], rc[1])
		if res != mnk.Ongoing || rc[0] < 0 || rc[1] < 0 || rc[0] >= g.Rows || rc[1] >= g.Cols || g.Empty(p)>>uint(c)&1 == 0 {
			return fmt.Errorf("move %d is illegal", i+1)
		}
		p, res = g.Play(p, c)
	}
	if res != want {
		return fmt.Errorf("ends %v, want %v", res, want)
	}
	return nil
}

// BenchmarkSolve775EndToEnd: analyze mnk solve --board 7x7 -k 5 on the
// embedded default, a fresh store each time, from the command to the
// report (ns/op is the wall time; the target is under a second).
// It reports the job's own elapsed seconds and its nodes, and fails unless
// the value is a draw.
//
//	go test ./test -run '^$' -bench Solve775EndToEnd -benchtime 5x
func BenchmarkSolve775EndToEnd(b *testing.B) {
	runsBinaries(b)
	dir := b.TempDir()
	var job, nodes float64
	for i := range b.N {
		out, err := run(b, "analyze", "mnk", "solve", "--board", "7x7", "-k", "5", "--json", "-q", "--data", filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			b.Fatal(err)
		}
		var r struct {
			mnktasks.SolveReport
			tasks.Common
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			b.Fatal(err)
		}
		if r.Value != "draw" || !r.Complete {
			b.Fatalf("7,7,5: value %s, complete %v; want a draw", r.Value, r.Complete)
		}
		job += r.ElapsedSeconds
		nodes += float64(r.Nodes)
	}
	b.ReportMetric(job/float64(b.N), "job-s")
	b.ReportMetric(nodes/float64(b.N), "nodes")
}

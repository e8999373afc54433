package mnk

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// runSimulate plans a simulation and runs it in this process.
func runSimulate(t *testing.T, p SimulateParams) *SimulateReport {
	t.Helper()
	plan, err := Simulate{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return taskstest.RunPlan(t, Simulate{}, plan, tasks.Env{}, tasks.Summary{}).(*SimulateReport)
}

// The same seed gives the same games however they are split into tasks;
// another seed other games. Every game is counted once, with its first
// move and its length.
func TestSimulateSameGamesAnySplit(t *testing.T) {
	base := SimulateParams{Rows: 3, Cols: 3, K: 3, X: "random", O: "random", Games: 500, Seed: 42}
	var ref *SimulateReport
	for _, per := range []int{0, 1, 7, 500} {
		p := base
		p.GamesPerTask = per
		r := runSimulate(t, p)
		if r.Played != 500 || r.XWins+r.OWins+r.Draws != 500 {
			t.Fatalf("per task %d: %+v", per, r)
		}
		firsts := 0
		for _, f := range r.FirstMoves {
			firsts += f.Games
			if f.Games != f.XWins+f.OWins+f.Draws {
				t.Errorf("first move %v: %d games, results %d/%d/%d", f.Move, f.Games, f.XWins, f.OWins, f.Draws)
			}
		}
		if firsts != 500 || len(r.FirstMoves) != 9 || r.AverageLength < 5 || r.AverageLength > 9 {
			t.Errorf("per task %d: %d games by first move over %d moves, average length %.2f", per, firsts, len(r.FirstMoves), r.AverageLength)
		}
		if ref == nil {
			ref = r
			continue
		}
		if r.Digest != ref.Digest || r.XWins != ref.XWins || r.OWins != ref.OWins || r.AverageLength != ref.AverageLength {
			t.Errorf("per task %d: digest %s, %d/%d/%d; per task 0: %s, %d/%d/%d", per, r.Digest, r.XWins, r.OWins, r.Draws,
				ref.Digest, ref.XWins, ref.OWins, ref.Draws)
		}
	}
	other := base
	other.Seed = 43
	if r := runSimulate(t, other); r.Digest == ref.Digest {
		t.Error("another seed played the same games")
	}
}

// Bad parameters name the flag at fault.
func TestSimulateInvalid(t *testing.T) {
	for _, c := range []struct {
		p    SimulateParams
		want string
	}{
		{SimulateParams{Rows: 3, Cols: 3, K: 3, X: "human", O: "random", Games: 1}, "-x: a simulation has no human"},
		{SimulateParams{Rows: 3, Cols: 3, K: 3, X: "random", O: "sometimes", Games: 1}, "-o: player"},
		{SimulateParams{Rows: 3, Cols: 3, K: 3, X: "random", O: "random", Games: 0}, "--games 0"},
		{SimulateParams{Rows: 5, Cols: 5, K: 4, X: "random", O: "random", Games: 1, Exact: true}, "--exact: boards of up to 16 cells"},
		{SimulateParams{Rows: 5, Cols: 5, K: 4, X: "perfect", O: "random", Games: 1}, "-x: perfect plays boards of up to 16 cells"},
		{SimulateParams{Rows: 3, Cols: 3, K: 3, X: "engine:time=10ms", O: "random", Games: 1, Exact: true}, "--exact: -x engine:time=10ms moves by the clock"},
		{SimulateParams{Rows: 9, Cols: 3, K: 3, X: "random", O: "random", Games: 1}, "9"},
	} {
		_, err := Simulate{}.Plan(context.Background(), mustJSON(c.p), tasks.PlanEnv{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.p, err, c.want)
		}
	}
	// A player on the clock makes volatile tasks; the others do not.
	for spec, volatile := range map[string]bool{"random": false, "engine:time=5ms": true} {
		plan, err := Simulate{}.Plan(context.Background(), mustJSON(SimulateParams{Rows: 3, Cols: 3, K: 3, X: spec, O: "random", Games: 10}), tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Tasks()[0].Volatile; got != volatile {
			t.Errorf("%s: volatile %v, want %v", spec, got, volatile)
		}
	}
}

// Perfect never loses, in either seat; the exact odds are those that
// player.Exact's tests hold to a brute-force enumeration, and the
// simulated counts lie within a few standard errors of them.
func TestSimulatePerfectAgainstRandom(t *testing.T) {
	for _, c := range []struct {
		x, o          string
		xWin, oWin, d string
	}{
		{"perfect", "random", "191/192", "0", "1/192"},
		{"random", "perfect", "0", "254/315", "61/315"},
		{"random", "random", "737/1260", "121/420", "8/63"},
	} {
		r := runSimulate(t, SimulateParams{Rows: 3, Cols: 3, K: 3, X: c.x, O: c.o, Games: 20_000, Seed: 7, Exact: true})
		if c.x == "perfect" && r.OWins != 0 || c.o == "perfect" && r.XWins != 0 {
			t.Errorf("%s against %s: x %d, o %d, draws %d: perfect lost", c.x, c.o, r.XWins, r.OWins, r.Draws)
		}
		got := *r.ExactFractions
		if got != (OddsText{XWin: c.xWin, OWin: c.oWin, Draw: c.d}) {
			t.Errorf("%s against %s: exact %+v, want %s, %s, %s", c.x, c.o, got, c.xWin, c.oWin, c.d)
		}
		if d := r.Deviation; math.Abs(d.XWin) > 4 || math.Abs(d.OWin) > 4 || math.Abs(d.Draw) > 4 {
			t.Errorf("%s against %s: %d/%d/%d lie %+v standard errors from the exact odds %+v", c.x, c.o, r.XWins, r.OWins, r.Draws, *d, *r.Exact)
		}
		if c.x == "perfect" && r.X.NodesPerMove < 0 || r.Played != 20_000 {
			t.Errorf("%s against %s: %+v", c.x, c.o, r)
		}
	}
}

package mnk

import (
	"context"
	"fmt"
	"math"
	"math/big"
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
		checkDeviation(t, c.x+" against "+c.o, r)
		if r.Played != 20_000 {
			t.Errorf("%s against %s: %+v", c.x, c.o, r)
		}
		if moves, plies := r.X.Moves+r.O.Moves, math.Round(r.AverageLength*float64(r.Played)); float64(moves) != plies {
			t.Errorf("%s against %s: x made %d moves and o %d, %d in all; the games' %d × %.4f plies make %.0f",
				c.x, c.o, r.X.Moves, r.O.Moves, moves, r.Played, r.AverageLength, plies)
		}
	}
}

// checkDeviation recomputes the report's deviations from its counts and
// its exact fractions, as the z-score of a binomial count: (count - n q) /
// sqrt(n q (1 - q)) for n games and a result of probability q. A result
// of probability 0 or 1 has no deviation, and its count must be the sure
// one. The figures must be the report's (to 1e-9), lie within 4 standard
// errors, and be what its text prints.
func checkDeviation(t *testing.T, name string, r *SimulateReport) {
	t.Helper()
	if r.Exact == nil || r.ExactFractions == nil || r.Deviation == nil {
		t.Fatalf("%s: exact %v, fractions %v, deviation %v: want all three", name, r.Exact, r.ExactFractions, r.Deviation)
	}
	n := float64(r.Played)
	text := r.Text()
	for _, o := range []struct {
		result        string
		count         int
		fraction      string
		exact, report float64
		printed       string // the text's format of the fraction, q and the deviation
	}{
		{"x wins", r.XWins, r.ExactFractions.XWin, r.Exact.XWin, r.Deviation.XWin, "%s = %.6f (simulated %+.2f standard errors)"},
		{"o wins", r.OWins, r.ExactFractions.OWin, r.Exact.OWin, r.Deviation.OWin, "%s = %.6f (%+.2f)"},
		{"draws", r.Draws, r.ExactFractions.Draw, r.Exact.Draw, r.Deviation.Draw, "%s = %.6f (%+.2f)"},
	} {
		rat, ok := new(big.Rat).SetString(o.fraction)
		if !ok {
			t.Errorf("%s: %s: exact fraction %q is not a fraction", name, o.result, o.fraction)
			continue
		}
		q, _ := rat.Float64()
		if q != o.exact {
			t.Errorf("%s: %s: exact %v, want %s = %v", name, o.result, o.exact, o.fraction, q)
		}
		z := 0.0
		if sd := math.Sqrt(n * q * (1 - q)); sd > 0 {
			z = (float64(o.count) - n*q) / sd
		} else if want := n * q; float64(o.count) != want {
			t.Errorf("%s: %s: %d of %.0f games, want %.0f: the exact odds are %s", name, o.result, o.count, n, want, o.fraction)
		}
		if math.Abs(o.report-z) > 1e-9 {
			t.Errorf("%s: %s: deviation %v, want %v = (%d - %.0f × %s) / sqrt(%.0f × %s × (1 - %s))",
				name, o.result, o.report, z, o.count, n, o.fraction, n, o.fraction, o.fraction)
		}
		if math.Abs(z) > 4 {
			t.Errorf("%s: %s: %d of %.0f games lie %+.2f standard errors from %s", name, o.result, o.count, n, z, o.fraction)
		}
		if line := fmt.Sprintf(o.printed, o.fraction, q, z); !strings.Contains(text, line) {
			t.Errorf("%s: %s: the text lacks %q:\n%s", name, o.result, line, text)
		}
	}
}

package sudoku

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The published call counts for Project Euler 96 grid 01.
func TestStrategyKnownCalls(t *testing.T) {
	g := corpus(t, "euler96.txt")[0]
	s := NewSolver()
	for _, c := range []struct {
		name  string
		calls int64
	}{{Backtrack, 201}, {Candidates, 201}, {MRV, 50}} {
		r, err := RunStrategy(context.Background(), c.name, g, s)
		if err != nil || r.Outcome != Solved || r.Calls != c.calls || r.Solution.String() != known[0].solution {
			t.Errorf("%s: %v %d calls %s, %v; want solved in %d calls", c.name, r.Outcome, r.Calls, r.Solution, err, c.calls)
		}
	}
}

// Every strategy solves every Euler grid with the engine's answer.
func TestStrategiesAgree(t *testing.T) {
	s := NewSolver()
	for i, g := range corpus(t, "euler96.txt") {
		s.Solve(&g, 1)
		want := s.Solution(0)
		for _, name := range Strategies {
			r, err := RunStrategy(context.Background(), name, g, s)
			if err != nil || r.Outcome != Solved || r.Solution != want || r.Calls < 1 {
				t.Errorf("grid %02d %s: %v %d calls %s, %v; want solved %s", i+1, name, r.Outcome, r.Calls, r.Solution, err, want)
			}
		}
	}
}

func TestStrategyOutcomes(t *testing.T) {
	s := NewSolver()
	conflict := mustParse(t, "55"+strings.Repeat(".", 79))
	for _, name := range []string{Candidates, MRV, Fast} {
		r, err := RunStrategy(context.Background(), name, conflict, s)
		if err != nil || r.Outcome != Conflicting || r.Calls != 0 || r.Reason != "row 1 has two 5s (r1c1, r1c2)" {
			t.Errorf("%s on conflicting givens: %v %d calls %q, %v; want invalid, 0 calls", name, r.Outcome, r.Calls, r.Reason, err)
		}
	}
	// backtrack does not check the givens: a full grid with two 5s in a
	// row is "solved" at once, and the check finds the conflict.
	full := mustParse(t, known[0].solution)
	full[1] = full[0]
	if r, err := RunStrategy(context.Background(), Backtrack, full, s); err != nil || r.Outcome != Conflicting || r.Calls != 1 {
		t.Errorf("backtrack on a full conflicting grid: %v %d calls, %v; want invalid after 1 call", r.Outcome, r.Calls, err)
	}
	// ... and when its search fails on givens that conflict, the outcome
	// is invalid too, with the calls it made (Euler 01 with a 3 added in
	// row 1, which has a 3 already).
	e01 := mustParse(t, known[0].puzzle)
	e01[0] = 3
	if r, err := RunStrategy(context.Background(), Backtrack, e01, s); err != nil || r.Outcome != Conflicting || r.Calls < 2 || r.Reason != "row 1 has two 3s (r1c1, r1c3)" {
		t.Errorf("backtrack on conflicting givens it cannot fill: %v %d calls %q, %v; want invalid after searching", r.Outcome, r.Calls, r.Reason, err)
	}
	unsolvable := mustParse(t, "12345678."+strings.Repeat(".", 8)+"9"+strings.Repeat(".", 63))
	for _, name := range Strategies {
		r, err := RunStrategy(context.Background(), name, unsolvable, s)
		if err != nil || r.Outcome != NoSolution {
			t.Errorf("%s on an unsolvable puzzle: %v, %v; want unsolvable", name, r.Outcome, err)
		}
	}
	if _, err := RunStrategy(context.Background(), "magic", unsolvable, s); err == nil {
		t.Error("unknown strategy accepted")
	}
}

// A run stops at its deadline with the calls it reached: backtrack on the
// brute-force-hard puzzle needs hundreds of millions of calls.
func TestStrategyTimeout(t *testing.T) {
	g := mustParse(t, known[1].puzzle)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := RunStrategy(ctx, Backtrack, g, NewSolver())
	if err != nil || r.Outcome != TimedOut || r.Calls < pollMask {
		t.Errorf("got %v after %d calls, %v; want timeout", r.Outcome, r.Calls, err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("stopped after %v, want about 20ms", el)
	}
}

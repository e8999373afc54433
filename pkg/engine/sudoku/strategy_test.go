package sudoku

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/race"
)

// The published call counts for Project Euler 96 grid 01.
func TestStrategyKnownCalls(t *testing.T) {
	g := corpus(t, "euler96.txt.gz")[0]
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
	for i, g := range corpus(t, "euler96.txt.gz") {
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

// A run stops when its context ends, with the calls it reached: backtrack
// on the brute-force-hard puzzle needs hundreds of millions of calls. A
// context that ends at its eleventh poll stops it after 11 x 4,096 calls
// on any machine; a deadline stops it after the deadline, how long after
// depending on the machine (logged).
func TestStrategyTimeout(t *testing.T) {
	g := mustParse(t, known[1].puzzle)
	r, err := RunStrategy(&callBudget{Context: context.Background(), polls: 10}, Backtrack, g, nil)
	if want := int64(11 * (pollMask + 1)); err != nil || r.Outcome != TimedOut || r.Calls != want {
		t.Errorf("stopped at the 11th poll: %v after %d calls, %v; want timeout after %d", r.Outcome, r.Calls, err, want)
	}
	const timeout = 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	done := make(chan Run, 1)
	go func() {
		r, err := RunStrategy(ctx, Backtrack, g, nil)
		if err != nil {
			r.Reason = err.Error()
		}
		done <- r
	}()
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("a run with a %v deadline still running after a minute", timeout)
	}
	el := time.Since(start)
	t.Logf("a %v deadline: stopped after %v and %d calls", timeout, el, r.Calls)
	// Stopped by the deadline, not before it: the context says it has
	// passed (a wall-clock comparison failed once in CI at 16.5 ms of a
	// 20 ms deadline measured from after the context was made).
	if r.Outcome != TimedOut || r.Calls < pollMask+1 || r.Reason != "" || ctx.Err() == nil {
		t.Errorf("a %v deadline: %v after %d calls and %v (%s), context %v; want timeout after at least %d calls, the deadline passed", timeout, r.Outcome, r.Calls, el, r.Reason, ctx.Err(), pollMask+1)
	}
}

// plainStrategy counts the calls of a strategy as the comments of
// Backtrack, Candidates and MRV define it, written again with plain loops
// over the grid (no masks): RunStrategy's counts, and the published ones,
// are held to it.
type plainStrategy struct {
	g     Grid
	calls int64
	mrv   bool // else the first empty cell
}

// plainPeers lists the cells that share a row, column or box with each
// cell.
var plainPeers = func() (peers [81][]int) {
	for i := range 81 {
		for j := range 81 {
			if j != i && (j/9 == i/9 || j%9 == i%9 || j/27 == i/27 && j%9/3 == i%9/3) {
				peers[i] = append(peers[i], j)
			}
		}
	}
	return peers
}()

func (p *plainStrategy) candidates(i int) []uint8 {
	var used [10]bool
	for _, j := range plainPeers[i] {
		used[p.g[j]] = true
	}
	var ds []uint8
	for d := uint8(1); d <= 9; d++ {
		if !used[d] {
			ds = append(ds, d)
		}
	}
	return ds
}

func (p *plainStrategy) solve() bool {
	p.calls++
	cell, ds := -1, []uint8(nil)
	for i := range 81 {
		if p.g[i] != 0 {
			continue
		}
		if c := p.candidates(i); cell < 0 || p.mrv && len(c) < len(ds) {
			cell, ds = i, c
		}
		if !p.mrv {
			break
		}
	}
	if cell < 0 {
		return true
	}
	for _, d := range ds {
		p.g[cell] = d
		if p.mrv && p.deadEnd() {
			continue
		}
		if p.solve() {
			return true
		}
	}
	p.g[cell] = 0
	return false
}

func (p *plainStrategy) deadEnd() bool {
	for i := range 81 {
		if p.g[i] == 0 && len(p.candidates(i)) == 0 {
			return true
		}
	}
	return false
}

// The plain strategies agree with RunStrategy on every Euler grid: the
// same solution in the same number of calls.
func TestStrategyCallsPlain(t *testing.T) {
	race.SkipSerial(t)
	var mrvTotal int64
	for i, g := range corpus(t, "euler96.txt.gz") {
		for _, c := range []struct {
			name string
			mrv  bool
		}{{Backtrack, false}, {Candidates, false}, {MRV, true}} {
			p := plainStrategy{g: g, mrv: c.mrv}
			ok := p.solve()
			r, err := RunStrategy(context.Background(), c.name, g, nil)
			if err != nil || !ok || r.Outcome != Solved || r.Calls != p.calls || r.Solution != p.g {
				t.Errorf("grid %02d %s: %v in %d calls %s, %v; the plain strategy solves it in %d calls: %s", i+1, c.name, r.Outcome, r.Calls, r.Solution, err, p.calls, p.g)
			}
			if c.mrv {
				mrvTotal += p.calls
			}
		}
	}
	t.Logf("mrv: %d calls on the 50 Euler grids", mrvTotal)
}

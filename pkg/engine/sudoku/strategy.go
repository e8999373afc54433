package sudoku

import (
	"context"
	"fmt"
	"math/bits"
)

// The strategies of `analyze sudoku compare`, defined exactly as in the
// published comparison they reproduce, so that their call counts can be
// compared with its own (Project Euler 96 grid 01: backtrack 201 calls, mrv
// 50). A call is one entry into the solve function, the root included. They
// find one solution and stop.
const (
	// Backtrack: the first empty cell in row-major order; digits 1 to 9
	// ascending, each checked against the cell's row, column and box by
	// scanning the grid; place, recurse, take back. Givens are not checked.
	Backtrack = "backtrack"
	// Candidates: the same search over the cell's candidate digits, from
	// row, column and box masks; conflicting givens are rejected first
	// (invalid, 0 calls).
	Candidates = "candidates"
	// MRV: the empty cell with fewest candidates (the first in row-major
	// order among ties), each candidate ascending with a forward check: a
	// placement that leaves an empty cell without candidates is taken back
	// without recursing. Givens are checked first.
	MRV = "mrv"
	// Fast is the engine's Solver with limit 1; its calls are search nodes
	// (the root and every guess).
	Fast = "fast"
)

// Strategies lists the strategy names in the order of the write-up.
var Strategies = []string{Backtrack, Candidates, MRV, Fast}

// RunOutcome is how a strategy's run ended.
type RunOutcome uint8

// The ends of a run.
const (
	Solved      RunOutcome = iota // a solution, verified by Check
	NoSolution                    // the search ended without one
	Conflicting                   // the givens conflict (checked first, or found by Check)
	TimedOut                      // the context ended first
)

var runOutcomeNames = [...]string{"solved", "unsolvable", "invalid", "timeout"}

// String returns solved, unsolvable, invalid or timeout.
func (o RunOutcome) String() string {
	if int(o) < len(runOutcomeNames) {
		return runOutcomeNames[o]
	}
	return fmt.Sprintf("RunOutcome(%d)", uint8(o))
}

// Run is the result of one strategy on one puzzle.
type Run struct {
	Outcome  RunOutcome
	Calls    int64 // calls to the solve function reached, root included
	Solution Grid  // Solved: the solution
	Reason   string
}

// pollMask sets how often a strategy polls its context: every 4096 calls,
// a few microseconds apart, so a timeout is late by that much at most.
const pollMask = 1<<12 - 1

// RunStrategy runs the named strategy on g until it ends or ctx is done
// (outcome TimedOut with the calls reached; Fast, milliseconds at worst, is
// not stopped). Fast uses s. Givens that conflict make the outcome
// Conflicting: checked first, or, for backtrack, which does not check them,
// once its search ends (with or without a "solution"). A solution that
// fails Check is a bug, returned as an error.
func RunStrategy(ctx context.Context, name string, g Grid, s *Solver) (Run, error) {
	var r Run
	switch name {
	case Backtrack, Candidates, MRV:
		if name != Backtrack {
			if err := g.Conflict(); err != nil {
				return Run{Outcome: Conflicting, Reason: err.Error()}, nil
			}
		}
		w := walker{g: g, ctx: ctx}
		for i, v := range g {
			if v >= 1 && v <= 9 {
				w.set(i, v)
			}
		}
		var ok bool
		switch name {
		case Backtrack:
			ok = w.backtrack()
		case Candidates:
			ok = w.candidates()
		default:
			ok = w.mrv()
		}
		r.Calls = w.calls
		if w.stopped {
			r.Outcome = TimedOut
			return r, nil
		}
		if name == Backtrack {
			// It did not check the givens: whether it filled the
			// grid or not, they decide.
			if err := g.Conflict(); err != nil {
				r.Outcome, r.Reason = Conflicting, err.Error()
				return r, nil
			}
		}
		if !ok {
			r.Outcome = NoSolution
			return r, nil
		}
		r.Outcome, r.Solution = Solved, w.g
	case Fast:
		if err := g.Conflict(); err != nil {
			return Run{Outcome: Conflicting, Reason: err.Error()}, nil
		}
		n, _ := s.Solve(&g, 1)
		r.Calls = int64(s.Nodes())
		if n == 0 {
			r.Outcome = NoSolution
			return r, nil
		}
		r.Outcome, r.Solution = Solved, s.Solution(0)
	default:
		return r, fmt.Errorf("no strategy %q (want one of backtrack, candidates, mrv, fast)", name)
	}
	if err := Check(g, r.Solution); err != nil {
		return r, fmt.Errorf("sudoku: %s strategy bug: puzzle %s: solution %s: %v", name, g, r.Solution, err)
	}
	return r, nil
}

// peers[i] lists the 20 cells that share a row, column or box with cell i.
var peers [81][20]uint8

func init() {
	for i := range 81 {
		n := 0
		for j := range 81 {
			if j != i && (j/9 == i/9 || j%9 == i%9 || boxOf(j) == boxOf(i)) {
				peers[i][n] = uint8(j)
				n++
			}
		}
	}
}

// walker is the state of the plain strategies: the grid, and digit masks
// per row, column and box (bit d-1 for digit d) for candidates and mrv.
type walker struct {
	g             Grid
	row, col, box [9]uint16
	calls         int64
	ctx           context.Context
	stopped       bool
}

func (w *walker) set(i int, v uint8) {
	m := uint16(1) << (v - 1)
	w.row[i/9] |= m
	w.col[i%9] |= m
	w.box[boxOf(i)] |= m
	w.g[i] = v
}

func (w *walker) unset(i int) {
	m := ^(uint16(1) << (w.g[i] - 1))
	w.row[i/9] &= m
	w.col[i%9] &= m
	w.box[boxOf(i)] &= m
	w.g[i] = 0
}

func (w *walker) free(i int) uint16 {
	return ^(w.row[i/9] | w.col[i%9] | w.box[boxOf(i)]) & 0x1FF
}

// enter counts a call and polls the context every pollMask+1 calls.
func (w *walker) enter() bool {
	w.calls++
	if w.calls&pollMask == 0 && w.ctx.Err() != nil {
		w.stopped = true
	}
	return !w.stopped
}

func (w *walker) firstEmpty() int {
	for i, v := range w.g {
		if v == 0 {
			return i
		}
	}
	return -1
}

// backtrack checks each digit by scanning the cell's peers in the grid, as
// the simplest published solver does; the masks are not used.
func (w *walker) backtrack() bool {
	if !w.enter() {
		return false
	}
	i := w.firstEmpty()
	if i < 0 {
		return true
	}
	for d := uint8(1); d <= 9; d++ {
		used := false
		for _, p := range peers[i] {
			if w.g[p] == d {
				used = true
				break
			}
		}
		if used {
			continue
		}
		w.g[i] = d
		if w.backtrack() {
			return true
		}
		if w.stopped {
			return false
		}
		w.g[i] = 0
	}
	return false
}

func (w *walker) candidates() bool {
	if !w.enter() {
		return false
	}
	i := w.firstEmpty()
	if i < 0 {
		return true
	}
	for m := w.free(i); m != 0; m &= m - 1 {
		w.set(i, uint8(bits.TrailingZeros16(m))+1)
		if w.candidates() {
			return true
		}
		if w.stopped {
			return false
		}
		w.unset(i)
	}
	return false
}

func (w *walker) mrv() bool {
	if !w.enter() {
		return false
	}
	best, bestN := -1, 10
	for i, v := range w.g {
		if v == 0 {
			if n := bits.OnesCount16(w.free(i)); n < bestN {
				best, bestN = i, n
			}
		}
	}
	if best < 0 {
		return true
	}
	for m := w.free(best); m != 0; m &= m - 1 {
		w.set(best, uint8(bits.TrailingZeros16(m))+1)
		if w.deadEnd() {
			w.unset(best)
			continue
		}
		if w.mrv() {
			return true
		}
		if w.stopped {
			return false
		}
		w.unset(best)
	}
	return false
}

// deadEnd reports whether some empty cell has no candidate left.
func (w *walker) deadEnd() bool {
	for i, v := range w.g {
		if v == 0 && w.free(i) == 0 {
			return true
		}
	}
	return false
}

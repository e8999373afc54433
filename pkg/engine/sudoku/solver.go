package sudoku

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Solver solves puzzles exactly with the band solver of band.go. A Solver
// is used by one goroutine at a time; it holds its search stack, so solving
// allocates nothing once it exists.
type Solver struct {
	stack   [82]state // stack[k]: the state at search depth k
	sol     [2]Grid
	n       int
	limit   int
	guesses int
	nodes   int
}

// NewSolver returns a Solver.
func NewSolver() *Solver { return &Solver{} }

// Solve counts the solutions of *g up to limit (limit 2 answers "is it
// unique?") and returns that count and the number of guesses the search
// made, a difficulty figure: the number of branch points, 0 for a puzzle
// that propagation alone solves. The first solutions found, up to two, are
// then available from Solution. Givens that conflict give no solution; *g
// is not changed.
func (s *Solver) Solve(g *Grid, limit int) (n int, guesses int) {
	s.n, s.limit, s.guesses, s.nodes = 0, limit, 0, 0
	if limit < 1 {
		return 0, 0
	}
	st := &s.stack[0]
	st.empty()
	var ok bool
	switch {
	case useBandAsm && useBandNoPEXT:
		ok = placeGivensNoPEXT(st, g)
	case useBandAsm:
		ok = placeGivens(st, g)
	default:
		ok = st.givens(g)
	}
	if !ok {
		s.nodes = 1
		return 0, 0 // a conflict among the givens (or not a digit)
	}
	s.search(0)
	return s.n, s.guesses
}

// empty sets st to the empty grid: every digit possible everywhere, every
// column single to be sought.
func (st *state) empty() {
	for i := range st.f {
		st.f[i], st.prev[i] = bandBits, bandBits
	}
	st.unsolved = [4]uint32{bandBits, bandBits, bandBits, 0}
	st.todo, st.colDirty = 0, 1<<9-1
}

// givens places the digits of g on st, the empty grid, in the order of the
// cells. It returns false on a value above 9 or on a digit that an earlier
// given rules out.
func (st *state) givens(g *Grid) bool {
	// Found eight cells at a time (a branch per cell on whether it is
	// empty was mispredicted about 20 times a puzzle).
	const low7, high = 0x7F7F7F7F7F7F7F7F, 0x8080808080808080
	for w := 0; w < 88; w += 8 {
		var x uint64
		if w < 80 {
			x = binary.LittleEndian.Uint64(g[w:])
		} else {
			x = uint64(g[80])
		}
		for nz := ((x & low7) + low7 | x) & high; nz != 0; nz &= nz - 1 {
			i := w + bits.TrailingZeros64(nz)>>3
			v := g[i]
			d, b, bit := int(v)-1, i/27, uint32(1)<<(i%27)
			if v > 9 || st.f[(3*d+b)&31]&bit == 0 {
				return false
			}
			st.place(3*d+b, bit)
		}
	}
	return true
}

// search explores the node at depth k, whose state is set.
func (s *Solver) search(k int) {
	s.nodes++
	st := &s.stack[k]
	for {
		if !st.propagate() {
			return
		}
		if st.unsolved[0]|st.unsolved[1]|st.unsolved[2] == 0 {
			if s.n < len(s.sol) {
				st.solution(&s.sol[s.n])
			}
			s.n++
			return
		}
		var tr triadView
		progress, ok := st.triads(&tr)
		if !ok {
			return
		}
		if progress {
			continue
		}
		s.guesses++
		kind, idx, d, ok := tr.choose()
		if !ok {
			panic("sudoku: solver bug: no band or stack left to branch on")
		}
		// One branch per permutation still possible: every one but the
		// last gets a copy of the state; the last continues in this
		// node's state, as the loop's next turn.
		// The permutations come from a table (testing each of the six
		// was a mispredicted branch on most).
		list := permList[tr.presence(kind, idx, d)&511]
		last := int(list&7) - 1
		for list >>= 3; last > 0; last-- {
			next := &s.stack[k+1]
			*next = *st
			next.restrict(kind, idx, d, int(list&7))
			s.search(k + 1)
			if s.n >= s.limit {
				return
			}
			list >>= 3
		}
		st.restrict(kind, idx, d, int(list&7))
		s.nodes++
	}
}

// Solution returns the i-th solution (0 or 1) found by the last Solve; it
// panics if there is no such solution.
func (s *Solver) Solution(i int) Grid {
	if i < 0 || i >= min(s.n, 2) {
		panic(fmt.Sprintf("sudoku: solution %d of %d found", i, s.n))
	}
	return s.sol[i]
}

// Nodes returns the number of search nodes of the last Solve (the root and
// every branch entered): the "calls" of the fast strategy in comparisons.
func (s *Solver) Nodes() int { return s.nodes }

// Outcome is the verdict on a puzzle.
type Outcome uint8

// The outcomes, in the order reports list them.
const (
	Unique     Outcome = iota // exactly one solution
	Multiple                  // two or more solutions
	Unsolvable                // no solution, though the givens do not conflict
	Invalid                   // the givens conflict
	Malformed                 // the text is not a puzzle
)

var outcomeNames = [...]string{"unique", "multiple", "unsolvable", "invalid", "malformed"}

// String returns the outcome's word: unique, multiple, unsolvable, invalid
// or malformed.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Outcomes lists every outcome in order.
var Outcomes = []Outcome{Unique, Multiple, Unsolvable, Invalid, Malformed}

// Result is the verdict on one puzzle with its evidence.
type Result struct {
	Outcome  Outcome
	Solution Grid   // Unique, Multiple: the first solution found
	Second   Grid   // Multiple: a second, different solution
	Guesses  int    // guesses of the search (Unique, Multiple, Unsolvable)
	Reason   string // Invalid: the conflict; Multiple, Unsolvable: a short explanation
}

// Classify solves g with limit 2 and returns its outcome. Every solution it
// reports has passed Check; a solution that fails it is a bug in the solver,
// and Classify panics with the puzzle.
//
// The givens are looked at for a conflict only when there is no solution:
// Solve finds no solution to givens that conflict (it refuses a given that
// an earlier one rules out), and a puzzle with a solution has none (Check
// vouches for it). Looking first would cost 2 to 3% of the time on a
// 17-clue corpus.
func (s *Solver) Classify(g Grid) Result {
	n, guesses := s.Solve(&g, 2)
	r := Result{Guesses: guesses}
	switch n {
	case 0:
		if err := g.Conflict(); err != nil {
			return Result{Outcome: Invalid, Reason: err.Error()}
		}
		r.Outcome, r.Reason = Unsolvable, "no solution: "+g.deadEnd(guesses)
		return r
	case 1:
		r.Outcome = Unique
	default:
		r.Outcome, r.Reason = Multiple, "at least two solutions"
		if s.sol[0] == s.sol[1] {
			panic(fmt.Sprintf("sudoku: solver bug: puzzle %s: the two solutions are the same %s", g, s.sol[0]))
		}
		if err := check(&g, &s.sol[1]); err != nil {
			panic(fmt.Sprintf("sudoku: solver bug: puzzle %s: second solution %s: %v", g, s.sol[1], err))
		}
		r.Second = s.sol[1]
	}
	// Checked in place, then copied (Check would copy both grids).
	if err := check(&g, &s.sol[0]); err != nil {
		panic(fmt.Sprintf("sudoku: solver bug: puzzle %s: solution %s: %v", g, s.sol[0], err))
	}
	r.Solution = s.sol[0]
	return r
}

// Why says in words why r is not a unique solution, as wopr tells a user
// of one puzzle (analyze sudoku solve PUZZLE, explain, the web's pasted
// puzzle): "the givens conflict: row 3 has two 5s (r3c2, r3c8)", "the
// puzzle has no solution: r1c4 has no candidate", "the puzzle has several
// solutions: r2c5 can be 3 or 8, among others". It is "" for Unique.
func (r Result) Why() string {
	switch r.Outcome {
	case Unique:
		return ""
	case Invalid:
		return "the givens conflict: " + r.Reason
	case Unsolvable:
		return "the puzzle has " + r.Reason
	case Multiple:
		for i := range r.Solution {
			if r.Solution[i] != r.Second[i] {
				return fmt.Sprintf("the puzzle has several solutions: %s can be %d or %d, among others",
					cellName(i), min(r.Solution[i], r.Second[i]), max(r.Solution[i], r.Second[i]))
			}
		}
	}
	return "the puzzle is " + r.Outcome.String()
}

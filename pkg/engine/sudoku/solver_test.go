package sudoku

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// differential holds the fast solver to the plain reference on each puzzle:
// the same number of solutions up to limit 2 (the reference takes every
// branch in the same order of candidates, so with one solution they must
// agree on it) and solutions that pass Check.
func differential(t *testing.T, name string, gs []Grid, wantN int) {
	t.Helper()
	s := NewSolver()
	var p plain
	for i, g := range gs {
		n, _ := s.Solve(&g, 2)
		pn := p.solve(g, 2)
		if n != pn || (wantN >= 0 && n != wantN) {
			t.Errorf("%s #%d %s: fast %d solutions, reference %d, want %d", name, i+1, g, n, pn, wantN)
			continue
		}
		for j := range min(n, 2) {
			if err := Check(g, s.Solution(j)); err != nil {
				t.Errorf("%s #%d %s: solution %d %s: %v", name, i+1, g, j, s.Solution(j), err)
			}
		}
		if n == 1 && s.Solution(0) != p.sol[0] {
			t.Errorf("%s #%d %s: fast %s, reference %s", name, i+1, g, s.Solution(0), p.sol[0])
		}
		if n == 2 && s.Solution(0) == s.Solution(1) {
			t.Errorf("%s #%d %s: the two solutions are the same", name, i+1, g)
		}
	}
}

func TestDifferentialNorvigTop95(t *testing.T) {
	differential(t, "norvig-top95", corpus(t, "norvig-top95.txt.gz"), 1)
}

func TestDifferentialEuler96(t *testing.T) {
	differential(t, "euler96", corpus(t, "euler96.txt.gz"), 1)
}

// The whole of royle17 (every 97th puzzle with -short).
func TestDifferentialRoyle17(t *testing.T) {
	gs := corpus(t, "royle17.txt.gz")
	if testing.Short() {
		var sample []Grid
		for i := 0; i < len(gs); i += 97 {
			sample = append(sample, gs[i])
		}
		gs = sample
	}
	differential(t, "royle17", gs, 1)
}

// Every puzzle of Serg's benchmark has several solutions (SOURCES.md: 8
// have exactly 2, the rest 3 or more), by Classify and by the reference.
func TestSergAllMultiple(t *testing.T) {
	gs := corpus(t, "serg-benchmark.txt.gz")
	if len(gs) != 10000 {
		t.Fatalf("serg-benchmark: %d puzzles, want 10,000", len(gs))
	}
	s := NewSolver()
	var p plain
	exactlyTwo := 0
	for i, g := range gs {
		r := s.Classify(g)
		if r.Outcome != Multiple {
			t.Errorf("serg #%d %s: %v, want multiple", i+1, g, r.Outcome)
		}
		n, _ := s.Solve(&g, 3)
		if pn := p.solve(g, 3); pn != n {
			t.Errorf("serg #%d %s: fast %d solutions, reference %d (limit 3)", i+1, g, n, pn)
		}
		if n == 2 {
			exactlyTwo++
		}
	}
	if exactlyTwo != 8 {
		t.Errorf("serg: %d puzzles with exactly 2 solutions, want 8", exactlyTwo)
	}
}

// callBudget is a context that ends after a fixed number of polls: a
// strategy polls every pollMask+1 calls, so its runs stop after a fixed
// number of calls, whatever the machine's speed.
type callBudget struct {
	context.Context
	polls int
}

func (c *callBudget) Err() error {
	if c.polls--; c.polls < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// The fast solver against backtrack, the strategy that knows nothing but
// the rules, on every puzzle of euler96 and norvig-top95 to the end (393
// million backtrack calls in all, 116 million for the hardest puzzle:
// about 35 CPU-seconds, shared among the CPUs), and on every 1,000th
// puzzle of royle17 up to 10 million calls each: most 17-clue puzzles take
// backtrack tens of millions of calls or more (15 of these 50 did not end
// within 5 seconds, 53 to 61 million calls), so the plain reference covers
// all of royle17 instead (TestDifferentialRoyle17). The test fails if fewer royle17 puzzles end
// within the budget than the 20 measured when it was written (calls are
// counted, so the count is the same on any machine). With -short only
// euler96 runs (1.2 million calls for its 50 puzzles), the same
// comparison on fewer and easier puzzles.
func TestAgainstBacktrack(t *testing.T) {
	royle := corpus(t, "royle17.txt.gz")
	var sample []Grid
	for i := 0; i < len(royle); i += 1000 {
		sample = append(sample, royle[i])
	}
	for _, c := range []struct {
		name     string
		gs       []Grid
		maxCalls int64 // 0: to the end
		minEnded int   // puzzles that must end within maxCalls
		short    bool  // run with -short
	}{
		{"euler96", corpus(t, "euler96.txt.gz"), 0, 50, true},
		{"norvig-top95", corpus(t, "norvig-top95.txt.gz"), 0, 95, false},
		{"royle17 (every 1,000th)", sample, 10_000_000, 20, false},
	} {
		if testing.Short() && !c.short {
			t.Logf("%s: not run with -short (euler96 makes the same comparison)", c.name)
			continue
		}
		runs := backtrackAll(t, c.gs, c.maxCalls)
		s := NewSolver()
		ended := 0
		for i, r := range runs {
			if r.Outcome == TimedOut {
				continue
			}
			ended++
			if r.Outcome != Solved {
				t.Errorf("%s #%d: backtrack %v, want solved", c.name, i+1, r.Outcome)
				continue
			}
			g := c.gs[i]
			if n, _ := s.Solve(&g, 2); n != 1 || s.Solution(0) != r.Solution {
				t.Errorf("%s #%d: fast %d solutions %s, backtrack %s", c.name, i+1, n, s.Solution(0), r.Solution)
			}
		}
		limit := "to the end"
		if c.maxCalls > 0 {
			limit = fmt.Sprintf("within %d backtrack calls each", c.maxCalls)
		}
		t.Logf("%s: %d of %d puzzles compared (%s)", c.name, ended, len(c.gs), limit)
		if ended < c.minEnded {
			t.Errorf("%s: %d puzzles ended %s, want at least %d", c.name, ended, limit, c.minEnded)
		}
	}
}

// backtrackAll runs backtrack on every puzzle of gs, on all CPUs, each up to
// maxCalls calls (0: no limit; the run then ends TimedOut).
func backtrackAll(t *testing.T, gs []Grid, maxCalls int64) []Run {
	t.Helper()
	runs := make([]Run, len(gs))
	errs := make([]error, len(gs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(gs) {
					return
				}
				var ctx context.Context = context.Background()
				if maxCalls > 0 {
					ctx = &callBudget{Context: ctx, polls: int(maxCalls / (pollMask + 1))}
				}
				runs[i], errs[i] = RunStrategy(ctx, Backtrack, gs[i], nil)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("puzzle #%d: backtrack: %v", i+1, err)
		}
	}
	return runs
}

// Limits: 0 finds nothing, 1 stops at the first solution, and larger
// limits count exactly (the empty grid has more than 1,000 solutions; a
// grid with one empty unit of a known pattern has exactly 2).
func TestSolveLimits(t *testing.T) {
	s := NewSolver()
	var empty Grid
	for _, limit := range []int{0, 1, 2, 1000} {
		if n, _ := s.Solve(&empty, limit); n != limit {
			t.Errorf("empty grid, limit %d: %d solutions", limit, n)
		}
	}
	// Take a solution and empty a rectangle of two digits swapped between
	// two rows and two columns in the same band and stack: a deadly
	// pattern with exactly two solutions.
	sol := mustParse(t, known[0].solution)
	for r2 := 0; r2 < 9; r2++ {
		for c1 := 0; c1 < 9; c1++ {
			for c2 := c1 + 1; c2 < 9; c2++ {
				r1 := 0
				if r2 == r1 || r2/3 != r1/3 && c1/3 != c2/3 {
					continue
				}
				a, b := sol[9*r1+c1], sol[9*r1+c2]
				if sol[9*r2+c1] != b || sol[9*r2+c2] != a {
					continue
				}
				g := sol
				g[9*r1+c1], g[9*r1+c2], g[9*r2+c1], g[9*r2+c2] = 0, 0, 0, 0
				if n, _ := s.Solve(&g, 5); n != 2 {
					t.Errorf("deadly rectangle r1c%d r%dc%d: %d solutions, want 2", c1+1, r2+1, c2+1, n)
				}
				return
			}
		}
	}
	t.Fatal("no deadly rectangle in row 1 of the known solution")
}

// Solving allocates nothing once the solver exists.
func TestZeroAllocs(t *testing.T) {
	gs := corpus(t, "norvig-top95.txt.gz")
	s := NewSolver()
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		s.Classify(gs[i%len(gs)])
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per puzzle, want 0", allocs)
	}
}

// Every puzzle of the complete 17-clue list is unique (SOURCES.md): the
// whole file, through Classify, as the corpus jobs will run it.
func TestRoyle17AllUnique(t *testing.T) {
	gs := corpus(t, "royle17.txt.gz")
	if len(gs) != 49158 {
		t.Fatalf("royle17: %d puzzles, want 49,158", len(gs))
	}
	s := NewSolver()
	for i, g := range gs {
		if r := s.Classify(g); r.Outcome != Unique {
			t.Errorf("royle17 #%d %s: %v, want unique", i+1, g, r.Outcome)
		}
	}
}

// FuzzSolve holds the fast solver to the reference on any grid that
// parses: the same count up to 2, and Classify's own checks (which panic
// on a solution that fails Check).
func FuzzSolve(f *testing.F) {
	for _, k := range known {
		f.Add(k.puzzle)
	}
	f.Add("12345678." + strings.Repeat(".", 8) + "9" + strings.Repeat(".", 63))
	f.Add(strings.Repeat(".", 81))
	s := NewSolver()
	var p plain
	f.Fuzz(func(t *testing.T, line string) {
		g, err := ParseLine(line)
		if err != nil {
			return
		}
		r := s.Classify(g)
		n := p.solve(g, 2)
		want := map[int]Outcome{0: Unsolvable, 1: Unique, 2: Multiple}[n]
		if g.Conflict() != nil {
			want = Invalid
		}
		if r.Outcome != want {
			t.Fatalf("%s: %v, reference %d solutions", g, r.Outcome, n)
		}
		if n == 1 && r.Solution != p.sol[0] {
			t.Fatalf("%s: %s, reference %s", g, r.Solution, p.sol[0])
		}
	})
}

// transform applies a validity-preserving transformation to g: digits
// relabelled, bands and rows within bands permuted, stacks and columns
// within stacks permuted, optionally transposed.
type transform struct {
	digit     [10]uint8
	row, col  [9]int
	transpose bool
}

func randomTransform(rng *rand.Rand) transform {
	var t transform
	for i, d := range rng.Perm(9) {
		t.digit[i+1] = uint8(d + 1)
	}
	lines := func() (p [9]int) {
		bands := rng.Perm(3)
		for b := range 3 {
			for r, x := range rng.Perm(3) {
				p[3*b+r] = 3*bands[b] + x
			}
		}
		return p
	}
	t.row, t.col, t.transpose = lines(), lines(), rng.IntN(2) == 1
	return t
}

func (t transform) apply(g Grid) Grid {
	var out Grid
	for r := range 9 {
		for c := range 9 {
			v := t.digit[g[9*t.row[r]+t.col[c]]]
			if t.transpose {
				out[9*c+r] = v
			} else {
				out[9*r+c] = v
			}
		}
	}
	return out
}

// Metamorphic: a transformed puzzle has the transformed solution, as the
// corpus jobs' scale test assumes when it makes puzzles this way.
func TestTransformInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 96))
	s := NewSolver()
	gs := corpus(t, "norvig-top95.txt.gz")
	royle := corpus(t, "royle17.txt.gz")
	for i := 0; i < len(royle); i += 499 {
		gs = append(gs, royle[i])
	}
	for i, g := range gs {
		r := s.Classify(g)
		for range 3 {
			tr := randomTransform(rng)
			tg := tr.apply(g)
			if tg.Clues() != g.Clues() {
				t.Fatalf("transform changed the clues of %s", g)
			}
			tres := s.Classify(tg)
			if tres.Outcome != r.Outcome || tres.Solution != tr.apply(r.Solution) {
				t.Errorf("#%d %s transformed to %s: %v %s, want %v %s", i+1, g, tg, tres.Outcome, tres.Solution, r.Outcome, tr.apply(r.Solution))
			}
		}
	}
}

// Why names the evidence of each outcome other than unique.
func TestResultWhy(t *testing.T) {
	euler01 := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	for _, c := range []struct{ puzzle, want string }{
		{euler01, ""},
		{"44" + strings.Repeat(".", 79), "the givens conflict: row 1 has two 4s (r1c1, r1c2)"},
		{"12345678." + "........9" + strings.Repeat(".", 63), "the puzzle has no solution: r1c9 has no candidate"},
		{strings.Repeat(".", 81), "the puzzle has several solutions: r"},
	} {
		g, err := ParseLine(c.puzzle)
		if err != nil {
			t.Fatal(err)
		}
		r := NewSolver().Classify(g)
		if got := r.Why(); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s: Why %q, want %q", c.puzzle, got, c.want)
		}
		if r.Outcome == Multiple {
			var diff int
			for i := range r.Solution {
				if r.Solution[i] != r.Second[i] {
					diff = i
					break
				}
			}
			want := fmt.Sprintf("%s can be %d or %d, among others", cellName(diff), min(r.Solution[diff], r.Second[diff]), max(r.Solution[diff], r.Second[diff]))
			if !strings.HasSuffix(r.Why(), want) {
				t.Errorf("Why %q, want it to end %q", r.Why(), want)
			}
		}
	}
}

package solve

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// TestSolveKnownValues checks the values of the games whose values are
// published (3,3,3 draw; 4,4,3 win; 4,4,4 draw; 5,5,4 draw; 6,5,4 win) and
// those this solver found and TestSolveAgainstMinimax proves by exhaustive
// minimax where it can (3,4,3, 4,3,3, 4,5,4 and 5,4,4).
func TestSolveKnownValues(t *testing.T) {
	race.SkipSerial(t)
	cases := []struct {
		m, n, k int
		want    mnk.Value
	}{
		{3, 3, 3, mnk.Drawn}, {4, 4, 3, mnk.Win}, {4, 4, 4, mnk.Drawn}, {3, 4, 3, mnk.Win}, {4, 3, 3, mnk.Win},
		{4, 5, 4, mnk.Drawn}, {5, 4, 4, mnk.Drawn}, {5, 5, 4, mnk.Drawn}, {6, 5, 4, mnk.Win}, {5, 6, 4, mnk.Win},
		{1, 1, 1, mnk.Win}, {2, 2, 2, mnk.Win}, {3, 3, 2, mnk.Win}, {1, 5, 2, mnk.Win}, {1, 5, 3, mnk.Drawn}, {1, 2, 2, mnk.Drawn}, {1, 4, 2, mnk.Win},
	}
	for _, c := range cases {
		g := mnk.MustNew(c.m, c.n, c.k)
		s := New(g, 16<<20)
		v, err := s.Solve(context.Background(), mnk.Position{})
		if err != nil || v != c.want {
			t.Errorf("%d,%d,%d: value %v (%v), want %v", c.m, c.n, c.k, v, err, c.want)
		}
	}
}

// TestSolveAgainstMinimax compares the solver, with its table and without,
// with the exhaustive memoised minimax of count.Counter.Count on every reachable
// position of the small games and of 3,4,3 and 4,3,3, and on random
// positions of 4x4.
func TestSolveAgainstMinimax(t *testing.T) {
	race.SkipSerial(t)
	games := ref.SmallGames()
	games = append(games, ref.Games("3,4,3 4,3,3 3,4,4 2,5,2")...)
	ctx := context.Background()
	for _, r := range games {
		g := mnk.MustNew(r.M, r.N, r.K)
		c := count.New(g)
		with, without := New(g, 1<<20), New(g, 0)
		for _, p := range ref.AllPositions(g) {
			want := c.Count(p).Value
			v1, err1 := with.Solve(ctx, p)
			v2, err2 := without.Solve(ctx, p)
			if err1 != nil || err2 != nil || v1 != want || v2 != want {
				t.Fatalf("%s %s: solver %v (table) %v (no table), minimax %v", ref.Name(r), g.String(p), v1, v2, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range ref.Games("4,4,3 4,4,4 4,5,4") {
		g := mnk.MustNew(r.M, r.N, r.K)
		c := count.New(g)
		s := New(g, 4<<20)
		n := 300
		if r.Cells() > 16 {
			n = 40 // the counter's memo grows fast from shallow positions
		}
		for range n {
			plies := g.Cells()/2 + rng.IntN(g.Cells()/2)
			if r.Cells() > 16 {
				plies = 9 + rng.IntN(8)
			}
			p, _ := ref.RandomGame(g, rng, plies)
			want := c.Count(p).Value
			if v, err := s.Solve(ctx, p); err != nil || v != want {
				t.Fatalf("%s %s: solver %v (%v), minimax %v", ref.Name(r), g.String(p), v, err, want)
			}
			if v, _ := New(g, 0).Solve(ctx, p); v != want {
				t.Fatalf("%s %s: solver without table %v, minimax %v", ref.Name(r), g.String(p), v, want)
			}
		}
	}
}

// TestMoveValues checks the value of every first move of 3,3,3 (all draw),
// 3,4,3 and 4,3,3 against minimax, and records the latter two.
func TestMoveValues(t *testing.T) {
	cases := []struct {
		m, n, k int
		want    string // first player's value of each cell, row-major
	}{
		{3, 3, 3, "ddd/ddd/ddd"},
		{3, 4, 3, "wwww/lwwl/wwww"},
		{4, 3, 3, "wlw/www/www/wlw"},
	}
	ctx := context.Background()
	for _, c := range cases {
		g := mnk.MustNew(c.m, c.n, c.k)
		counter := count.New(g)
		mv, err := New(g, 1<<20).MoveValues(ctx, mnk.Position{})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, m := range mv {
			if i > 0 && m.Cell/8 != mv[i-1].Cell/8 {
				got += "/"
			}
			got += m.Value.String()[:1]
			q, _ := g.Play(mnk.Position{}, m.Cell)
			if want := -counter.Count(q).Value; want != m.Value {
				t.Errorf("%d,%d,%d move %d: solver %v, minimax %v", c.m, c.n, c.k, m.Cell, m.Value, want)
			}
		}
		if got != c.want {
			t.Errorf("%d,%d,%d move values %s, want %s", c.m, c.n, c.k, got, c.want)
		}
	}
}

// TestPV plays each principal variation out: every move legal, the game
// ends with the value the solver gave.
func TestPV(t *testing.T) {
	ctx := context.Background()
	for _, r := range ref.Games("3,3,3 4,4,3 3,4,3 4,4,4 5,5,4") {
		g := mnk.MustNew(r.M, r.N, r.K)
		s := New(g, 16<<20)
		v, err := s.Solve(ctx, mnk.Position{})
		if err != nil {
			t.Fatal(err)
		}
		pv, err := s.PV(ctx, mnk.Position{}, v)
		if err != nil {
			t.Fatalf("%s: %v", ref.Name(r), err)
		}
		p, res := mnk.Position{}, mnk.Ongoing
		for _, c := range pv {
			p, res = g.Play(p, c)
		}
		var end mnk.Value // for the first player
		switch {
		case res == mnk.XWin:
			end = mnk.Win
		case res == mnk.OWin:
			end = mnk.Loss
		case res == mnk.Draw:
			end = mnk.Drawn
		default:
			t.Fatalf("%s: pv %v ends in an ongoing game", ref.Name(r), pv)
		}
		if end != v {
			t.Errorf("%s: pv %v ends in %v, want %v", ref.Name(r), pv, res, v)
		}
	}
}

// mapValueCache is a ValueCache for tests.
type mapValueCache map[mnk.Position]mnk.Value

func (m mapValueCache) LoadValue(p mnk.Position) (mnk.Value, bool) { v, ok := m[p]; return v, ok }
func (m mapValueCache) StoreValue(p mnk.Position, v mnk.Value)     { m[p] = v }

// TestSolveCache: a solver fills the cache with exact values of canonical
// shallow positions, and a fresh solver with that cache reuses them.
func TestSolveCache(t *testing.T) {
	race.SkipSerial(t)
	g := mnk.MustNew(4, 4, 4)
	ctx := context.Background()
	cache := mapValueCache{}
	s := New(g, 1<<20)
	s.SetCache(cache, 3)
	want, _ := s.Solve(ctx, mnk.Position{})
	if len(cache) == 0 {
		t.Fatal("nothing cached")
	}
	c := count.New(g)
	for p, v := range cache {
		if p.Ply() > 3 || !g.IsCanonical(p) {
			t.Errorf("cached %s: want canonical positions of at most 3 stones", g.String(p))
		}
		if mv := c.Count(p).Value; mv != v {
			t.Errorf("cached %s = %v, minimax %v", g.String(p), v, mv)
		}
	}
	s2 := New(g, 1<<20)
	s2.SetCache(cache, 3)
	if v, _ := s2.Solve(ctx, mnk.Position{}); v != want || s2.CacheHits() == 0 || s2.Nodes() >= s.Nodes() {
		t.Errorf("with a warm cache: value %v (want %v), %d hits, %d nodes (cold %d)", v, want, s2.CacheHits(), s2.Nodes(), s.Nodes())
	}
}

func TestSolveCancel(t *testing.T) {
	g := mnk.MustNew(6, 6, 5) // far too long to finish
	ctx, cancel := context.WithCancel(context.Background())
	s := New(g, 1<<20)
	s.SetCache(mapValueCache{}, 0)
	cancel()
	if _, err := s.Solve(ctx, mnk.Position{}); err != context.Canceled {
		t.Errorf("Solve with a cancelled context: %v, want %v", err, context.Canceled)
	}
	if _, err := New(mnk.MustNew(7, 7, 4), 1<<20).Solve(ctx, mnk.Position{}); err != mnk.ErrTooBig {
		t.Errorf("7x7: %v, want %v", err, mnk.ErrTooBig)
	}
}

func TestSolveAllocs(t *testing.T) {
	g := mnk.MustNew(4, 4, 4)
	s := New(g, 1<<20)
	ctx := context.Background()
	s.Solve(ctx, mnk.Position{})
	if n := testing.AllocsPerRun(3, func() {
		s.Clear()
		s.Solve(ctx, mnk.Position{})
	}); n != 0 {
		t.Errorf("Solve: %v allocations, want 0", n)
	}
}

func benchSolve(b *testing.B, m, n, k int, want mnk.Value) {
	g := mnk.MustNew(m, n, k)
	s := New(g, 64<<20)
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		s.Clear() // a cold table every time, without allocating a new one
		before := s.Nodes()
		v, err := s.Solve(context.Background(), mnk.Position{})
		if err != nil || v != want {
			b.Fatalf("value %v (%v), want %v", v, err, want)
		}
		nodes += s.Nodes() - before
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

func BenchmarkSolve444(b *testing.B) { benchSolve(b, 4, 4, 4, mnk.Drawn) }
func BenchmarkSolve554(b *testing.B) { benchSolve(b, 5, 5, 4, mnk.Drawn) }
func BenchmarkSolve654(b *testing.B) { benchSolve(b, 6, 5, 4, mnk.Win) }

func ExampleSolver_Solve() {
	g := mnk.MustNew(5, 5, 4)
	v, _ := New(g, 16<<20).Solve(context.Background(), mnk.Position{})
	fmt.Println("5,5,4:", v)
	// Output: 5,5,4: draw
}

// refSolver is the second method for boards too big for the exhaustive
// minimax: a plain fail-soft alpha-beta with the rules of ref, a map of
// bounds by canonical position, moves centre-first, and no pruning beyond
// alpha-beta and taking an immediate win.
type refSolver struct {
	r     ref.Game
	g     *mnk.Game
	memo  map[mnk.Position][2]int8
	order [][2]int
}

func newRefSolver(r ref.Game) *refSolver {
	s := &refSolver{r: r, g: mnk.MustNew(r.M, r.N, r.K), memo: map[mnk.Position][2]int8{}}
	s.order = append(s.order, r.Moves(mnk.Position{}).List()...)
	dist := func(m [2]int) float64 {
		dr, dc := float64(m[0])-float64(r.M-1)/2, float64(m[1])-float64(r.N-1)/2
		return dr*dr + dc*dc
	}
	for i := 1; i < len(s.order); i++ {
		for j := i; j > 0 && dist(s.order[j]) < dist(s.order[j-1]); j-- {
			s.order[j], s.order[j-1] = s.order[j-1], s.order[j]
		}
	}
	return s
}

func (s *refSolver) value(p mnk.Position, alpha, beta int8) int8 {
	for _, m := range s.order {
		if !ref.Has(p.X|p.O, m[0], m[1]) {
			if _, res := s.r.Play(p, m[0], m[1]); res == mnk.XWin || res == mnk.OWin {
				return 1
			}
		}
	}
	key, _ := s.g.Canonical(p)
	lo, hi := int8(-1), int8(1)
	if b, ok := s.memo[key]; ok {
		lo, hi = b[0], b[1]
	}
	if lo >= beta || lo == hi {
		return lo
	}
	if hi <= alpha {
		return hi
	}
	a, b := max(alpha, lo), min(beta, hi)
	a0, best := a, int8(-2)
	for _, m := range s.order {
		if ref.Has(p.X|p.O, m[0], m[1]) {
			continue
		}
		q, res := s.r.Play(p, m[0], m[1])
		v := int8(0)
		if res == mnk.Ongoing {
			v = -s.value(q, -b, -a)
		}
		best = max(best, v)
		a = max(a, v)
		if a >= b {
			break
		}
	}
	switch {
	case best >= b:
		lo = max(lo, best)
	case best <= a0:
		hi = min(hi, best)
	default:
		lo, hi = best, best
	}
	s.memo[key] = [2]int8{lo, hi}
	return best
}

// deep adds the slow differential cases:
// go test -run Reference ./pkg/engine/mnk/solve -args -mnk.deep
var deep = flag.Bool("mnk.deep", false, "also prove 5,5,4 with the reference alpha-beta (slow: it has none of the solver's prunings)")

// TestSolveAgainstReference proves the values of 4,5,4 and 5,4,4 and of
// their first moves (every one a draw), and of the 4x4 games (with
// -mnk.deep of 5,5,4 too) a second way, with refSolver.
func TestSolveAgainstReference(t *testing.T) {
	for _, r := range ref.Games("4,4,3 4,4,4 4,5,4 5,4,4 5,5,4") {
		if r.Cells() > 16 && testing.Short() {
			t.Logf("%s: skipped under -short; 4,4,4 covers the same code", ref.Name(r))
			continue
		}
		if r.Cells() > 20 && !*deep {
			t.Logf("%s: run with -mnk.deep (the reference is slow)", ref.Name(r))
			continue
		}
		s := New(mnk.MustNew(r.M, r.N, r.K), 16<<20)
		want, err := s.Solve(context.Background(), mnk.Position{})
		rs := newRefSolver(r)
		if got := mnk.Value(rs.value(mnk.Position{}, -1, 1)); err != nil || got != want {
			t.Errorf("%s: solver %v (%v), reference alpha-beta %v", ref.Name(r), want, err, got)
		}
		t.Logf("%s: %v; the reference kept %d positions", ref.Name(r), want, len(rs.memo))
		if r.Cells() > 20 {
			continue
		}
		// And the value of every first move.
		mv, _ := s.MoveValues(context.Background(), mnk.Position{})
		for _, m := range mv {
			q, res := r.Play(mnk.Position{}, m.Cell/8, m.Cell%8)
			want := mnk.Win
			if res == mnk.Ongoing {
				want = -mnk.Value(rs.value(q, -1, 1))
			}
			if want != m.Value {
				t.Errorf("%s: first move %d,%d: solver %v, reference alpha-beta %v", ref.Name(r), m.Cell/8, m.Cell%8, m.Value, want)
			}
		}
	}
}

// TestSolverTableKeys checks that the table tells positions apart exactly:
// the number in base 3 of the fullest 6x6 board fits the bijection's 57
// bits, and no two of many random positions of 6x6 and 5x7 share a bucket
// and a quotient in the smallest table (the most quotient bits the entry
// must hold).
func TestSolverTableKeys(t *testing.T) {
	g := mnk.MustNew(6, 6, 4)
	tt := NewTable(g, 64)
	full := mnk.Position{O: g.Mask()}
	if v := tt.ternary(full); v >= 1<<keyBits || v != pow(3, 36)-1 {
		t.Errorf("6x6 filled with O is %d in base 3, want 3^36-1 = %d, under 2^%d", v, pow(3, 36)-1, keyBits)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, g := range []*mnk.Game{mnk.MustNew(6, 6, 4), mnk.MustNew(5, 7, 4)} {
		tt := NewTable(g, 64)
		if len(tt.slots) != ttMinBuckets*ttBucket {
			t.Fatalf("smallest table: %d slots, want %d", len(tt.slots), ttMinBuckets*ttBucket)
		}
		seen := map[[2]uint64]mnk.Position{}
		for range 200_000 {
			var p mnk.Position
			for e := g.Mask(); e != 0; e &= e - 1 {
				switch rng.IntN(3) {
				case 1:
					p.X |= e & -e
				case 2:
					p.O |= e & -e
				}
			}
			b, q := tt.key(tt.ternary(p))
			if q >= 1<<(64-metaBits) {
				t.Fatalf("%s: quotient %#x does not fit %d bits", g.String(p), q, 64-metaBits)
			}
			if o, ok := seen[[2]uint64{b, q}]; ok && o != p {
				t.Fatalf("%s and %s share bucket %d and quotient %#x", g.String(o), g.String(p), b, q)
			}
			seen[[2]uint64{b, q}] = p
		}
	}
}

func pow(b, e uint64) uint64 {
	r := uint64(1)
	for range e {
		r *= b
	}
	return r
}

// TestSharedSolverTable solves the positions after two moves of 4,5,4 on
// four goroutines with Solvers of one table, each in an order of its own,
// and checks every value against a Solver of its own.
func TestSharedSolverTable(t *testing.T) {
	table := func(g *mnk.Game) func() ref.SolveFunc {
		tt := NewTable(g, 1<<20) // small: entries are replaced while others read them
		return func() ref.SolveFunc { return tt.NewSolver().Solve }
	}
	ref.CheckSharedTable(t, func(g *mnk.Game) ref.SolveFunc { return New(g, 16<<20).Solve }, table)
}

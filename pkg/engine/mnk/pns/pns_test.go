package pns

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
)

// TestProofAgainstMinimax compares the proof-number solver, with a table
// and with the smallest one (one bucket: entries are replaced all the
// time), with the exhaustive minimax of count.Counter.Count on every reachable
// position of the small games and of 3,4,3, 4,3,3, 3,4,4 and 2,5,2, and on
// random positions of 4x4 and 4,5,4.
func TestProofAgainstMinimax(t *testing.T) {
	race.SkipSerial(t)
	games := ref.SmallGames()
	games = append(games, ref.Games("3,4,3 4,3,3 3,4,4 2,5,2 1,6,2")...)
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
				t.Fatalf("%s %s: proof-number solver %v, %v (table), %v, %v (one bucket); minimax %v",
					ref.Name(r), g.String(p), v1, err1, v2, err2, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
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
			p, res := ref.RandomGame(g, rng, plies)
			if res != mnk.Ongoing {
				continue
			}
			want := c.Count(p).Value
			if v, err := s.Solve(ctx, p); err != nil || v != want {
				t.Fatalf("%s %s: proof-number solver %v (%v), minimax %v", ref.Name(r), g.String(p), v, err, want)
			}
			if v, _ := New(g, 0).Solve(ctx, p); v != want {
				t.Fatalf("%s %s: proof-number solver with one bucket %v, minimax %v", ref.Name(r), g.String(p), v, want)
			}
		}
	}
}

// TestProofAgainstSolver compares the value of the empty board and of every
// first move with the alpha-beta Solver's: on every board up to 4x4 for
// every k, and on a sample of larger boards.
func TestProofAgainstSolver(t *testing.T) {
	race.SkipSerial(t)
	var games []ref.Game
	for m := 1; m <= 4; m++ {
		for n := 1; n <= 4; n++ {
			for k := 1; k <= max(m, n); k++ {
				games = append(games, ref.Game{M: m, N: n, K: k})
			}
		}
	}
	// Boards where alpha-beta also finishes quickly: not 5,5,5 or 6,6,5,
	// whose draws it proves only with far more nodes, or not at all.
	games = append(games, ref.Games("4,5,3 4,5,4 5,4,4 4,5,5 3,5,3 3,6,3 3,7,3 3,8,3 2,8,2 5,5,3 3,8,5")...)
	if !testing.Short() {
		games = append(games, ref.Games("5,5,4 6,5,4 4,6,4 3,8,4")...)
	}
	ctx := context.Background()
	for _, r := range games {
		g := mnk.MustNew(r.M, r.N, r.K)
		ab, pn := solve.New(g, 16<<20), New(g, 16<<20)
		want, err := ab.Solve(ctx, mnk.Position{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pn.Solve(ctx, mnk.Position{})
		if err != nil || got != want {
			t.Errorf("%s: proof-number solver %v (%v), alpha-beta %v", ref.Name(r), got, err, want)
		}
		wantMoves, err := ab.MoveValues(ctx, mnk.Position{})
		if err != nil {
			t.Fatal(err)
		}
		gotMoves, err := pn.MoveValues(ctx, mnk.Position{})
		if err != nil || fmt.Sprint(gotMoves) != fmt.Sprint(wantMoves) {
			t.Errorf("%s: first moves %v (%v), alpha-beta %v", ref.Name(r), gotMoves, err, wantMoves)
		}
	}
}

// TestProofEveryBoardSmallK solves every board shape from 1x1 to 8x8
// with k up to 3 (quick, and the most windows per board: 8,8,2 has 210),
// against the alpha-beta Solver on the boards it takes; the others (more
// than 36 cells, so both sides of at least 5) are first-player wins with k
// of 3 or less.
func TestProofEveryBoardSmallK(t *testing.T) {
	ctx := context.Background()
	for rows := 1; rows <= 8; rows++ {
		for cols := 1; cols <= 8; cols++ {
			for k := 1; k <= min(3, max(rows, cols)); k++ {
				g := mnk.MustNew(rows, cols, k)
				got, err := New(g, 1<<20).Solve(ctx, mnk.Position{})
				if err != nil {
					t.Fatalf("%s: %v", g.Spec(), err)
				}
				want := mnk.Win
				if g.Cells() <= solve.MaxCells {
					want, _ = solve.New(g, 1<<20).Solve(ctx, mnk.Position{})
				}
				if got != want {
					t.Errorf("%s: proof-number solver %v, want %v", g.Spec(), got, want)
				}
			}
		}
	}
}

// TestProofKnownValues checks the published values: 3,3,3, 4,4,4, 5,5,4,
// 5,5,5, 6,6,5 and 7,7,5 draws (7,7,5: Hsu et al. 2020); 4,4,3, 6,5,4 and
// 8,8,4 first-player wins.
func TestProofKnownValues(t *testing.T) {
	race.SkipSerial(t)
	cases := []struct {
		m, n, k int
		want    mnk.Value
		deep    bool
	}{
		{3, 3, 3, mnk.Drawn, false}, {4, 4, 3, mnk.Win, false}, {4, 4, 4, mnk.Drawn, false}, {5, 5, 4, mnk.Drawn, false},
		{6, 5, 4, mnk.Win, false}, {5, 5, 5, mnk.Drawn, false}, {6, 6, 5, mnk.Drawn, false}, {7, 7, 5, mnk.Drawn, true},
		{8, 8, 4, mnk.Win, true},
	}
	for _, c := range cases {
		if c.deep && testing.Short() {
			t.Logf("%d,%d,%d: skipped under -short; 6,6,5 and 6,5,4 cover the same code", c.m, c.n, c.k)
			continue
		}
		g := mnk.MustNew(c.m, c.n, c.k)
		s := New(g, 64<<20)
		v, err := s.Solve(context.Background(), mnk.Position{})
		if err != nil || v != c.want {
			t.Errorf("%s: value %v (%v), want %v", g.Spec(), v, err, c.want)
		}
		t.Logf("%s: %v, %d nodes, %d table entries", g.Spec(), v, s.Nodes(), s.Table().Entries())
	}
}

// TestProofSmallTable: with a table that holds a small part of the
// positions a proof meets (512 entries for 5,5,4, which fills 23,000 in a
// large one; 2,048 for 7,7,5, which fills 14,000), replacing the entries
// with the least work keeps the search going: the value is right, in
// less than five times the nodes.
func TestProofSmallTable(t *testing.T) {
	for _, c := range []struct {
		m, n, k, small int
		want           mnk.Value
	}{{5, 5, 4, 16 << 10, mnk.Drawn}, {7, 7, 5, 64 << 10, mnk.Drawn}} {
		g := mnk.MustNew(c.m, c.n, c.k)
		if testing.Short() && g.Cells() > 25 {
			t.Logf("%s: skipped under -short; 5,5,4 covers the same code", g.Spec())
			continue
		}
		large, small := New(g, 64<<20), New(g, c.small)
		v1, err1 := large.Solve(context.Background(), mnk.Position{})
		v2, err2 := small.Solve(context.Background(), mnk.Position{})
		if err1 != nil || err2 != nil || v1 != c.want || v2 != c.want || small.Nodes() > 5*large.Nodes() {
			t.Errorf("%s: %v (%v) in %d nodes with 64 MB, %v (%v) in %d with %d entries; want %v, under five times the nodes",
				g.Spec(), v1, err1, large.Nodes(), v2, err2, small.Nodes(), len(small.Table().entries), c.want)
		}
		t.Logf("%s: %d nodes with 64 MB, %d with %d entries", g.Spec(), large.Nodes(), small.Nodes(), len(small.Table().entries))
	}
}

// TestProofPV plays each principal variation out: every move legal, the
// game ends with the value the solver gave.
func TestProofPV(t *testing.T) {
	ctx := context.Background()
	for _, r := range ref.Games("3,3,3 4,4,3 3,4,3 4,4,4 5,5,4 5,5,5") {
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
		end := map[mnk.Result]mnk.Value{mnk.XWin: mnk.Win, mnk.OWin: mnk.Loss, mnk.Draw: mnk.Drawn}
		if w, ok := end[res]; !ok || w != v {
			t.Errorf("%s: pv %v ends %v, want a game that ends with %v for the first player", ref.Name(r), pv, res, v)
		}
	}
}

// TestPairings checks every pairing the solver finds on random positions,
// independently of the search that found it: the pairs are disjoint pairs
// of empty cells and every window free of the defender's stones holds one.
// The empty 5x5 board with k = 5 has one (twelve pairs, one per line).
func TestPairings(t *testing.T) {
	g := mnk.MustNew(5, 5, 5)
	s := New(g, 0)
	if !s.pairable(0, g.Mask()) || s.pairLen != 12 {
		t.Errorf("5,5,5 empty board: pairable %v with %d pairs, want 12 pairs", s.pairable(0, g.Mask()), s.pairLen)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	found := 0
	for _, spec := range ref.Games("5,5,5 6,6,5 7,7,5 8,8,5 6,6,4 8,8,6") {
		g := mnk.MustNew(spec.M, spec.N, spec.K)
		s := New(g, 0)
		for range 3000 {
			p, res := ref.RandomGame(g, rng, rng.IntN(g.Cells()/2))
			if res != mnk.Ongoing {
				continue
			}
			def := p.O // O defends against X
			if rng.IntN(2) == 0 {
				def = p.X
			}
			empty := g.Empty(p)
			if !s.pairable(def, empty) {
				continue
			}
			found++
			var used uint64
			for _, pr := range s.pairs[:s.pairLen] {
				if bits.OnesCount64(pr) != 2 || pr&empty != pr || pr&used != 0 {
					t.Fatalf("%s %s: pair %#x is not two empty cells apart from the others", g.Spec(), g.String(p), pr)
				}
				used |= pr
			}
			for _, w := range g.Windows() {
				if w&def != 0 {
					continue
				}
				covered := false
				for _, pr := range s.pairs[:s.pairLen] {
					covered = covered || w&pr == pr
				}
				if !covered {
					t.Fatalf("%s %s: window %#x holds no pair", g.Spec(), g.String(p), w)
				}
			}
		}
	}
	if found < 100 {
		t.Errorf("%d pairings found in random positions, want 100 or more", found)
	}
}

// TestProofLimits: a node budget stops the search at exactly that many
// nodes with ErrNodeLimit, a cancelled context with its error, and the
// solver, and its table, give the right value afterwards.
func TestProofLimits(t *testing.T) {
	g := mnk.MustNew(5, 5, 4)
	s := New(g, 1<<20)
	s.SetNodeLimit(1000)
	if _, err := s.Solve(context.Background(), mnk.Position{}); !errors.Is(err, mnk.ErrNodeLimit) || s.Nodes() != 1000 {
		t.Errorf("budget 1,000: %v after %d nodes, want ErrNodeLimit after 1,000", err, s.Nodes())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.SetNodeLimit(0)
	if _, err := s.Solve(ctx, mnk.Position{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want %v", err, context.Canceled)
	}
	if v, err := s.Solve(context.Background(), mnk.Position{}); err != nil || v != mnk.Drawn {
		t.Errorf("after the stops: %v (%v), want a draw", v, err)
	}
}

func TestProofAllocs(t *testing.T) {
	g := mnk.MustNew(5, 5, 4)
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

// TestSharedProofTable solves the positions after two moves of 4,5,4 on
// four goroutines with solvers of one small table, each in an order of its
// own, and checks every value against a solver of its own.
func TestSharedProofTable(t *testing.T) {
	table := func(g *mnk.Game) func() ref.SolveFunc {
		tt := NewTable(g, 64<<10) // small: entries are replaced while others read them
		return func() ref.SolveFunc { return tt.NewSolver().Solve }
	}
	ref.CheckSharedTable(t, func(g *mnk.Game) ref.SolveFunc { return New(g, 16<<20).Solve }, table)
}

func benchProof(b *testing.B, m, n, k int, want mnk.Value, ttBytes int) {
	benchProofZones(b, m, n, k, want, ttBytes, false)
}

// benchProofZones is benchProof with relevance zones on or off.
func benchProofZones(b *testing.B, m, n, k int, want mnk.Value, ttBytes int, zones bool) {
	benchProofWith(b, m, n, k, want, ttBytes, zones, false)
}

// benchProofWith is benchProof with relevance zones and set matching on
// or off.
func benchProofWith(b *testing.B, m, n, k int, want mnk.Value, ttBytes int, zones, matching bool) {
	g := mnk.MustNew(m, n, k)
	s := New(g, ttBytes)
	s.SetZones(zones)
	s.SetMatching(matching)
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

func BenchmarkProof554(b *testing.B) { benchProof(b, 5, 5, 4, mnk.Drawn, 64<<20) }
func BenchmarkProof654(b *testing.B) { benchProof(b, 6, 5, 4, mnk.Win, 64<<20) }

// The proofs of 5,5,5 and 6,6,5 take a few dozen nodes: a small table, so
// that clearing it does not make the time.
func BenchmarkProof555(b *testing.B) { benchProof(b, 5, 5, 5, mnk.Drawn, 64<<10) }
func BenchmarkProof665(b *testing.B) { benchProof(b, 6, 6, 5, mnk.Drawn, 64<<10) }

// BenchmarkProof775 proves 7,7,5 a draw; run it with -benchtime 1x.
func BenchmarkProof775(b *testing.B) { benchProof(b, 7, 7, 5, mnk.Drawn, 16<<20) }

// BenchmarkProof785 proves 7,8,5 a draw; run it with -benchtime 1x.
func BenchmarkProof785(b *testing.B) { benchProof(b, 7, 8, 5, mnk.Drawn, 1<<30) }

// The same proofs with relevance zones (zones.go).
func BenchmarkProof554Zones(b *testing.B) { benchProofZones(b, 5, 5, 4, mnk.Drawn, 64<<20, true) }
func BenchmarkProof654Zones(b *testing.B) { benchProofZones(b, 6, 5, 4, mnk.Win, 64<<20, true) }
func BenchmarkProof775Zones(b *testing.B) { benchProofZones(b, 7, 7, 5, mnk.Drawn, 16<<20, true) }
func BenchmarkProof785Zones(b *testing.B) { benchProofZones(b, 7, 8, 5, mnk.Drawn, 1<<30, true) }

// The same proofs with relevance zones and set matching (matching.go).
func BenchmarkProof454Matching(b *testing.B) {
	benchProofWith(b, 4, 5, 4, mnk.Drawn, 64<<20, true, true)
}
func BenchmarkProof554Matching(b *testing.B) {
	benchProofWith(b, 5, 5, 4, mnk.Drawn, 64<<20, true, true)
}
func BenchmarkProof654Matching(b *testing.B) { benchProofWith(b, 6, 5, 4, mnk.Win, 64<<20, true, true) }
func BenchmarkProof775Matching(b *testing.B) {
	benchProofWith(b, 7, 7, 5, mnk.Drawn, 16<<20, true, true)
}
func BenchmarkProof785Matching(b *testing.B) {
	benchProofWith(b, 7, 8, 5, mnk.Drawn, 1<<30, true, true)
}

// BenchmarkProof885Budget asks "does X win 8,8,5?" with a budget of 24
// million nodes (its time is in docs/benchmarks.md), and reports the proof and disproof numbers of the
// root where the budget stops the search. The question is open at the
// budget: the figures say how far the search got, the same on every
// machine. Run it with -benchtime 1x.
func BenchmarkProof885Budget(b *testing.B) { benchProof885(b, 24_000_000, false, false) }

// BenchmarkProof885Zones and BenchmarkProof885Matching ask the same with
// a budget of 2 million nodes, with relevance zones, then with set
// matching too: whether they reach the top of the tree shows in the root's
// numbers.
func BenchmarkProof885Zones(b *testing.B)    { benchProof885(b, 2_000_000, true, false) }
func BenchmarkProof885Matching(b *testing.B) { benchProof885(b, 2_000_000, true, true) }

func benchProof885(b *testing.B, budget uint64, zones, matching bool) {
	g := mnk.MustNew(8, 8, 5)
	s := New(g, 1<<30)
	s.SetZones(zones)
	s.SetMatching(matching)
	b.ReportAllocs()
	for b.Loop() {
		s.Clear()
		s.SetNodeLimit(s.Nodes() + budget)
		before := s.Nodes()
		win, err := s.Prove(context.Background(), mnk.Position{}, true)
		pn, dn := s.RootNumbers()
		b.ReportMetric(float64(s.Nodes()-before)/b.Elapsed().Seconds(), "nodes/s")
		b.ReportMetric(float64(pn), "root-pn")
		b.ReportMetric(float64(dn), "root-dn")
		b.ReportMetric(float64(s.Table().Entries()), "entries")
		b.Logf("does X win 8,8,5: %v (%v) after %d nodes; root proof number %d, disproof number %d; %d table entries",
			win, err, s.Nodes()-before, pn, dn, s.Table().Entries())
	}
}

func ExampleSolver_Solve() {
	g := mnk.MustNew(6, 6, 5)
	v, _ := New(g, 16<<20).Solve(context.Background(), mnk.Position{})
	fmt.Println("6,6,5:", v)
	// Output: 6,6,5: draw
}

// TestGoalMove: the move GoalMove gives after a question is proven keeps
// the side to move's goal: X's winning first move of 4,4,3 wins, X's first
// move that refutes "does O win?" on 5,5,4 leaves O without a win; a
// question not asked gives -1.
func TestGoalMove(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		m, n, k int
		xWins   bool
	}{{4, 4, 3, true}, {5, 5, 4, false}, {3, 3, 3, false}} {
		g := mnk.MustNew(c.m, c.n, c.k)
		s := New(g, 16<<20)
		root := mnk.Position{}
		if m := s.GoalMove(root, c.xWins); m != -1 {
			t.Errorf("%d,%d,%d: goal move %d before any search, want -1", c.m, c.n, c.k, m)
		}
		wins, err := s.Prove(ctx, root, c.xWins)
		if err != nil || wins != c.xWins {
			t.Fatalf("%d,%d,%d: does X (%v) win: %v, %v", c.m, c.n, c.k, c.xWins, wins, err)
		}
		m := s.GoalMove(root, c.xWins)
		if m < 0 {
			t.Fatalf("%d,%d,%d: no goal move", c.m, c.n, c.k)
		}
		child, _ := g.Play(root, m)
		fresh := New(g, 16<<20)
		if after, err := fresh.Prove(ctx, child, c.xWins); err != nil || after != c.xWins {
			t.Errorf("%d,%d,%d: after the goal move %d the question (X %v) is %v, %v; want %v", c.m, c.n, c.k, m, c.xWins, after, err, c.xWins)
		}
	}
}

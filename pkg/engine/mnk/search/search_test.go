package search

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
)

// TestSearchFullDepth: searched to the end of the game the heuristic never
// speaks, and the score must be the exact value (a forced win or loss in
// some plies, or 0 for a draw), which the solver knows.
func TestSearchFullDepth(t *testing.T) {
	race.SkipSerial(t)
	ctx := context.Background()
	check := func(g *mnk.Game, p mnk.Position) {
		t.Helper()
		want, _ := solve.New(g, 1<<16).Solve(ctx, p)
		r, err := New(g, 1<<16).Search(ctx, p, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := mnk.Drawn
		if m := r.MatePlies(); m > 0 {
			got = mnk.Win
		} else if m < 0 {
			got = mnk.Loss
		} else if r.Score != 0 {
			t.Fatalf("%s: full-depth score %d is neither a mate nor 0", g.String(p), r.Score)
		}
		if got != want {
			t.Fatalf("%s: search score %d (%v), solver %v", g.String(p), r.Score, got, want)
		}
		if len(r.PV) == 0 || r.PV[0] != r.Move {
			t.Fatalf("%s: move %d, pv %v", g.String(p), r.Move, r.PV)
		}
		if !r.Exhaustive && r.MatePlies() == 0 {
			t.Fatalf("%s: a draw at full depth not marked exhaustive", g.String(p))
		}
	}
	g := mnk.MustNew(3, 3, 3)
	for _, p := range ref.AllPositions(g) {
		if g.Status(p) == mnk.Ongoing {
			check(g, p)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, r := range ref.Games("4,4,4 4,4,3") {
		g := mnk.MustNew(r.M, r.N, r.K)
		for range 100 {
			p, res := ref.RandomGame(g, rng, 7+rng.IntN(6))
			if res == mnk.Ongoing {
				check(g, p)
			}
		}
	}
}

// TestSearchMate: forced wins and losses inside the horizon are measured in
// plies, and the searched line is the forced one.
func TestSearchMate(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	ctx := context.Background()
	cases := []struct {
		pos   string
		depth int
		mate  int
		move  int
	}{
		{"X.O/.X./O..", 3, 1, mnk.Cell(2, 2)},  // win at once
		{"XO./.X./...", 6, -4, mnk.Cell(2, 2)}, // block, X forks, lost in 4
		// At depth 2 the two-threat rule already sees the fork; at depth 1
		// the loss lies beyond the horizon.
		{"XO./.X./...", 2, -4, mnk.Cell(2, 2)},
		{"XO./.X./...", 1, 0, mnk.Cell(2, 2)},
	}
	for _, c := range cases {
		p, _ := g.Parse(c.pos)
		r, err := New(g, 1<<20).Search(ctx, p, c.depth, 0)
		if err != nil || r.MatePlies() != c.mate || r.Move != c.move {
			t.Errorf("%s depth %d: mate %d move %d (%v), want %d %d", c.pos, c.depth, r.MatePlies(), r.Move, err, c.mate, c.move)
		}
	}
}

// TestSearchIterations: iterative deepening reports each iteration's
// nodes, branching and principal variation, the last one's as the result.
func TestSearchIterations(t *testing.T) {
	g := mnk.MustNew(8, 8, 5)
	r, err := New(g, 1<<20).Search(context.Background(), mnk.Position{}, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Depth != 4 || len(r.Iterations) != 4 || r.Move != r.Iterations[3].Move || r.Score != r.Iterations[3].Score {
		t.Fatalf("depth %d, move %d, score %d with iterations %+v; want 4 iterations, the last one's move and score", r.Depth, r.Move, r.Score, r.Iterations)
	}
	var sum uint64
	for i, it := range r.Iterations {
		sum += it.Nodes
		if it.Depth != i+1 || it.Nodes == 0 || i > 0 && it.EBF <= 0 || len(it.PV) == 0 || len(it.PV) > it.Depth {
			t.Errorf("iteration %d: %+v", i, it)
		}
		p := mnk.Position{}
		for _, c := range it.PV {
			if g.Empty(p)>>uint(c)&1 == 0 {
				t.Fatalf("iteration %d: pv %v plays an occupied or outside cell %d", i, it.PV, c)
			}
			p, _ = g.Play(p, c)
		}
	}
	if sum != r.Nodes {
		t.Errorf("iterations' nodes add up to %d, the search's are %d", sum, r.Nodes)
	}
	// A searcher used again counts the nodes of each search, not of all.
	s := New(g, 1<<20)
	for i := range 3 {
		again, err := s.Search(context.Background(), mnk.Position{}, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for _, it := range again.Iterations {
			sum += it.Nodes
		}
		if again.Nodes != sum || again.Nodes == 0 {
			t.Errorf("search %d with the same searcher: %d nodes, its iterations %d", i+1, again.Nodes, sum)
		}
	}
}

// TestSearchBudget: under a time budget, iterative deepening stops (the
// empty 8,8,5 board is far too big to search to the end) with the last
// complete iteration, not before the budget. The depth it reaches and the
// time it takes depend on the machine and are logged, not judged.
func TestSearchBudget(t *testing.T) {
	g := mnk.MustNew(8, 8, 5)
	const budget = 200 * time.Millisecond
	r, err := New(g, 1<<20).Search(context.Background(), mnk.Position{}, 0, budget)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %v budget: depth %d, %d nodes, %v", budget, r.Depth, r.Nodes, r.Elapsed)
	if r.Depth < 1 || len(r.Iterations) != r.Depth || r.Depth == g.Cells() || r.Move != r.Iterations[r.Depth-1].Move {
		t.Fatalf("depth %d with %d iterations, move %d", r.Depth, len(r.Iterations), r.Move)
	}
	if g.Empty(mnk.Position{})>>uint(r.Move)&1 == 0 {
		t.Errorf("move %d is not an empty cell", r.Move)
	}
	if r.Elapsed < budget {
		t.Errorf("a %v budget stopped after %v", budget, r.Elapsed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(g, 1<<20).Search(ctx, mnk.Position{}, 0, 0); err != context.Canceled {
		t.Errorf("cancelled: %v, want %v", err, context.Canceled)
	}
}

func TestSearchAllocs(t *testing.T) {
	g := mnk.MustNew(5, 5, 4)
	s := New(g, 1<<20)
	s.ctx = context.Background()
	if n := testing.AllocsPerRun(3, func() {
		s.pos, s.ply, s.onPV[0] = mnk.Position{}, 0, true
		s.search(4, -Mate-1, Mate+1)
	}); n != 0 {
		t.Errorf("search: %v allocations, want 0", n)
	}
}

// BenchmarkSearch885 is a depth-5 search of the empty 8,8,5 board.
func BenchmarkSearch885(b *testing.B) {
	g := mnk.MustNew(8, 8, 5)
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		r, _ := New(g, 16<<20).Search(context.Background(), mnk.Position{}, 5, 0)
		nodes += r.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// TestSearchTable: the table changes the work, never the score, at every
// depth (entries cut only at their own depth).
func TestSearchTable(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	for _, r := range ref.Games("3,3,3 4,4,4 5,5,4 6,6,5") {
		g := mnk.MustNew(r.M, r.N, r.K)
		var with, without uint64
		for range 20 {
			p, res := ref.RandomGame(g, rng, rng.IntN(g.Cells()/2))
			if res != mnk.Ongoing {
				continue
			}
			depth := 1 + rng.IntN(4)
			a, err1 := New(g, 1<<20).Search(ctx, p, depth, 0)
			b, err2 := New(g, 0).Search(ctx, p, depth, 0)
			if err1 != nil || err2 != nil || a.Score != b.Score || a.Depth != b.Depth {
				t.Fatalf("%s %s depth %d: score %d with the table, %d without", ref.Name(r), g.String(p), depth, a.Score, b.Score)
			}
			with, without = with+a.Nodes, without+b.Nodes
		}
		t.Logf("%s: %d nodes with the table, %d without", ref.Name(r), with, without)
	}
}

// BenchmarkSearch885NoTable is BenchmarkSearch885 without the table.
func BenchmarkSearch885NoTable(b *testing.B) {
	g := mnk.MustNew(8, 8, 5)
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		r, _ := New(g, 0).Search(context.Background(), mnk.Position{}, 5, 0)
		nodes += r.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// TestSearchClear: after Clear a searcher makes the search a new one
// makes, whatever it searched before, across the wrap of its generations.
func TestSearchClear(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	g := mnk.MustNew(5, 5, 4)
	s := New(g, 1<<16)
	for i := range 600 {
		p, res := ref.RandomGame(g, rng, rng.IntN(8))
		if res != mnk.Ongoing {
			continue
		}
		depth := 1 + rng.IntN(4)
		s.Clear()
		got, err := s.Search(ctx, p, depth, 0)
		want, _ := New(g, 1<<16).Search(ctx, p, depth, 0)
		if err != nil || got.Move != want.Move || got.Score != want.Score || got.Nodes != want.Nodes || !slices.Equal(got.PV, want.PV) {
			t.Fatalf("search %d, %s depth %d after Clear: move %d score %d nodes %d pv %v (%v); new searcher: %d %d %d %v",
				i, g.String(p), depth, got.Move, got.Score, got.Nodes, got.PV, err, want.Move, want.Score, want.Nodes, want.PV)
		}
	}
}

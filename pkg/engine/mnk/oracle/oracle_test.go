package oracle

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
	"github.com/woprlabs/wopr/pkg/engine/mnk/minimax"
)

// textbookPerfect is the perfect move and outcome of p by the textbook
// minimax with depth scoring, which takes the quickest win, the slowest
// loss, and the first of equal moves in row-major order: the same rule as
// the oracle's, by a memo-free search with no prunings.
func textbookPerfect(t *testing.T, g *mnk.Game, p mnk.Position) Perfect {
	t.Helper()
	r, err := minimax.Textbook(context.Background(), g, p, minimax.Options{DepthScore: true})
	if err != nil {
		t.Fatal(err)
	}
	base := minimax.Base(g)
	switch {
	case r.Score > 0:
		return Perfect{r.Move, mnk.Win, base - r.Score}
	case r.Score < 0:
		return Perfect{r.Move, mnk.Loss, base + r.Score}
	}
	return Perfect{r.Move, mnk.Drawn, g.Cells() - p.Ply()}
}

// checkOracle compares the oracle's Eval, Best and Moves on p with the
// textbook minimax.
func checkOracle(t *testing.T, o *Oracle, p mnk.Position) {
	t.Helper()
	g := o.Game()
	ctx := context.Background()
	want := textbookPerfect(t, g, p)
	v, d, err := o.Eval(ctx, p)
	if err != nil || v != want.Value || d != want.Plies {
		t.Fatalf("%s %s: Eval %v in %d (%v), want %v in %d", g.Spec(), g.String(p), v, d, err, want.Value, want.Plies)
	}
	best, _, err := o.Best(ctx, p)
	if err != nil || best != want {
		t.Fatalf("%s %s: Best %+v (%v), want %+v", g.Spec(), g.String(p), best, err, want)
	}
	moves, _, err := o.Moves(ctx, p, nil)
	if err != nil || len(moves) != bitCount(g.Empty(p)) {
		t.Fatalf("%s %s: %d moves (%v), want %d", g.Spec(), g.String(p), len(moves), err, bitCount(g.Empty(p)))
	}
	for _, m := range moves {
		q, r := g.Play(p, m.Cell)
		w := Perfect{m.Cell, mnk.Win, 1}
		switch r {
		case mnk.Draw:
			w = Perfect{m.Cell, mnk.Drawn, 1}
		case mnk.Ongoing:
			c := textbookPerfect(t, g, q)
			w = Perfect{m.Cell, -c.Value, c.Plies + 1}
		}
		if m != w {
			t.Fatalf("%s %s: move %+v, want %+v", g.Spec(), g.String(p), m, w)
		}
	}
}

func bitCount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// TestOracleAgainstTextbook compares the oracle with the textbook minimax
// on every position of the small games and on random positions with up to
// 9 empty cells of boards of 12 to 16 cells.
func TestOracleAgainstTextbook(t *testing.T) {
	for _, r := range ref.SmallGames() {
		g := mnk.MustNew(r.M, r.N, r.K)
		o, err := New(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ref.AllPositions(g) {
			if g.Status(p) == mnk.Ongoing {
				checkOracle(t, o, p)
			}
		}
	}
	rng := rand.New(rand.NewPCG(16, 1))
	n := 25
	if testing.Short() {
		n = 5
	}
	for _, r := range ref.Games("3,4,3 4,3,3 4,4,3 4,4,4 3,5,3 2,8,4 8,2,3") {
		g := mnk.MustNew(r.M, r.N, r.K)
		o, _ := New(g)
		for range n {
			p, res := ref.RandomGame(g, rng, g.Cells()-7-rng.IntN(3))
			if res == mnk.Ongoing {
				checkOracle(t, o, p)
			}
		}
	}
}

// TestOracleRule: the perfect move on hand-made positions of 3x3.
func TestOracleRule(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	o, _ := New(g)
	cases := []struct {
		name, pos string
		want      Perfect
	}{
		// X wins at once at (2,2), or in 3 with the fork at (0,1), which
		// comes first in row-major order: the quickest win.
		{"quickest win", "X.O/.X./O..", Perfect{mnk.Cell(2, 2), mnk.Win, 1}},
		// O has lost: every move but the block at (2,2) loses at the next
		// ply; after the block X forks with (2,0): the slowest loss.
		{"slowest loss", "XO./.X./...", Perfect{mnk.Cell(2, 2), mnk.Loss, 4}},
		// Every move draws: the first in row-major order.
		{"first of equals", ".../.../...", Perfect{mnk.Cell(0, 0), mnk.Drawn, 9}},
		// After a corner, the centre is O's only move that draws.
		{"only draw", "X../.../...", Perfect{mnk.Cell(1, 1), mnk.Drawn, 8}},
		// Two wins in 1, (0,2) and (2,0): the first in row-major order.
		{"first of two wins", "XX./XOO/..O", Perfect{mnk.Cell(0, 2), mnk.Win, 1}},
	}
	for _, c := range cases {
		p, err := g.Parse(c.pos)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, _, err := o.Best(context.Background(), p)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %+v (%v), want %+v", c.name, c.pos, got, err, c.want)
		}
	}
}

// TestPack: Pack is one-to-one, and puts cell (r, c) of X at bit r*Cols+c
// and of O 16 bits higher.
func TestPack(t *testing.T) {
	for _, r := range ref.Games("3,3,3 4,4,4 2,8,2 8,2,2 3,5,3 1,7,3") {
		g := mnk.MustNew(r.M, r.N, r.K)
		seen := map[uint32]mnk.Position{}
		rng := rand.New(rand.NewPCG(uint64(r.M), uint64(r.N)))
		for range 2000 {
			p, _ := ref.RandomGame(g, rng, rng.IntN(g.Cells()+1))
			var want uint32
			for row := range r.M {
				for col := range r.N {
					if ref.Has(p.X, row, col) {
						want |= 1 << (row*r.N + col)
					}
					if ref.Has(p.O, row, col) {
						want |= 1 << (16 + row*r.N + col)
					}
				}
			}
			got := g.Pack(p)
			if got != want {
				t.Fatalf("%s: Pack(%s) = %#x, want %#x", ref.Name(r), g.String(p), got, want)
			}
			if q, ok := seen[got]; ok && q != p {
				t.Fatalf("%s: %s and %s both pack to %#x", ref.Name(r), g.String(p), g.String(q), got)
			}
			seen[got] = p
		}
	}
}

func TestOracleTooBig(t *testing.T) {
	for _, r := range ref.Games("5,4,4 3,6,3 8,8,5") {
		if _, err := New(mnk.MustNew(r.M, r.N, r.K)); !errors.Is(err, mnk.ErrTooBig) {
			t.Errorf("%s: %v, want an error wrapping %v", ref.Name(r), err, mnk.ErrTooBig)
		}
	}
}

// TestOracleCancel: a cancelled call returns the context's error and
// leaves in the memo only what it finished, so that later calls are
// exact.
func TestOracleCancel(t *testing.T) {
	g := mnk.MustNew(4, 4, 4)
	o, _ := New(g)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := o.Eval(ctx, mnk.Position{}); err != context.Canceled {
		t.Fatalf("Eval with a cancelled context: %v, want %v", err, context.Canceled)
	}
	if _, _, err := o.Best(ctx, mnk.Position{}); err != context.Canceled {
		t.Fatalf("Best with a cancelled context: %v, want %v", err, context.Canceled)
	}
	// Stop a search midway, after some positions are memoised, then ask
	// about positions where the search went first (its moves are in
	// row-major order) and others.
	stop := &stopAfter{Context: ctx, polls: 3}
	if _, _, err := o.Eval(stop, mnk.Position{}); err != context.Canceled {
		t.Fatalf("Eval stopped at the third poll: %v, want %v", err, context.Canceled)
	}
	if o.Positions() == 0 {
		t.Fatalf("nothing memoised before the stop: the test stops too early")
	}
	fresh, _ := New(g)
	for _, moves := range []string{"0,0 0,1 0,2 0,3 1,0", "0,0 0,1 0,2 0,3 1,0 1,1", "0,0 0,1 1,0", "1,1 2,2 0,0 3,3"} {
		q, _ := g.ParseMoves(moves)
		want, _, _ := fresh.Best(context.Background(), q)
		got, _, err := o.Best(context.Background(), q)
		if err != nil || got != want {
			t.Errorf("%s after a cancelled call: %+v (%v), want %+v", g.String(q), got, err, want)
		}
	}
}

// stopAfter is a context that is done after its Err has been asked polls
// times: it stops a search midway, at the same place every run.
type stopAfter struct {
	context.Context // done, for its Done channel
	polls           int
}

func (c *stopAfter) Err() error {
	if c.polls--; c.polls > 0 {
		return nil
	}
	return context.Canceled
}

// TestOracleConcurrent: goroutines sharing an oracle get what one alone
// gets (run with -race).
func TestOracleConcurrent(t *testing.T) {
	g := mnk.MustNew(4, 4, 3)
	var ps []mnk.Position
	rng := rand.New(rand.NewPCG(4, 3))
	for len(ps) < 200 {
		if p, res := ref.RandomGame(g, rng, rng.IntN(8)); res == mnk.Ongoing {
			ps = append(ps, p)
		}
	}
	alone, _ := New(g)
	want := make([]Perfect, len(ps))
	for i, p := range ps {
		want[i], _, _ = alone.Best(context.Background(), p)
	}
	shared, _ := New(g)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range ps {
				i = (i + 50*w) % len(ps)
				got, _, err := shared.Best(context.Background(), ps[i])
				if err != nil || got != want[i] {
					t.Errorf("%s: %+v (%v), want %+v", g.String(ps[i]), got, err, want[i])
				}
			}
		})
	}
	wg.Wait()
}

// TestOracleAllocs: with the memo filled, a move costs no allocation.
func TestOracleAllocs(t *testing.T) {
	g := mnk.MustNew(4, 4, 4)
	o, _ := New(g)
	ctx := context.Background()
	p, _ := g.ParseMoves("0,0 1,1 0,1 2,2")
	o.Best(ctx, p)
	if n := testing.AllocsPerRun(100, func() { o.Best(ctx, p) }); n != 0 {
		t.Errorf("Best with a warm memo: %v allocations, want 0", n)
	}
	// Cold, the allocations are the memo's growth: a dozen doublings, not
	// one per position.
	fresh, _ := New(g)
	if n := testing.AllocsPerRun(1, func() { fresh.Eval(ctx, p) }); n > 20 {
		t.Errorf("Eval with a cold memo: %v allocations for %d positions, want at most 20", n, fresh.Positions())
	}
}

// BenchmarkOracle444 is the first query of a fresh oracle on the empty
// 4,4,4 board: the whole game, with its memo's growth. Run it with
// -benchtime=1x -benchmem.
func BenchmarkOracle444(b *testing.B) {
	g := mnk.MustNew(4, 4, 4)
	b.ReportAllocs()
	var nodes uint64
	var o *Oracle
	for b.Loop() {
		o, _ = New(g)
		if v, d, err := o.Eval(context.Background(), mnk.Position{}); err != nil || v != mnk.Drawn || d != 16 {
			b.Fatalf("4,4,4: %v in %d (%v), want a draw in 16", v, d, err)
		}
		nodes += o.Nodes()
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(o.Positions()), "positions")
	b.ReportMetric(float64(o.Bytes()), "memo-bytes")
}

// The value and length of tic-tac-toe with perfect play, and the moves of
// a lost position: all lose, and the block loses slowest.
func ExampleOracle() {
	g := mnk.MustNew(3, 3, 3)
	o, err := New(g)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	v, plies, _ := o.Eval(ctx, mnk.Position{})
	fmt.Println("empty board:", v, "in", plies, "plies")
	p, _ := g.Parse("XO./.X./...")
	moves, _, _ := o.Moves(ctx, p, nil)
	for _, m := range moves {
		fmt.Printf("%d,%d %v in %d\n", m.Cell/8, m.Cell%8, m.Value, m.Plies)
	}
	best, _, _ := o.Best(ctx, p)
	fmt.Printf("best: %d,%d\n", best.Cell/8, best.Cell%8)
	// Output:
	// empty board: draw in 9 plies
	// 0,2 loss in 2
	// 1,0 loss in 2
	// 1,2 loss in 2
	// 2,0 loss in 2
	// 2,1 loss in 2
	// 2,2 loss in 4
	// best: 2,2
}

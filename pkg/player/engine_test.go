package player

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/oracle"
)

// neverWorse plays perfect, in the seat of side (0: X, 1: O), against
// every sequence of the opponent's moves from p, visiting each position
// once, and fails if a game ends worse for perfect than want, the value of
// p for perfect. It returns the number of positions visited.
func neverWorse(t *testing.T, g *mnk.Game, perfect Player, side int, p mnk.Position, want mnk.Value, seen map[mnk.Position]bool) int {
	if seen[p] {
		return 0
	}
	seen[p] = true
	var cells []int
	if p.Ply()%2 == side {
		ch, err := perfect.Move(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		cells = []int{ch.Cell}
	} else {
		for i := range EmptyCount(g, p) {
			cells = append(cells, NthEmpty(g, p, i))
		}
	}
	n := 1
	for _, c := range cells {
		q, r := g.Play(p, c)
		var got mnk.Value
		switch {
		case r == mnk.Ongoing:
			n += neverWorse(t, g, perfect, side, q, want, seen)
			continue
		case r == mnk.Draw:
			got = mnk.Drawn
		case (r == mnk.XWin) == (side == 0):
			got = mnk.Win
		default:
			got = mnk.Loss
		}
		if got < want {
			t.Fatalf("%s: perfect as %s reaches %s, a %v, in a game of value %v for it", g.Spec(), "XO"[side:side+1], g.String(q), got, want)
		}
	}
	return n
}

// randomPosition plays random moves from the empty board until plies
// stones are down or the game is over.
func randomPosition(g *mnk.Game, rng *rand.Rand, plies int) mnk.Position {
	var p mnk.Position
	for p.Ply() < plies && g.Status(p) == mnk.Ongoing {
		p, _ = g.Play(p, NthEmpty(g, p, rng.IntN(EmptyCount(g, p))))
	}
	return p
}

// TestPerfectNeverLoses plays the perfect player in both seats against
// every sequence of the opponent's moves, and checks that every game ends
// at least as well for it as the game's value: never a loss where the
// value is a draw (3x3, 4x4), always a win where it is a win (4,4,3 and
// 3,4,3 as X).
func TestPerfectNeverLoses(t *testing.T) {
	cases := []struct {
		m, n, k int
		side    int
		value   mnk.Value
	}{
		{3, 3, 3, 0, mnk.Drawn}, {3, 3, 3, 1, mnk.Drawn},
		{4, 4, 4, 0, mnk.Drawn}, {4, 4, 4, 1, mnk.Drawn},
		{4, 4, 3, 0, mnk.Win}, {3, 4, 3, 0, mnk.Win}, {4, 3, 3, 0, mnk.Win},
	}
	for _, c := range cases {
		g := mnk.MustNew(c.m, c.n, c.k)
		if g.Cells() == 16 && testing.Short() {
			continue // 3x3 covers the same code
		}
		perfect, err := New(Spec{Kind: Perfect}, g)
		if err != nil {
			t.Fatal(err)
		}
		n := neverWorse(t, g, perfect, c.side, mnk.Position{}, c.value, map[mnk.Position]bool{})
		t.Logf("%s, perfect as %s: %d positions", g.Spec(), "XO"[c.side:c.side+1], n)
	}
}

// TestPerfectRule: the perfect player's choice on hand-made positions, and
// its Choice's value and distance.
func TestPerfectRule(t *testing.T) {
	cases := []struct {
		board, pos string
		cell       int
		value      mnk.Value
		plies      int
	}{
		// X wins at once at (2,2), or in 3 with the fork at (0,1), which
		// comes first in row-major order: the quickest win.
		{"3x3", "X.O/.X./O..", mnk.Cell(2, 2), mnk.Win, 1},
		// Two wins at once, (0,2) and (2,0): the first in row-major order.
		{"3x3", "XX./XOO/..O", mnk.Cell(0, 2), mnk.Win, 1},
		// O has lost: every move but the block at (2,2) loses at the next
		// ply; after it X forks with (2,0): the slowest loss.
		{"3x3", "XO./.X./...", mnk.Cell(2, 2), mnk.Loss, 4},
		// Every move draws: the first in row-major order.
		{"3x3", ".../.../...", mnk.Cell(0, 0), mnk.Drawn, 9},
		// After a corner, the centre is O's only move that draws.
		{"3x3", "X../.../...", mnk.Cell(1, 1), mnk.Drawn, 8},
		// X wins at once at (1,3); the four cells before it in row-major
		// order lose at the next ply, O completing row 2.
		{"4x4", "..../XXX./OOO./....", mnk.Cell(1, 3), mnk.Win, 1},
	}
	for _, c := range cases {
		g := mnk.MustNew(3, 3, 3)
		if c.board == "4x4" {
			g = mnk.MustNew(4, 4, 4)
		}
		p, err := g.Parse(c.pos)
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := New(Spec{Kind: Perfect}, g)
		ch, err := pl.Move(context.Background(), p, nil)
		if err != nil || ch.Cell != c.cell || ch.Value != c.value || ch.Plies != c.plies {
			t.Errorf("%s %s: cell %d, %v in %d (%v), want cell %d, %v in %d", c.board, c.pos, ch.Cell, ch.Value, ch.Plies, err, c.cell, c.value, c.plies)
		}
	}
}

// TestEnginePositional: the engine's moves are legal; at a fixed depth
// they depend on the position only (a player that has searched other
// positions chooses as a new one), and fill the choice's nodes, depth and
// score; under a clock they complete at least depth 1.
func TestEnginePositional(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, b := range [][3]int{{3, 3, 3}, {4, 4, 4}, {5, 5, 4}, {6, 7, 4}, {8, 8, 5}} {
		g := mnk.MustNew(b[0], b[1], b[2])
		for _, depth := range []int{1, 2, 4} {
			spec := Spec{Kind: Engine, Depth: depth}
			if !spec.Positional() {
				t.Fatalf("%s is not positional", spec)
			}
			used, _ := New(spec, g)
			for range 15 {
				p := randomPosition(g, rng, rng.IntN(g.Cells()-1))
				if g.Status(p) != mnk.Ongoing {
					continue
				}
				got, err := used.Move(ctx, p, nil)
				if err != nil || g.Empty(p)>>got.Cell&1 == 0 {
					t.Fatalf("%s %s %s: cell %d (%v), want an empty cell", g.Spec(), spec, g.String(p), got.Cell, err)
				}
				fresh, _ := New(spec, g)
				want, _ := fresh.Move(ctx, p, nil)
				if got != want {
					t.Fatalf("%s %s %s: %+v after other searches, %+v from a new player", g.Spec(), spec, g.String(p), got, want)
				}
				if got.Nodes == 0 || got.Depth < 1 || got.Depth > depth {
					t.Fatalf("%s %s %s: %+v, want nodes and a depth from 1 to %d", g.Spec(), spec, g.String(p), got, depth)
				}
			}
		}
		timed, _ := New(Spec{Kind: Engine, Time: 2e6}, g)
		p := randomPosition(g, rng, g.Cells()/3)
		if g.Status(p) == mnk.Ongoing {
			ch, err := timed.Move(ctx, p, nil)
			if err != nil || g.Empty(p)>>ch.Cell&1 == 0 || ch.Depth < 1 || ch.Nodes == 0 {
				t.Fatalf("%s engine:time=2ms %s: %+v (%v), want an empty cell, depth and nodes", g.Spec(), g.String(p), ch, err)
			}
		}
	}
}

// TestPerfectChoice: the perfect player's choice carries the oracle's
// value and distance, and costs no new search once the oracle knows them.
func TestPerfectChoice(t *testing.T) {
	ctx := context.Background()
	g := mnk.MustNew(3, 4, 3)
	pl, _ := New(Spec{Kind: Perfect}, g)
	o, _ := Oracle(g)
	rng := rand.New(rand.NewPCG(5, 5))
	for range 50 {
		p := randomPosition(g, rng, rng.IntN(10))
		if g.Status(p) != mnk.Ongoing {
			continue
		}
		ch, err := pl.Move(ctx, p, nil)
		v, d, _ := o.Eval(ctx, p)
		if err != nil || ch.Value != v || ch.Plies != d {
			t.Fatalf("%s: %v in %d (%v), want the oracle's %v in %d", g.String(p), ch.Value, ch.Plies, err, v, d)
		}
		// Again: the positions that a window scan settles are scanned
		// again, but the memo does not grow.
		before := o.Positions()
		if again, _ := pl.Move(ctx, p, nil); again.Nodes > ch.Nodes || again.Cell != ch.Cell || o.Positions() != before {
			t.Fatalf("%s again: %+v and the memo from %d to %d positions, want cell %d, at most %d nodes, no new positions",
				g.String(p), again, before, o.Positions(), ch.Cell, ch.Nodes)
		}
	}
}

// TestPerfectConcurrent: perfect players of one game in several
// goroutines, each made by New and so sharing the process's oracle, play
// what one alone plays (run with -race).
func TestPerfectConcurrent(t *testing.T) {
	g := mnk.MustNew(3, 5, 3)
	rng := rand.New(rand.NewPCG(3, 5))
	var ps []mnk.Position
	for len(ps) < 100 {
		if p := randomPosition(g, rng, rng.IntN(8)); g.Status(p) == mnk.Ongoing {
			ps = append(ps, p)
		}
	}
	fresh, _ := oracle.New(g)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			pl, err := New(Spec{Kind: Perfect}, g)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range ps {
				p := ps[(i+25*w)%len(ps)]
				ch, err := pl.Move(context.Background(), p, nil)
				want, _, _ := fresh.Best(context.Background(), p)
				if err != nil || ch.Cell != want.Cell || ch.Value != want.Value || ch.Plies != want.Plies {
					t.Errorf("%s: %+v (%v), want %+v", g.String(p), ch, err, want)
				}
			}
		})
	}
	wg.Wait()
}

func TestNewErrors(t *testing.T) {
	_, err := New(Spec{Kind: Perfect}, mnk.MustNew(5, 5, 4))
	if err == nil || !strings.Contains(err.Error(), "up to 16 cells") || !errors.Is(err, mnk.ErrTooBig) {
		t.Errorf("perfect on 5x5: %v, want an error saying up to 16 cells, wrapping mnk.ErrTooBig", err)
	}
	if _, err := New(Spec{Kind: Human}, mnk.MustNew(3, 3, 3)); err == nil {
		t.Errorf("human: no error, want one")
	}
	g := mnk.MustNew(4, 4, 4)
	a, _ := Oracle(g)
	b, _ := Oracle(mnk.MustNew(4, 4, 4))
	if a != b {
		t.Errorf("two oracles for 4,4,4 in one process, want one shared")
	}
	if c, _ := Oracle(mnk.MustNew(4, 4, 3)); c == a {
		t.Errorf("4,4,3 shares 4,4,4's oracle")
	}
}

// BenchmarkPerfectMove is a perfect move on 4x4 with the oracle complete:
// the lookups of its moves, under the oracle's lock.
func BenchmarkPerfectMove(b *testing.B) {
	g := mnk.MustNew(4, 4, 4)
	pl, _ := New(Spec{Kind: Perfect}, g)
	p, _ := g.ParseMoves("1,1 2,2")
	ctx := context.Background()
	o, _ := Oracle(g)
	o.Eval(ctx, mnk.Position{})
	b.ReportAllocs()
	for b.Loop() {
		pl.Move(ctx, p, nil)
	}
}

// BenchmarkEngineDepthMove is an engine:depth=4 move on 8x8 (k 5), its
// table cleared first.
func BenchmarkEngineDepthMove(b *testing.B) {
	g := mnk.MustNew(8, 8, 5)
	pl, _ := New(Spec{Kind: Engine, Depth: 4}, g)
	p, _ := g.ParseMoves("3,3 4,4 3,4")
	ctx := context.Background()
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		ch, _ := pl.Move(ctx, p, nil)
		nodes += ch.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

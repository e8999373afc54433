package minimax

import (
	"context"
	"fmt"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
)

// TestTextbookCalls reproduces the figures users quote for tic-tac-toe:
// 340,858 calls and (0,0) without the cutoff, 66,275 with it. The first is
// the non-terminal nodes of the tree (294,778, the root included) plus the
// full-board draws (46,080), which the counter confirms.
func TestTextbookCalls(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	ctx := context.Background()
	cases := []struct {
		opt   Options
		calls uint64
		move  int
		score int
	}{
		{Options{}, 340858, mnk.Cell(0, 0), 0},
		{Options{Cutoff: true}, 66275, mnk.Cell(0, 0), 0},
		{Options{DepthScore: true}, 340858, mnk.Cell(0, 0), 0},
	}
	for _, c := range cases {
		r, err := Textbook(ctx, g, mnk.Position{}, c.opt)
		if err != nil || r.Calls != c.calls || r.Move != c.move || r.Score != c.score {
			t.Errorf("%+v: %+v (%v), want %d calls, move %d, score %d", c.opt, r, err, c.calls, c.move, c.score)
		}
	}
	st := count.New(g).Count(mnk.Position{})
	if nonTerminal := st.Nodes - st.Games(); nonTerminal+st.Draws != 340858 {
		t.Errorf("counter: %d non-terminal nodes + %d draws, want 340,858", nonTerminal, st.Draws)
	}
}

// TestTextbookDepthScore: with the depth scoring the search takes the
// quickest win and delays a loss; without it, the first move in row-major
// order that wins (or loses) at all.
func TestTextbookDepthScore(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	ctx := context.Background()
	cases := []struct {
		name, pos        string
		plain, depth     int // moves chosen
		plainSc, depthSc int
	}{
		// X to move wins at once at (2,2); (0,1) wins too, two plies
		// later (two threats), and comes first in row-major order.
		{"quickest win", "X.O/.X./O..", mnk.Cell(0, 1), mnk.Cell(2, 2), 1, 10 - 1},
		// O to move has lost: X threatens (2,2), and after the block X
		// forks with (2,0). The plain search plays the first cell, (0,2),
		// and loses at the next ply; the depth search blocks and loses
		// four plies on.
		{"delayed loss", "XO./.X./...", mnk.Cell(0, 2), mnk.Cell(2, 2), -1, 4 - 10},
	}
	for _, c := range cases {
		p, err := g.Parse(c.pos)
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := Textbook(ctx, g, p, Options{})
		depth, _ := Textbook(ctx, g, p, Options{DepthScore: true})
		if plain.Move != c.plain || plain.Score != c.plainSc {
			t.Errorf("%s: plain move %d score %d, want %d %d", c.name, plain.Move, plain.Score, c.plain, c.plainSc)
		}
		if depth.Move != c.depth || depth.Score != c.depthSc {
			t.Errorf("%s: depth-score move %d score %d, want %d %d", c.name, depth.Move, depth.Score, c.depth, c.depthSc)
		}
	}
}

func BenchmarkTextbook333(b *testing.B) {
	g := mnk.MustNew(3, 3, 3)
	b.ReportAllocs()
	var calls uint64
	for b.Loop() {
		r, _ := Textbook(context.Background(), g, mnk.Position{}, Options{})
		calls += r.Calls
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "nodes/s")
}

func ExampleTextbook() {
	g := mnk.MustNew(3, 3, 3)
	r, _ := Textbook(context.Background(), g, mnk.Position{}, Options{Cutoff: true})
	fmt.Printf("%d calls, move %d,%d, score %d\n", r.Calls, r.Move/8, r.Move%8, r.Score)
	// Output: 66275 calls, move 0,0, score 0
}

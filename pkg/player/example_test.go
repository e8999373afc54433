package player_test

import (
	"context"
	"fmt"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/player"
)

// The exact odds of the perfect player, as O, against a random X on 3x3.
func ExampleExact() {
	g := mnk.MustNew(3, 3, 3)
	x, _ := player.Parse("random")
	o, _ := player.Parse("perfect")
	odds, err := player.Exact(context.Background(), g, mnk.Position{}, x, o)
	if err != nil {
		panic(err)
	}
	for _, r := range []mnk.Result{mnk.XWin, mnk.OWin, mnk.Draw} {
		fmt.Printf("%-7s %-7s %.6f\n", r, odds.Rat(r).RatString(), odds.Float(r))
	}
	// Output:
	// X wins  0       0.000000
	// O wins  254/315 0.806349
	// draw    61/315  0.193651
}

// A perfect player's move: the quickest win, though a slower one comes
// first in row-major order.
func ExampleNew() {
	g := mnk.MustNew(3, 3, 3)
	perfect, err := player.New(player.Spec{Kind: player.Perfect}, g)
	if err != nil {
		panic(err)
	}
	p, _ := g.Parse("X.O/.X./O..")
	ch, _ := perfect.Move(context.Background(), p, nil)
	fmt.Printf("cell (%d,%d): %v in %d ply\n", ch.Cell/8, ch.Cell%8, ch.Value, ch.Plies)
	// Output: cell (2,2): win in 1 ply
}

package count

import (
	"fmt"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

func ExampleCounter_Count() {
	g := mnk.MustNew(3, 3, 3)
	s := New(g).Count(mnk.Position{})
	fmt.Println(s.Nodes, s.Games(), s.XWins(), s.OWins(), s.Draws, s.CanonicalGames, s.Value)
	// Output: 549946 255168 131184 77904 46080 26830 draw
}

func ExamplePositions() {
	g := mnk.MustNew(3, 3, 3)
	pc := Positions(g, mnk.Position{})
	fmt.Println(pc.Positions, pc.Canonical, pc.Terminal[mnk.XWin], pc.Terminal[mnk.OWin], pc.Terminal[mnk.Draw])
	// Output: 5478 765 626 316 16
}

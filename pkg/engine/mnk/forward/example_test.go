package forward_test

import (
	"context"
	"fmt"

	"github.com/woprlabs/wopr/pkg/engine/mnk/forward"
)

func ExampleCount() {
	s, err := forward.Count(context.Background(), 3, 3, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Games, s.XWins, s.OWins, s.Draws, s.Nodes)
	fmt.Println(s.Positions, s.Canonical, s.Terminal, s.CanonicalTerminal)
	// Output:
	// 255168 131184 77904 46080 549946
	// 5478 765 [626 316 16] [91 44 3]
}

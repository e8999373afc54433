package player

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
)

// NineboardTTBits sizes a nine-board engine player's table: 2^18 entries
// (4 MiB). An engine's move depends on it (with another size, other
// entries collide, and a search may choose another move of the same
// score), so every engine player of a specification has a table of this
// size: the terminal replays a match's games.
const NineboardTTBits = 18

// Nineboard is a player of nine-board tic-tac-toe: random, or the engine
// at a depth or a time per move. The engine keeps its table from move to
// move; Clear empties it, which a match does before every game so that
// the games depend on the seed and not on the games before. A player is
// for one goroutine at a time.
type Nineboard struct {
	spec   Spec
	search *nineboard.Searcher // the engine's; nil for random
}

// NewNineboard returns the nine-board player s: random or the engine
// (the kinds ParseNineboard reads).
func NewNineboard(s Spec) (*Nineboard, error) {
	switch s.Kind {
	case Random:
		return &Nineboard{spec: s}, nil
	case Engine:
		if s.Depth < 1 && s.Time <= 0 {
			return nil, fmt.Errorf("player %s: want a depth or a time", s)
		}
		return &Nineboard{spec: s, search: nineboard.NewSearcher(NineboardTTBits)}, nil
	}
	return nil, fmt.Errorf("player %s: nine-board is played by random and engine players", s)
}

// Spec is the player's specification.
func (p *Nineboard) Spec() Spec { return p.spec }

// Clear forgets what the engine learnt in earlier games.
func (p *Nineboard) Clear() {
	if p.search != nil {
		p.search.Clear()
	}
}

// Move chooses a move in b, which must not be over: the random player
// draws one uniformly from rng (b.RandomMove), the engine searches b to
// its depth or for its time. The Info is the engine's search (its PV valid
// until the player's next move), or only the move for random. A search
// cut short by ctx is not the player's move: the error is ctx's.
func (p *Nineboard) Move(ctx context.Context, b *nineboard.Board, rng *rand.Rand) (nineboard.Info, error) {
	if p.search == nil {
		return nineboard.Info{Move: b.RandomMove(rng)}, nil
	}
	info := p.search.Search(ctx, b, nineboard.Limits{Depth: p.spec.Depth, Time: p.spec.Time})
	if err := ctx.Err(); err != nil {
		return nineboard.Info{}, err
	}
	return info, nil
}

package nineboard

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// TTBits sizes each engine player's table: 2^18 entries (4 MiB), two per
// worker slot. An engine's move depends on it (with another size, other
// entries collide, and a search may choose another move of the same
// score), so whoever replays a match's games uses it too.
const TTBits = 18

// NewRunner implements tasks.Kind.
func (Match) NewRunner(tasks.Env) tasks.Runner {
	return &matchRunner{}
}

// matchRunner keeps one searcher per side across tasks; they are cleared
// before every game.
type matchRunner struct {
	searchers [2]*nineboard.Searcher
}

func (r *matchRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t matchTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("nineboard.match task: %w", err))
	}
	x, o, v, err := t.Validate()
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	if t.First < 0 || t.Count < 1 || t.First+t.Count > t.Games {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("nineboard.match task: games %d+%d out of 0..%d", t.First, t.Count, t.Games))
	}
	players := [2]Player{x, o}
	for s, p := range players {
		if p.Engine && r.searchers[s] == nil {
			r.searchers[s] = nineboard.NewSearcher(TTBits)
		}
	}
	var res matchResult
	for i := t.First; i < t.First+t.Count; i++ {
		if err := ctx.Err(); err != nil {
			return tasks.Output{}, err
		}
		g := r.play(ctx, v, players, t.Seed, i, &res)
		if ctx.Err() != nil {
			return tasks.Output{}, ctx.Err() // a search cut short is not a game
		}
		res.Games = append(res.Games, g)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// play plays game index i and adds it to res; it returns the moves.
func (r *matchRunner) play(ctx context.Context, v nineboard.Variant, players [2]Player, seed uint64, i int, res *matchResult) string {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	b := nineboard.NewBoard(v)
	var moves strings.Builder
	record := func(m nineboard.Move) {
		if moves.Len() > 0 {
			moves.WriteByte(' ')
		}
		moves.WriteString(m.String())
		b.Make(m)
	}
	if v == nineboard.FirstTriple {
		// The referee makes X's first move: a random board and cell.
		record(nineboard.RandomOpening(rng))
	}
	for _, s := range r.searchers {
		if s != nil {
			s.Clear()
		}
	}
	for b.Result() == nineboard.Ongoing {
		side := b.Side()
		p := players[side]
		st := &res.Sides[side]
		st.Moves++
		if !p.Engine {
			record(b.RandomMove(rng))
			continue
		}
		info := r.searchers[side].Search(ctx, b, nineboard.Limits{Depth: p.Depth, Time: p.Time})
		st.Nodes += info.Nodes
		st.DepthSum += info.Depth
		st.Micros += info.Elapsed.Microseconds()
		record(info.Move)
		if ctx.Err() != nil {
			break
		}
	}
	res.Plies += b.Ply()
	switch b.Result() {
	case nineboard.XWin:
		res.XWins++
	case nineboard.OWin:
		res.OWins++
	default:
		res.Draws++
	}
	return moves.String()
}

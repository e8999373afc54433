package nineboard

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/player"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// NewRunner implements tasks.Kind.
func (Match) NewRunner(tasks.Env) tasks.Runner {
	return &matchRunner{}
}

// matchRunner keeps one player per side across the tasks of a match (an
// engine's table is megabytes); they are cleared before every game.
type matchRunner struct {
	players [2]*player.Nineboard
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
	for s, spec := range []player.Spec{x, o} {
		if r.players[s] == nil || r.players[s].Spec() != spec {
			if r.players[s], err = player.NewNineboard(spec); err != nil {
				return tasks.Output{}, tasks.Permanent(err)
			}
		}
	}
	var res matchResult
	for i := t.First; i < t.First+t.Count; i++ {
		if err := ctx.Err(); err != nil {
			return tasks.Output{}, err
		}
		g := r.play(ctx, v, t.Seed, i, &res)
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
func (r *matchRunner) play(ctx context.Context, v nineboard.Variant, seed uint64, i int, res *matchResult) string {
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
	for _, p := range r.players {
		p.Clear()
	}
	for b.Result() == nineboard.Ongoing {
		side := b.Side()
		st := &res.Sides[side]
		st.Moves++
		info, err := r.players[side].Move(ctx, b, rng)
		if err != nil {
			break // cut short: Run returns ctx's error
		}
		st.Nodes += info.Nodes
		st.DepthSum += info.Depth
		st.Micros += info.Elapsed.Microseconds()
		record(info.Move)
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

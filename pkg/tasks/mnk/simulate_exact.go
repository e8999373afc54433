package mnk

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/player"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// exactOdds is the exact task's result: the odds of the match from the
// empty board (player.Exact enumerates every choice of its random players).
func exactOdds(ctx context.Context, g *mnk.Game, specs [2]player.Spec) (tasks.Output, error) {
	odds, err := player.Exact(ctx, g, mnk.Position{}, specs[0], specs[1])
	if err != nil {
		if ctx.Err() != nil {
			return tasks.Output{}, ctx.Err()
		}
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("exact odds: %w", err))
	}
	var res oddsResult
	for i, r := range []mnk.Result{mnk.XWin, mnk.OWin, mnk.Draw} {
		res.Fractions[i] = odds.Rat(r).RatString()
		res.Numbers[i] = odds.Float(r)
	}
	data, err := json.Marshal(res)
	return tasks.Output{Data: data}, err
}

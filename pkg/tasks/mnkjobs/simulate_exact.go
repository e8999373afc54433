package mnkjobs

import (
	"context"
	"errors"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/player"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// exactOdds is the exact task's result. PLACEHOLDER until player.Exact lands.
func exactOdds(ctx context.Context, g *mnk.Game, players [2]player.Player, specs [2]player.Spec) (tasks.Output, error) {
	return tasks.Output{}, tasks.Permanent(errors.New("exact odds: not built yet on this branch"))
}

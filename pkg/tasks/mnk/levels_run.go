package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/levels"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// NewRunner implements tasks.Kind.
func (Levels) NewRunner(env tasks.Env) tasks.Runner {
	return &levelsRunner{objects: env.Objects}
}

type levelsRunner struct {
	objects tasks.Objects
}

// objectStore is the cluster's object store as a store of pieces.
type objectStore struct{ tasks.Objects }

func (s objectStore) Get(ctx context.Context, name string) ([]byte, error) {
	return s.Objects.Get(ctx, name)
}

func (r *levelsRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var t levelsTask
	if err := json.Unmarshal(payload, &t); err != nil {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("mnk.levels task: %w", err))
	}
	if t.Value {
		return levelsValue(ctx, t)
	}
	b, err := levels.NewBoard(t.Rows, t.Cols, t.K)
	if err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	if r.objects == nil {
		return tasks.Output{}, tasks.Permanent(errors.New("mnk.levels: the worker has no object store"))
	}
	lt := levels.Task{Ply: t.Ply, Shard: t.Shard, Shards: t.Shards, Prefix: t.Prefix}
	st, err := b.Run(ctx, objectStore{r.objects}, lt, levels.Options{Memory: t.Memory, TempDir: os.TempDir()})
	if err != nil {
		return tasks.Output{}, err
	}
	// Every task of the ply before has a result: the pieces that this
	// shard read then are read no more.
	if d, ok := r.objects.(tasks.Deleter); ok && t.Ply >= 2 {
		prev := levels.Task{Ply: t.Ply - 1, Shard: t.Shard, Shards: t.Shards, Prefix: t.Prefix}
		for _, src := range prev.Sources() {
			_ = d.Delete(ctx, levels.PieceName(t.Prefix, prev.Ply, t.Shard, src))
		}
	}
	data, err := json.Marshal(st)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

// levelsValue solves the game of t with proof-number search, within
// ValueNodes nodes.
func levelsValue(ctx context.Context, t levelsTask) (tasks.Output, error) {
	res := valueResult{Value: "unknown"}
	g, err := mnk.New(t.Rows, t.Cols, t.K)
	if err != nil {
		res.Reason = fmt.Sprintf("the solver takes boards of up to %d a side", mnk.MaxSide)
	} else {
		s := pns.New(g, 64<<20)
		s.SetNodeLimit(ValueNodes)
		v, err := s.Solve(ctx, mnk.Position{})
		res.Nodes = s.Nodes()
		switch {
		case errors.Is(err, mnk.ErrNodeLimit):
			res.Reason = fmt.Sprintf("proof-number search did not settle it in %s nodes: analyze mnk solve may", tasks.Thousands(ValueNodes))
		case err != nil:
			return tasks.Output{}, err
		default:
			res.Value = valueWord(v)
		}
	}
	data, err := json.Marshal(res)
	if err != nil {
		return tasks.Output{}, err
	}
	return tasks.Output{Data: data}, nil
}

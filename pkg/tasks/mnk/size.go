package mnk

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"math/bits"
	"slices"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// The sizes of the m,n,k kinds' jobs (tasks.Sizer), from their parameters
// alone.

// decode reads the parameters of a job of kind.
func decode[P any](raw json.RawMessage, kind string) (P, error) {
	var p P
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, tasks.Invalid("%s parameters: %v", kind, err)
	}
	return p, nil
}

// Size implements tasks.Sizer: the games cut in tasks of GamesPerTask,
// and the exact odds' task.
func (Simulate) Size(raw json.RawMessage) (tasks.Size, error) {
	p, err := decode[SimulateParams](raw, "mnk.simulate")
	if err != nil {
		return tasks.Size{}, err
	}
	if _, _, err := p.Validate(); err != nil {
		return tasks.Size{}, err
	}
	per, by := p.perTask(), fmt.Sprintf("--games %d", p.Games)
	if p.GamesPerTask > 0 {
		by += fmt.Sprintf(" --games-per-task %d", p.GamesPerTask)
	}
	n := (p.Games + per - 1) / per
	if p.Exact {
		n++
	}
	return tasks.Size{Tasks: n, By: by}, nil
}

// Size implements tasks.Sizer: the positions at the split depth, at most
// the ways of placing its stones (symmetry makes them fewer); the
// automatic split stops at the first depth with autoSplitTasks open
// positions, whose parents were fewer.
func (Count) Size(raw json.RawMessage) (tasks.Size, error) {
	p, err := decode[CountParams](raw, "mnk.count")
	if err != nil {
		return tasks.Size{}, err
	}
	g, err := p.Validate()
	if err != nil {
		return tasks.Size{}, err
	}
	if p.SplitDepth < 0 {
		return tasks.Size{Tasks: autoSplitTasks * max(g.Cells(), 1), Bound: true, By: "--split-depth -1"}, nil
	}
	return splitSize(g, p.SplitDepth, fmt.Sprintf("--split-depth %d", p.SplitDepth)), nil
}

// placements bounds the positions after d plies on a board of cells
// cells: the ways of choosing d cells, times the ways of giving the
// first player ceil(d/2) of them (symmetry and ended games make them
// fewer). It stops at 2^62.
func placements(cells, d int) int {
	n := new(big.Int).Binomial(int64(cells), int64(d))
	n.Mul(n, new(big.Int).Binomial(int64(d), int64((d+1)/2)))
	if most := big.NewInt(1 << 62); n.Cmp(most) > 0 {
		return 1 << 62
	}
	return int(n.Int64())
}

// Size implements tasks.Sizer: the positions at the split depth (the
// root's moves by default), and the certificate's task.
func (Solve) Size(raw json.RawMessage) (tasks.Size, error) {
	p, err := decode[SolveParams](raw, "mnk.solve")
	if err != nil {
		return tasks.Size{}, err
	}
	if p.isWide() {
		// A question after each first move up to symmetry, and the root's.
		wg, err := p.validateWide()
		if err != nil {
			return tasks.Size{}, err
		}
		return tasks.Size{Tasks: wg.Cells() + 1, Bound: true, By: "the board"}, nil
	}
	g, err := p.Validate()
	if err != nil {
		return tasks.Size{}, err
	}
	size := splitSize(g, p.splitDepth(), fmt.Sprintf("--split-depth %d", p.SplitDepth))
	if p.Certificate {
		size.Tasks++
	}
	return size, nil
}

// Size implements tasks.Sizer: one task per cell of the grid.
func (Sweep) Size(raw json.RawMessage) (tasks.Size, error) {
	p, err := decode[SweepParams](raw, "mnk.sweep")
	if err != nil {
		return tasks.Size{}, err
	}
	gr, err := p.grid()
	if err != nil {
		return tasks.Size{}, err
	}
	return tasks.Size{Tasks: len(gr.cells), By: "--boards, --k and --algorithms"}, nil
}

// Size implements tasks.Sizer: one task.
func (Minimax) Size(json.RawMessage) (tasks.Size, error) { return tasks.Size{Tasks: 1}, nil }

// Size implements tasks.Sizer: one task.
func (Search) Size(json.RawMessage) (tasks.Size, error) { return tasks.Size{Tasks: 1}, nil }

// stopped is ctx's error, asked every 1024th step i of a long loop of a
// plan: a plan stops when its job is cancelled.
func stopped(ctx context.Context, i int) error {
	if i%1024 != 0 {
		return nil
	}
	return ctx.Err()
}

// splitSize is the size of a job that makes a task of each open position,
// up to symmetry, d plies in: placements bounds it; where that bound is
// past tasks.MaxTasks, the positions are counted, as the plan would make
// them, as long as they stay within it (a small k ends most games early,
// and symmetry divides the rest).
// openBudget bounds the moves openPositions plays: about a second.
const openBudget = 20_000_000

func splitSize(g *mnk.Game, d int, by string) tasks.Size {
	bound := placements(g.Cells(), d)
	if bound <= tasks.MaxTasks {
		return tasks.Size{Tasks: bound, Bound: true, By: by}
	}
	if n, ok := openPositions(g, d, tasks.MaxTasks); ok {
		return tasks.Size{Tasks: n, By: by}
	}
	return tasks.Size{Tasks: bound, Bound: true, By: by}
}

// openPositions counts the positions up to symmetry d plies in whose game
// goes on, and false if a ply has more than most of them, or the count
// would take more than openBudget moves (it runs where jobs are submitted).
func openPositions(g *mnk.Game, d, most int) (int, bool) {
	layer := []mnk.Position{{}}
	budget := openBudget
	for ply := 0; ply < d; ply++ {
		if budget -= len(layer) * (g.Cells() - ply); budget < 0 {
			return 0, false
		}
		next := make(map[mnk.Position]struct{}, 2*len(layer))
		for _, p := range layer {
			for empty := g.Empty(p); empty != 0; empty &= empty - 1 {
				child, res := g.Play(p, bits.TrailingZeros64(empty))
				if res != mnk.Ongoing {
					continue // an ended game makes no task
				}
				canon, _ := g.Canonical(child)
				next[canon] = struct{}{}
				if len(next) > most {
					return 0, false
				}
			}
		}
		layer = slices.Collect(maps.Keys(next))
		if len(layer) == 0 {
			return 0, true
		}
	}
	return len(layer), true
}

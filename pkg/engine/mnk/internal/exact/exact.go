// Package exact holds what the exact solvers (solve, pns) share: the value
// of each move and a principal variation, from a function that solves a
// position.
package exact

import (
	"context"
	"errors"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Solve is a function that solves a position: a solver's Solve method.
type Solve = func(context.Context, mnk.Position) (mnk.Value, error)

// Move plays cell at p and returns the position and the value of the
// move for the side that made it: a line completed wins, a full board is
// drawn, else the opposite of the child's value by solve.
func Move(ctx context.Context, g *mnk.Game, p mnk.Position, cell int, solve Solve) (mnk.Position, mnk.Value, error) {
	q, r := g.Play(p, cell)
	switch r {
	case mnk.XWin, mnk.OWin:
		return q, mnk.Win, nil
	case mnk.Draw:
		return q, mnk.Drawn, nil
	}
	v, err := solve(ctx, q)
	return q, -v, err
}

// Moves returns the value of every legal move of p with solve.
func Moves(ctx context.Context, g *mnk.Game, p mnk.Position, solve Solve) ([]mnk.MoveValue, error) {
	var mv []mnk.MoveValue
	for e := g.Empty(p); e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		_, v, err := Move(ctx, g, p, c, solve)
		if err != nil {
			return nil, err
		}
		mv = append(mv, mnk.MoveValue{Cell: c, Value: v})
	}
	return mv, nil
}

// PV returns a line of play from p, of value v for the side
// to move, where each move keeps the value: first is the move to try first
// (-1 if none).
func PV(ctx context.Context, g *mnk.Game, p mnk.Position, v mnk.Value,
	solve Solve, first func(mnk.Position) int) ([]int, error) {
	var pv []int
	cells := make([]int, 0, 65)
	for g.Status(p) == mnk.Ongoing {
		cells = cells[:0]
		if m := first(p); m >= 0 {
			cells = append(cells, m)
		}
		for e := g.Empty(p); e != 0; e &= e - 1 {
			cells = append(cells, bits.TrailingZeros64(e))
		}
		found := false
		for _, c := range cells {
			q, cv, err := Move(ctx, g, p, c, solve)
			if err != nil {
				return nil, err
			}
			if cv == v {
				pv, p, v, found = append(pv, c), q, -v, true
				break
			}
		}
		if !found {
			return pv, errors.New("principal variation: no move keeps the value")
		}
	}
	return pv, nil
}

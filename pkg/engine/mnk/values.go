package mnk

import (
	"context"
	"errors"
	"math/bits"
)

// The move values and principal variations of both exact solvers (Solver
// and ProofSolver), from a function that solves a position.

// moveValue plays cell at p and returns the position and the value of the
// move for the side that made it: a line completed wins, a full board is
// drawn, else the opposite of the child's value by solve.
func moveValue(ctx context.Context, g *Game, p Position, cell int, solve func(context.Context, Position) (Value, error)) (Position, Value, error) {
	q, r := g.Play(p, cell)
	switch r {
	case XWin, OWin:
		return q, Win, nil
	case Draw:
		return q, Drawn, nil
	}
	v, err := solve(ctx, q)
	return q, -v, err
}

// moveValues returns the value of every legal move of p with solve.
func moveValues(ctx context.Context, g *Game, p Position, solve func(context.Context, Position) (Value, error)) ([]MoveValue, error) {
	var mv []MoveValue
	for e := g.Empty(p); e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		_, v, err := moveValue(ctx, g, p, c, solve)
		if err != nil {
			return nil, err
		}
		mv = append(mv, MoveValue{c, v})
	}
	return mv, nil
}

// principalVariation returns a line of play from p, of value v for the side
// to move, where each move keeps the value: first is the move to try first
// (-1 if none).
func principalVariation(ctx context.Context, g *Game, p Position, v Value,
	solve func(context.Context, Position) (Value, error), first func(Position) int) ([]int, error) {
	var pv []int
	cells := make([]int, 0, 65)
	for g.Status(p) == Ongoing {
		cells = cells[:0]
		if m := first(p); m >= 0 {
			cells = append(cells, m)
		}
		for e := g.Empty(p); e != 0; e &= e - 1 {
			cells = append(cells, bits.TrailingZeros64(e))
		}
		found := false
		for _, c := range cells {
			q, cv, err := moveValue(ctx, g, p, c, solve)
			if err != nil {
				return nil, err
			}
			if cv == v {
				pv, p, v, found = append(pv, c), q, -v, true
				break
			}
		}
		if !found {
			return pv, errors.New("mnk: principal variation: no move keeps the value")
		}
	}
	return pv, nil
}

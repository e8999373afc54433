package pns

import (
	"context"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/exact"
)

// MoveValues returns the exact value of every legal move of p (which must
// be valid and not over), in increasing cell order.
func (s *Solver) MoveValues(ctx context.Context, p position) ([]mnk.MoveValue, error) {
	return exact.Moves(ctx, s.g, p, s.Solve)
}

// PV returns a principal variation from p, whose exact value for the side
// to move is v (see solve.Solver.PV). At each ply it tries first the move with
// which the table proved the side to move's goal: the line follows the
// proof, and most of its positions are found proven. Which proof the table
// holds depends on what its solvers searched before, so another run may
// give another line of the same value. (The first move in an order fixed
// by the position that keeps the value would not: but off the proof, the
// line's positions are proven anew, at several times the cost of the
// proof.)
func (s *Solver) PV(ctx context.Context, p position, v mnk.Value) ([]int, error) {
	return exact.PV(ctx, s.g, p, v, s.Solve, s.bestMove)
}

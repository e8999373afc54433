// Package minimax is the minimax of the textbooks for m,n,k-games
// (Textbook): no table, no symmetry, no pruning, so that the call counts
// users know can be reproduced.
package minimax

import (
	"context"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Options select the variants of the textbook minimax.
type Options struct {
	// Cutoff stops examining the moves of a position as soon as one of them
	// reaches the best score there is (+1, or with DepthScore an immediate
	// win).
	Cutoff bool
	// DepthScore scores as the well-known blog post does: a win is worth
	// Base - depth, a loss depth - Base, a draw 0, where depth is the number
	// of plies from the searched position to the end of the game; so the
	// search takes the quickest win and delays a loss. Base is 10 (as in the
	// post) or Cells+1 on boards of more than 9 cells, so that every win
	// still scores above a draw.
	DepthScore bool
}

// Result is what Textbook found.
type Result struct {
	// Calls is the number of calls of the recursive function: one per
	// position visited, the searched position and full boards included,
	// positions won by the last move excluded (they are scored without a
	// call).
	Calls uint64
	// Move is the chosen cell, the first in row-major order with the best
	// score, or -1 if the game is over.
	Move int
	// Score is the score of the position for the side to move.
	Score int
}

// Base returns the Base of the depth scoring for g (see
// Options.DepthScore).
func Base(g *mnk.Game) int { return max(10, g.Cells()+1) }

// Textbook runs the minimax of the textbooks from p (valid, not over): a
// negamax that tries the empty cells in row-major order, scores a move that
// completes a line at once without recursing (+1), scores a full board
// without a line 0 (after the call that finds it full), and keeps the best
// move with a strict > so that the first of equals wins. No table, no
// symmetry, no pruning (unless opt.Cutoff): it exists so that users can
// reproduce the call counts they know, 340,858 for tic-tac-toe (66,275 with
// the cutoff). It returns ctx's error if ctx is done first.
func Textbook(ctx context.Context, g *mnk.Game, p mnk.Position, opt Options) (Result, error) {
	t := textbook{g: g, ctx: ctx, opt: opt, base: Base(g)}
	var res Result
	if g.Status(p) != mnk.Ongoing {
		return Result{Move: -1}, nil
	}
	res.Score, res.Move = t.minimax(p, 0)
	res.Calls = t.calls
	if t.abort {
		return Result{}, ctx.Err()
	}
	return res, nil
}

type textbook struct {
	g     *mnk.Game
	ctx   context.Context
	opt   Options
	base  int
	calls uint64
	abort bool
}

// minimax returns the score of p for the side to move and the move that
// gets it; depth is the number of plies from the searched position.
func (t *textbook) minimax(p mnk.Position, depth int) (int, int) {
	t.calls++
	if t.calls&pollMask == 0 && t.ctx.Err() != nil {
		t.abort = true
	}
	if t.abort {
		return 0, -1
	}
	g := t.g
	empty := g.Empty(p)
	if empty == 0 {
		return 0, -1
	}
	win := 1
	if t.opt.DepthScore {
		win = t.base - (depth + 1)
	}
	xToMove := p.XToMove()
	best, move := -1<<30, -1
	// Row-major order is increasing bit order in the 8-stride layout.
	for e := empty; e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		q, r := g.Place(p, c, xToMove)
		var s int
		if r == mnk.XWin || r == mnk.OWin {
			s = win
		} else {
			s, _ = t.minimax(q, depth+1)
			s = -s
		}
		if s > best {
			best, move = s, c
		}
		if t.opt.Cutoff && best == win {
			break
		}
	}
	return best, move
}

// pollMask sets how often the search polls its context: every 2^14 calls.
const pollMask = 1<<14 - 1

package nineboard

import "math/rand/v2"

// RandomOpening is the referee's first move for X in FirstTriple: a board,
// then a cell, each drawn uniformly from rng. Matches and the terminal draw
// it from the same generator as the random players' moves, first.
func RandomOpening(rng *rand.Rand) Move {
	board := rng.IntN(9)
	return NewMove(board, rng.IntN(9))
}

// RandomMove returns a legal move of b drawn uniformly from rng (one draw
// among the moves in the order Moves lists them), or NoMove if the game is
// over.
func (b *Board) RandomMove(rng *rand.Rand) Move {
	var buf [81]Move
	ms := b.Moves(buf[:0])
	if len(ms) == 0 {
		return NoMove
	}
	return ms[rng.IntN(len(ms))]
}

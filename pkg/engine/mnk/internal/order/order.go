// Package order is the move ordering that the m,n,k searchers share: the
// window weights of the empty cells, and an insertion into a list of moves
// ordered by score.
package order

import (
	"math/bits"
)

// Insert adds move c with score v to the n moves ordered by score,
// highest first, after those of equal score, and returns n+1: the move
// ordering of the solver and the search.
func Insert(moves *[64]int8, sc *[64]int32, n int, c int8, v int32) int {
	j := n
	for j > 0 && sc[j-1] < v {
		moves[j], sc[j] = moves[j-1], sc[j-1]
		j--
	}
	moves[j], sc[j] = c, v
	return n + 1
}

// Weights sets cs[c], for every empty cell c, to the move-ordering
// score of the solver and the search: the sum, over the windows (masks of
// the k-windows of the board, mnk.Game.Windows) through c
// still open to a side, of that side's weight (attack for me, defence for
// them) times four to the power of its stones on the window.
func Weights(cs *[64]int32, windows []uint64, me, them, empty uint64, attack, defence int32) {
	for e := empty; e != 0; e &= e - 1 {
		cs[bits.TrailingZeros64(e)] = 0
	}
	for _, w := range windows {
		a, b := w&me, w&them
		var wt int32
		if b == 0 {
			wt = attack << (2 * bits.OnesCount64(a))
		}
		if a == 0 {
			wt += defence << (2 * bits.OnesCount64(b))
		}
		if wt == 0 {
			continue
		}
		for e := w & empty; e != 0; e &= e - 1 {
			cs[bits.TrailingZeros64(e)] += wt
		}
	}
}

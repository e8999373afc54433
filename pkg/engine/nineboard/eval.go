package nineboard

import "math/bits"

// Scores are in centi-units from the side to move's point of view. A won
// game is Mate minus the plies to the win, so shorter wins score higher.
const (
	Mate     = 30000
	Infinity = 32000
	// MateBound: scores beyond it are forced wins or losses.
	MateBound = Mate - MaxPly - 1
)

// Evaluation weights, set by hand (mobility's by matches, below); they
// only need to rank quiet positions, since every forced line is found by
// the search.
const (
	winInOne   = 2000 // side to move is sent to a board where it has a threat
	lostInTwo  = 1500 // every cell of the side to move's board sends the opponent to its threat
	hotBoard   = 60   // a board in which the side has a threat: the opponent must not send it there
	threatCell = 15   // each completing cell, beyond the first, in a board
	safeCell   = 8    // each cell the side to move can play without handing over a win
	// mobility weighs the cells each side can play anywhere without
	// sending the opponent to a board where it wins. It was chosen by
	// matches at equal depth against the same evaluation without it, and
	// against a weight of 6 (commit b921618 has the figures).
	mobility    = 3
	freeMove    = 40  // Ultimate: the side to move may play in any open board
	wonBoard    = 120 // Ultimate: a board won
	metaThreat  = 250 // Ultimate: two won boards in a line whose third is open
	ultThreat   = 12  // Ultimate: a two-in-a-row threat in an open board
	ultSentWin  = 60  // Ultimate: the side to move can win the board it is sent to
	centreCells = 3   // Ultimate: a stone in a centre cell, or any stone in the centre board
)

// boardWeight ranks the boards of the grid in Ultimate: the centre is in
// four lines, corners in three, edges in two.
var boardWeight = [9]int{3, 2, 3, 2, 4, 2, 3, 2, 3}

// Evaluate scores b for the side to move without searching.
func (b *Board) Evaluate() int {
	if b.variant == Ultimate {
		return b.evalUltimate()
	}
	return b.evalFirstTriple()
}

// threats returns, for player p, the boards in which p has an empty cell
// that completes a line, and the number of such cells.
func (b *Board) threats(p Player) (hot uint16, cells int) {
	for bd := range 9 {
		own, opp := b.cells[p][bd], b.cells[p^1][bd]
		if t := completes[own] &^ (own | opp); t != 0 {
			hot |= 1 << bd
			cells += bits.OnesCount16(t)
		}
	}
	return hot, cells
}

// evalFirstTriple reads who will be sent where: a board in which a side has
// a two-in-a-row with an empty third cell is one the opponent must not send
// it to, so the cells of the side to move's board that lead to the
// opponent's hot boards are lost moves.
func (b *Board) evalFirstTriple() int {
	s := b.side
	hotS, cellsS := b.threats(s)
	hotO, cellsO := b.threats(s ^ 1)
	n := b.next
	if n >= 0 && hotS>>n&1 != 0 {
		return winInOne
	}
	score := hotBoard*(bits.OnesCount16(hotS)-bits.OnesCount16(hotO)) +
		threatCell*((cellsS-bits.OnesCount16(hotS))-(cellsO-bits.OnesCount16(hotO)))
	// Every empty cell whose number is a board hot for the opponent is a
	// move its side can never play: count the playable cells of each side.
	var safeS, safeO int
	for bd := range 9 {
		empty := full9 &^ (b.cells[X][bd] | b.cells[O][bd])
		safeS += bits.OnesCount16(empty &^ hotO)
		safeO += bits.OnesCount16(empty &^ hotS)
	}
	score += mobility * (safeS - safeO)
	if n >= 0 {
		empty := full9 &^ (b.cells[X][n] | b.cells[O][n])
		safe := empty &^ hotO
		if safe == 0 {
			return -lostInTwo
		}
		score += safeCell * bits.OnesCount16(safe)
	}
	return score
}

func (b *Board) evalUltimate() int {
	s := b.side
	score := 0
	closed := b.closed()
	for _, p := range [2]Player{s, s ^ 1} {
		v := 0
		won := b.won[p]
		v += wonBoard * bits.OnesCount16(won)
		v += metaThreat * bits.OnesCount16(completes[won]&^closed)
		for open := full9 &^ closed; open != 0; open &= open - 1 {
			bd := bits.TrailingZeros16(open)
			own, opp := b.cells[p][bd], b.cells[p^1][bd]
			v += ultThreat * boardWeight[bd] * bits.OnesCount16(completes[own]&^(own|opp))
			v += centreCells * int(own>>4&1)
		}
		v += centreCells * bits.OnesCount16(b.cells[p][4])
		if p == s {
			score += v
		} else {
			score -= v
		}
	}
	if b.next == AnyBoard {
		score += freeMove
	} else if own, opp := b.cells[s][b.next], b.cells[s^1][b.next]; completes[own]&^(own|opp) != 0 {
		score += ultSentWin
	}
	return score
}

package cert

import (
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// maxBlockCells bounds the cells of a block of a matching, so that its
// game is played out in a few thousand positions.
const maxBlockCells = 8

// checkMatching returns the zone of p (the blocks' cells) if blocks is a
// set matching of the strategy's side at p, else why not: blocks of two to
// eight distinct empty cells, no cell in two blocks, and a way to give
// every line free of the side's stones to a block holding two of its
// empty cells or more, such that in every block the side wins the
// Maker-Breaker game of the lines given to it (the other side moving
// first: breakerWins). Then the side does not lose from p: it answers each
// move of the other side in a block by that block's game, anywhere
// otherwise (a stone of its own more never hurts it in a block), and each
// line the other side could fill gets one of its stones first. The lines
// are given to the blocks by a search that backs up where a block's game
// is lost.
func (v *verifier) checkMatching(p mnk.Position, blocks [][]int8) (uint64, error) {
	st := v.st
	def := v.def(p)
	empty := v.r.mask &^ (p.X | p.O)
	fail := func(format string, args ...any) error { return v.leafError("matching", p, format, args...) }
	var used uint64
	cells := make([]uint64, len(blocks))
	for i, b := range blocks {
		if len(b) < 2 || len(b) > maxBlockCells {
			return 0, fail("has a block of %d cells (want 2 to %d)", len(b), maxBlockCells)
		}
		for _, c := range b {
			if c < 0 || c > 63 || empty>>uint(c)&1 == 0 {
				return 0, fail("puts the cell %d in a block, which is not an empty cell of the board", c)
			}
			if used>>uint(c)&1 != 0 {
				return 0, fail("uses the cell %s twice", cellName(int(c)))
			}
			used |= 1 << uint(c)
			cells[i] |= 1 << uint(c)
		}
	}
	var open []uint64
	for _, w := range v.r.lines {
		if w&def == 0 {
			open = append(open, w)
		}
	}
	edges := make([][]uint64, len(blocks))
	var give func(i int) bool
	give = func(i int) bool {
		if i == len(open) {
			return true
		}
		for j, b := range cells {
			tr := open[i] & empty & b
			if bits.OnesCount64(tr) < 2 {
				continue
			}
			edges[j] = append(edges[j], tr)
			if breakerWins(edges[j], b) && give(i+1) {
				return true
			}
			edges[j] = edges[j][:len(edges[j])-1]
		}
		return false
	}
	if !give(0) {
		return 0, fail("cannot give every line free of %s's stones to a block whose game %s wins", st.Side(), st.Side())
	}
	return used, nil
}

// breakerWins reports whether Breaker, moving second, takes a cell of
// every edge (a set of the cells free) before Maker takes all the cells of
// one, whatever Maker plays: at each turn Maker takes a free cell, or
// passes (plays elsewhere), which leaves Breaker the game it had.
func breakerWins(edges []uint64, free uint64) bool {
	for m := free; m != 0; m &= m - 1 {
		c := m & -m
		var left []uint64
		for _, e := range edges {
			left = append(left, e&^c)
		}
		rest := free &^ c
		won := false
		for r := rest; r != 0 && !won; r &= r - 1 {
			d := r & -r
			var next []uint64
			lost := false
			for _, e := range left {
				if e&d != 0 {
					continue // hit
				}
				if e == 0 {
					lost = true
				}
				next = append(next, e)
			}
			won = !lost && breakerWins(next, rest&^d)
		}
		if rest == 0 {
			won = true
			for _, e := range left {
				won = won && e != 0
			}
		}
		if !won {
			return false
		}
	}
	for _, e := range edges {
		if e == 0 {
			return false
		}
	}
	return true
}

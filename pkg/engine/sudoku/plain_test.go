package sudoku

import "math/bits"

// plain is the plain reference solver: 9-bit candidate masks per row,
// column and box, no propagation, branching on the fewest possibilities
// (a cell's candidates or a missing digit's places in a unit). It is slow
// (about 5,000 17-clue puzzles per second) and obviously right, which
// is its use: the differential tests hold the fast solver to it.
type plain struct {
	g               Grid
	row, col, box   [9]uint16 // digits used, bit d-1 for digit d
	n, limit, nodes int
	sol             [2]Grid
}

// solvePlain counts the solutions of g up to limit and keeps the first two.
// Conflicting givens have no solution.
func (p *plain) solve(g Grid, limit int) int {
	*p = plain{g: g, limit: limit}
	if g.Conflict() != nil || limit < 1 {
		return 0
	}
	for i, v := range g {
		if v != 0 {
			p.set(i, v)
		}
	}
	p.search()
	return p.n
}

func (p *plain) set(i int, v uint8) {
	m := uint16(1) << (v - 1)
	p.row[i/9] |= m
	p.col[i%9] |= m
	p.box[boxOf(i)] |= m
	p.g[i] = v
}

func (p *plain) unset(i int) {
	m := ^(uint16(1) << (p.g[i] - 1))
	p.row[i/9] &= m
	p.col[i%9] &= m
	p.box[boxOf(i)] &= m
	p.g[i] = 0
}

// free returns the candidate digits of cell i as a 9-bit mask.
func (p *plain) free(i int) uint16 {
	return ^(p.row[i/9] | p.col[i%9] | p.box[boxOf(i)]) & 0x1FF
}

// search branches on the empty cell with fewest candidates, or on the
// places left for a digit in a unit (row, column or box) where it is
// missing, whichever has fewer possibilities; a cell or a missing digit
// with none is a dead end.
func (p *plain) search() {
	p.nodes++
	best, bestN := -1, 10
	for i, v := range p.g {
		if v == 0 {
			if n := bits.OnesCount16(p.free(i)); n < bestN {
				best, bestN = i, n
			}
		}
	}
	if best < 0 {
		if p.n < len(p.sol) {
			p.sol[p.n] = p.g
		}
		p.n++
		return
	}
	bestUnit, bestDigit := -1, uint8(0)
	for u := 0; u < len(units) && bestN > 1; u++ {
		var placed uint16
		for _, c := range units[u] {
			if v := p.g[c]; v != 0 {
				placed |= 1 << (v - 1)
			}
		}
		for d := uint8(1); d <= 9; d++ {
			if placed&(1<<(d-1)) != 0 {
				continue
			}
			n := 0
			for _, c := range units[u] {
				if p.g[c] == 0 && p.free(int(c))&(1<<(d-1)) != 0 {
					n++
				}
			}
			if n < bestN {
				bestUnit, bestDigit, bestN = u, d, n
			}
		}
	}
	if bestUnit >= 0 {
		for _, c := range units[bestUnit] {
			if p.n >= p.limit {
				return
			}
			if p.g[c] == 0 && p.free(int(c))&(1<<(bestDigit-1)) != 0 {
				p.set(int(c), bestDigit)
				p.search()
				p.unset(int(c))
			}
		}
		return
	}
	for m := p.free(best); m != 0 && p.n < p.limit; m &= m - 1 {
		p.set(best, uint8(bits.TrailingZeros16(m))+1)
		p.search()
		p.unset(best)
	}
}

// Package rating is wopr's logical Sudoku solver: it solves a puzzle the
// way a person does, one step at a time with the easiest technique that
// makes progress, and rates it on the Sudoku Explainer scale. A puzzle's
// rating is its hardest step (the Explainer's ER).
//
// The techniques, their order and their ratings follow Sukaku Explainer
// with its default settings: singles (1.0 to 2.3, with the "direct"
// locked candidates and hidden sets that lead straight to a single),
// locked candidates (2.6, 2.8), naked and hidden sets (3.0 to 5.4), fish
// (3.2, 3.8, 5.2), strong-link fish of two to four links, grouped or not
// (4.0 to 6.1), XY- and XYZ-wings (4.2, 4.4), unique loops (4.5 to 5.x),
// BUG (5.6 and up), WXYZ- to TUVWXYZ-wings (5.5 to 7.5), aligned pair
// exclusion (6.2), then chains: X-, Y- and XY-cycles and forcing chains
// (6.5 to 7.x), aligned triple exclusion (7.5), Nishio (7.5 and up), cell
// and region forcing chains (8.0 and up) and dynamic forcing chains (8.5
// and up), each with the Explainer's length supplement, then its dynamic
// forcing chains (+) (9.0 and up) and nested forcing chains (9.5, 10.0
// and 10.5 and up), whose propagations also draw on other rules and on
// chains nested in them. A rated step never
// removes a digit of the solution (checked in the tests against every
// puzzle's unique solution).
//
// The grid is a candidate bitmask per cell (bit d-1 for digit d); cell
// sets are 128-bit masks. Rating a puzzle up to 6.0 allocates nothing;
// the chains reuse their buffers from one puzzle to the next.
package rating

import "math/bits"

// cellSet is a set of cells: bit i of lo for cell i < 64, bit i-64 of hi.
type cellSet struct{ lo, hi uint64 }

func (s cellSet) has(i int) bool {
	if i < 64 {
		return s.lo>>i&1 != 0
	}
	return s.hi>>(i-64)&1 != 0
}

func (s *cellSet) add(i int) {
	if i < 64 {
		s.lo |= 1 << i
	} else {
		s.hi |= 1 << (i - 64)
	}
}

func (s cellSet) and(t cellSet) cellSet    { return cellSet{s.lo & t.lo, s.hi & t.hi} }
func (s cellSet) or(t cellSet) cellSet     { return cellSet{s.lo | t.lo, s.hi | t.hi} }
func (s cellSet) andNot(t cellSet) cellSet { return cellSet{s.lo &^ t.lo, s.hi &^ t.hi} }
func (s cellSet) empty() bool              { return s.lo|s.hi == 0 }
func (s cellSet) count() int               { return bits.OnesCount64(s.lo) + bits.OnesCount64(s.hi) }

// each calls f with every cell of s in order.
func (s cellSet) each(f func(i int)) {
	for lo := s.lo; lo != 0; lo &= lo - 1 {
		f(bits.TrailingZeros64(lo))
	}
	for hi := s.hi; hi != 0; hi &= hi - 1 {
		f(64 + bits.TrailingZeros64(hi))
	}
}

// first returns the lowest cell of a nonempty s.
func (s cellSet) first() int {
	if s.lo != 0 {
		return bits.TrailingZeros64(s.lo)
	}
	return 64 + bits.TrailingZeros64(s.hi)
}

// Units are numbered as the Explainer scans them: boxes 0-8, rows 9-17,
// columns 18-26; unitCells lists a unit's cells in order.
var (
	unitCells [27][9]int
	unitSet   [27]cellSet
	cellUnit  [81][3]int // box, row, column
	peers     [81]cellSet
	allCells  cellSet
)

func init() {
	for i := range 81 {
		r, c := i/9, i%9
		b := r/3*3 + c/3
		cellUnit[i] = [3]int{b, 9 + r, 18 + c}
		allCells.add(i)
	}
	var n [27]int
	for i := range 81 {
		for _, u := range cellUnit[i] {
			unitCells[u][n[u]] = i
			n[u]++
			unitSet[u].add(i)
		}
	}
	for i := range 81 {
		for _, u := range cellUnit[i] {
			peers[i] = peers[i].or(unitSet[u])
		}
		peers[i] = peers[i].andNot(single(i))
	}
}

func single(i int) cellSet {
	var s cellSet
	s.add(i)
	return s
}

func unitName(u int) string {
	switch {
	case u < 9:
		return "box " + string(rune('1'+u))
	case u < 18:
		return "row " + string(rune('1'+u-9))
	}
	return "column " + string(rune('1'+u-18))
}

func cellName(i int) string { return "r" + string(rune('1'+i/9)) + "c" + string(rune('1'+i%9)) }

func digitsOf(m uint16) string {
	var b []byte
	for ; m != 0; m &= m - 1 {
		b = append(b, byte('1'+bits.TrailingZeros16(m)))
	}
	return string(b)
}

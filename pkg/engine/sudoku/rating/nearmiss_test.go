package rating

import (
	"math/bits"
	"testing"
)

// marks is a position by its candidates: every cell empty, all nine
// digits possible unless an edit below takes some away. With every
// other digit everywhere, no pattern but the one built can hold.
type marks [81]uint16

func fullMarks() marks {
	var m marks
	for i := range m {
		m[i] = 0x1ff
	}
	return m
}

// cell is r1c1-style: row and column from 1.
func cell(r, c int) int { return 9*(r-1) + c - 1 }

// keep sets cell i's candidates to the digits ds.
func (m *marks) keep(i int, ds ...int) {
	m[i] = 0
	for _, d := range ds {
		m[i] |= 1 << (d - 1)
	}
}

// only leaves digit d in unit u at the cells given, removing it elsewhere
// in u.
func (m *marks) only(u, d int, cells ...int) {
	for _, i := range unitCells[u] {
		m[i] &^= 1 << (d - 1)
	}
	for _, i := range cells {
		m[i] |= 1 << (d - 1)
	}
}

func row(r int) int { return 8 + r }
func col(c int) int { return 17 + c }
func box(b int) int { return b - 1 }

// loadMarks sets the solver's grid to the position.
func (s *Solver) loadMarks(m marks) {
	s.res, s.wrong, s.truth, s.ceiling = Result{}, "", nil, noCeiling
	s.left = 81
	for d := range s.dcells {
		s.dcells[d] = cellSet{}
	}
	for i, c := range m {
		s.cand[i], s.val[i] = c, 0
		for ; c != 0; c &= c - 1 {
			s.dcells[bits.TrailingZeros16(c)].add(i)
		}
	}
	s.counted()
}

// nearMiss is a position where a technique applies and, a candidate or a
// cell away, one where its pattern almost holds and it must not.
type nearMiss struct {
	name      string
	technique func(s *Solver) bool
	applies   func() marks
	not       func() marks
	// removed is a candidate, cell and digit, that the step removes
	// where the technique applies.
	removedCell, removedDigit int
}

var nearMisses = []nearMiss{
	{
		name: "hidden single: digit 1 in two places of box 1", technique: (*Solver).hiddenSingle,
		applies:     func() marks { m := fullMarks(); m.only(box(1), 1, cell(1, 1)); return m },
		not:         func() marks { m := fullMarks(); m.only(box(1), 1, cell(1, 1), cell(2, 2)); return m },
		removedCell: cell(1, 5), removedDigit: 1,
	},
	{
		name: "naked single: two candidates left", technique: (*Solver).nakedSingle,
		applies:     func() marks { m := fullMarks(); m.keep(cell(1, 1), 1); return m },
		not:         func() marks { m := fullMarks(); m.keep(cell(1, 1), 1, 2); return m },
		removedCell: cell(9, 1), removedDigit: 1,
	},
	{
		name: "pointing: digit 1 of box 1 in two rows", technique: (*Solver).locking,
		applies:     func() marks { m := fullMarks(); m.only(box(1), 1, cell(1, 1), cell(1, 2)); return m },
		not:         func() marks { m := fullMarks(); m.only(box(1), 1, cell(1, 1), cell(1, 2), cell(2, 3)); return m },
		removedCell: cell(1, 9), removedDigit: 1,
	},
	{
		name: "naked pair: the second cell has another digit", technique: func(s *Solver) bool { return s.nakedSet(2) },
		applies: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 2)
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 3)
			return m
		},
		removedCell: cell(1, 9), removedDigit: 2,
	},
	{
		name: "hidden pair: one digit has a third place", technique: func(s *Solver) bool { return s.hiddenSet(2, false) },
		applies: func() marks {
			m := fullMarks()
			m.only(row(1), 1, cell(1, 1), cell(1, 5))
			m.only(row(1), 2, cell(1, 1), cell(1, 5))
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.only(row(1), 1, cell(1, 1), cell(1, 5))
			m.only(row(1), 2, cell(1, 1), cell(1, 5), cell(1, 9))
			return m
		},
		removedCell: cell(1, 5), removedDigit: 9,
	},
	{
		name: "x-wing: a third candidate in a row", technique: func(s *Solver) bool { return s.fish(2) },
		applies: func() marks {
			m := fullMarks()
			m.only(row(1), 1, cell(1, 1), cell(1, 5))
			m.only(row(5), 1, cell(5, 1), cell(5, 5))
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.only(row(1), 1, cell(1, 1), cell(1, 5))
			m.only(row(5), 1, cell(5, 1), cell(5, 5), cell(5, 9))
			return m
		},
		removedCell: cell(9, 5), removedDigit: 1,
	},
	{
		name: "swordfish: four columns", technique: func(s *Solver) bool { return s.fish(3) },
		applies: func() marks {
			m := fullMarks()
			m.only(row(1), 1, cell(1, 1), cell(1, 5))
			m.only(row(5), 1, cell(5, 5), cell(5, 9))
			m.only(row(9), 1, cell(9, 1), cell(9, 9))
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.only(row(1), 1, cell(1, 1), cell(1, 5))
			m.only(row(5), 1, cell(5, 5), cell(5, 9))
			m.only(row(9), 1, cell(9, 1), cell(9, 8))
			return m
		},
		removedCell: cell(3, 9), removedDigit: 1,
	},
	{
		name: "xy-wing: the pincers end on different digits", technique: (*Solver).xyWing,
		applies: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 3)
			m.keep(cell(5, 1), 2, 3)
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 3)
			m.keep(cell(5, 1), 2, 4)
			return m
		},
		removedCell: cell(5, 5), removedDigit: 3,
	},
	{
		name: "xy-wing: the pincers see no common cell with the digit", technique: (*Solver).xyWing,
		applies: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 3)
			m.keep(cell(5, 1), 2, 3)
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 3)
			m.keep(cell(5, 1), 2, 3)
			m[cell(5, 5)] &^= 1 << 2 // the pincers' only common peer but the pivot
			return m
		},
		removedCell: cell(5, 5), removedDigit: 3,
	},
	{
		name: "xyz-wing: the pincers share no cell with the pivot", technique: (*Solver).xyzWing,
		applies: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2, 3)
			m.keep(cell(1, 5), 1, 3)
			m.keep(cell(2, 2), 2, 3)
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2, 3)
			m.keep(cell(1, 5), 1, 3)
			m.keep(cell(5, 1), 2, 3)
			return m
		},
		removedCell: cell(1, 2), removedDigit: 3,
	},
	{
		name: "skyscraper: a third place in the second column", technique: func(s *Solver) bool { return s.strongLinks(2) },
		applies: func() marks {
			m := fullMarks()
			m.only(col(1), 1, cell(1, 1), cell(9, 1))
			m.only(col(5), 1, cell(2, 5), cell(9, 5))
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.only(col(1), 1, cell(1, 1), cell(9, 1))
			m.only(col(5), 1, cell(2, 5), cell(5, 5), cell(9, 5))
			return m
		},
		removedCell: cell(1, 5), removedDigit: 1,
	},
	{
		name: "unique rectangle: four boxes, no deadly pattern", technique: (*Solver).uniqueLoops,
		applies: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 2), 1, 2)
			m.keep(cell(5, 1), 1, 2)
			m.keep(cell(5, 2), 1, 2, 3)
			return m
		},
		not: func() marks {
			m := fullMarks()
			m.keep(cell(1, 1), 1, 2)
			m.keep(cell(1, 5), 1, 2)
			m.keep(cell(5, 1), 1, 2)
			m.keep(cell(5, 5), 1, 2, 3)
			return m
		},
		removedCell: cell(5, 2), removedDigit: 1,
	},
}

// TestNearMisses: each technique, called alone, makes its step on a
// position built for it, removing the candidate expected, and finds
// nothing on the same position with the pattern broken by one candidate
// or one cell.
func TestNearMisses(t *testing.T) {
	s := NewSolver()
	for _, c := range nearMisses {
		s.loadMarks(c.applies())
		if !c.technique(s) {
			t.Errorf("%s: no step where the pattern holds, want one", c.name)
		} else if s.cand[c.removedCell]>>(c.removedDigit-1)&1 != 0 && s.val[c.removedCell] == 0 {
			t.Errorf("%s: %d still a candidate of %s, want it removed", c.name, c.removedDigit, cellName(c.removedCell))
		}
		s.loadMarks(c.not())
		if c.technique(s) {
			t.Errorf("%s: found a step (now %d steps, rated %d), want none", c.name, s.res.Steps, s.res.Rating)
		}
	}
}

package rating

import (
	"fmt"
	"math/bits"
)

// alignedTriple finds an aligned triple exclusion (the Explainer's
// "Aligned Triplet Exclusion", 7.5): three cells with at least two cells
// of two or three candidates that see all three (the excluders). A choice
// of digits for the three that repeats a digit between two of them that
// see each other, or that takes every digit of an excluder, is
// impossible; a digit of one of the three that is in no possible choice
// goes.
//
// The search follows the Explainer's AlignedExclusion(3), since the first
// triple that eliminates is the step taken: the base cells are those of
// two candidates or more with an excluder among their peers (and no
// unplaced single, which the solver has placed before); the first two are
// taken in the order (0,1), (0,2), (1,2), (0,3), ... of the base cells,
// and the third among the base cells that are excluders of the first,
// then of the second, in cell order.
func (s *Solver) alignedTriple() bool {
	var small, ones cellSet
	for i := range 81 {
		switch bits.OnesCount16(s.cand[i]) {
		case 1:
			ones.add(i)
		case 2, 3:
			small.add(i)
		}
	}
	var base [81]int
	var excl [81]cellSet // the excluders of each base cell
	var isBase cellSet
	nb := 0
	for i := range 81 {
		if bits.OnesCount16(s.cand[i]) < 2 || !peers[i].and(ones).empty() {
			continue
		}
		if e := peers[i].and(small); !e.empty() {
			base[nb], excl[i] = i, e
			isBase.add(i)
			nb++
		}
	}
	var ex [20]uint16
	for n2 := 1; n2 < nb; n2++ {
		for n1 := range n2 {
			a, b := base[n1], base[n2]
			// Every excluder of the triple is one of the first two.
			ab := excl[a].and(excl[b])
			if ab.count() < 2 {
				continue
			}
			pair := single(a).or(single(b))
			first := excl[a].and(isBase).andNot(pair)
			second := excl[b].and(isBase).andNot(pair).andNot(excl[a])
			for _, tail := range [2]cellSet{first, second} {
				for t := tail; !t.empty(); {
					c := t.first()
					t = t.andNot(single(c))
					common := ab.and(excl[c])
					if common.count() < 2 {
						continue
					}
					ne := 0
					common.each(func(j int) {
						ex[ne] = s.cand[j]
						ne++
					})
					if s.excludeTriple(a, b, c, ex[:ne]) {
						return true
					}
				}
			}
		}
	}
	return false
}

// excludeTriple tries the digits of cells a, b and c against the
// excluders' candidates ex, and removes those in no allowed choice.
func (s *Solver) excludeTriple(a, b, c int, ex []uint16) bool {
	seeAB, seeAC, seeBC := sees(a, b), sees(a, c), sees(b, c)
	// For each digit va of a and vb of b, the digits of c left: not one
	// that a cell seeing c holds, nor the last digit of an excluder that
	// va and vb take all but one of; none if they take all of one.
	var okA, okB, okC uint16
	for ma := s.cand[a]; ma != 0; ma &= ma - 1 {
		va := ma & -ma
		for mb := s.cand[b]; mb != 0; mb &= mb - 1 {
			vb := mb & -mb
			if va == vb && seeAB {
				continue
			}
			v := va | vb
			left := s.cand[c]
			if seeAC {
				left &^= va
			}
			if seeBC {
				left &^= vb
			}
			for _, e := range ex {
				r := e &^ v
				if r&(r-1) == 0 { // at most one digit of e left
					left &^= r
					if r == 0 {
						left = 0
					}
				}
			}
			if left != 0 {
				okA |= va
				okB |= vb
				okC |= left
			}
		}
	}
	ra, rb, rc := s.cand[a]&^okA, s.cand[b]&^okB, s.cand[c]&^okC
	if ra|rb|rc == 0 {
		return false
	}
	s.elim(a, ra)
	s.elim(b, rb)
	s.elim(c, rc)
	s.record(AlignedTripleExclusion, 75, func() string {
		var t []byte
		for _, x := range [3]struct {
			cell int
			m    uint16
		}{{a, ra}, {b, rb}, {c, rc}} {
			if x.m != 0 {
				t = fmt.Appendf(t, " %s from %s", digitsOf(x.m), cellName(x.cell))
			}
		}
		return fmt.Sprintf("aligned triple exclusion %s,%s,%s: removed%s", cellName(a), cellName(b), cellName(c), t)
	})
	return true
}

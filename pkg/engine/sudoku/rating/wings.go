package rating

import (
	"fmt"
	"math/bits"
)

// sees tells whether two different cells share a unit.
func sees(a, b int) bool { return peers[a].has(b) }

// turbot finds two strong links on a digit (units where it has two
// places) joined by a weak one: one end of either link is the digit, so
// it goes from the cells that see both far ends. Two parallel lines (a
// skyscraper) or a box and a line rate 4.0, a row and a column (a kite)
// 4.1, as the Sukaku Explainer grades them on se-rated-dev.
func (s *Solver) turbot() bool {
	type link struct{ a, b, u int }
	var links [27]link
	for d := 1; d <= 9; d++ {
		n := 0
		for u := range 27 {
			p := s.positions(u, d)
			if p.count() == 2 {
				a := p.first()
				links[n] = link{a, p.andNot(single(a)).first(), u}
				n++
			}
		}
		for i := range n {
			for j := range n {
				if i == j {
					continue
				}
				for o := range 4 {
					a1, a2 := links[i].a, links[i].b
					if o&1 != 0 {
						a1, a2 = a2, a1
					}
					b1, b2 := links[j].a, links[j].b
					if o&2 != 0 {
						b1, b2 = b2, b1
					}
					if a2 == b1 || a1 == b2 || a1 == b1 || a2 == b2 || !sees(a2, b1) {
						continue
					}
					e := peers[a1].and(peers[b2]).and(s.dcells[d-1]).andNot(single(a2)).andNot(single(b1))
					if e.empty() {
						continue
					}
					ui, uj := links[i].u, links[j].u
					rating := 40
					if ui >= 9 && uj >= 9 && (ui < 18) != (uj < 18) {
						rating = 41 // a row and a column: a kite
					}
					s.elimSet(e, d)
					s.record(TurbotFish, rating, func() string {
						return fmt.Sprintf("turbot fish on %d: %s=%s-%s=%s, removed from %s", d, cellName(a1), cellName(a2), cellName(b1), cellName(b2), cellsText(e))
					})
					return true
				}
			}
		}
	}
	return false
}

func (s *Solver) xyWing() bool {
	for p := range 81 {
		cp := s.cand[p]
		if bits.OnesCount16(cp) != 2 {
			continue
		}
		var wings [20]int
		n := 0
		peers[p].each(func(j int) {
			if c := s.cand[j]; bits.OnesCount16(c) == 2 && bits.OnesCount16(c&cp) == 1 {
				wings[n] = j
				n++
			}
		})
		for i := range n {
			for j := i + 1; j < n; j++ {
				a, b := wings[i], wings[j]
				ca, cb := s.cand[a], s.cand[b]
				z := ca & cb &^ cp
				if z == 0 || ca&cp == cb&cp {
					continue
				}
				d := bits.TrailingZeros16(z) + 1
				e := peers[a].and(peers[b]).and(s.dcells[d-1]).andNot(single(p))
				if e.empty() {
					continue
				}
				s.elimSet(e, d)
				s.record(XYWing, 42, func() string {
					return fmt.Sprintf("xy-wing %s,%s,%s on %d, removed from %s", cellName(p), cellName(a), cellName(b), d, cellsText(e))
				})
				return true
			}
		}
	}
	return false
}

func (s *Solver) xyzWing() bool {
	for p := range 81 {
		cp := s.cand[p]
		if bits.OnesCount16(cp) != 3 {
			continue
		}
		var wings [20]int
		n := 0
		peers[p].each(func(j int) {
			if c := s.cand[j]; bits.OnesCount16(c) == 2 && c&cp == c {
				wings[n] = j
				n++
			}
		})
		for i := range n {
			for j := i + 1; j < n; j++ {
				a, b := wings[i], wings[j]
				z := s.cand[a] & s.cand[b]
				if bits.OnesCount16(z) != 1 || s.cand[a]|s.cand[b] != cp {
					continue
				}
				d := bits.TrailingZeros16(z) + 1
				e := peers[a].and(peers[b]).and(peers[p]).and(s.dcells[d-1])
				if e.empty() {
					continue
				}
				s.elimSet(e, d)
				s.record(XYZWing, 44, func() string {
					return fmt.Sprintf("xyz-wing %s,%s,%s on %d, removed from %s", cellName(p), cellName(a), cellName(b), d, cellsText(e))
				})
				return true
			}
		}
	}
	return false
}


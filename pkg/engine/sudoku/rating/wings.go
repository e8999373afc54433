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

// uniqueRectangle finds four cells in two rows, two columns and two
// boxes that all hold the same two digits: a unique puzzle cannot end
// with only those two there (types 1, 2, 3 and 4; 4.5, type 3 more by the
// size of its naked set).
func (s *Solver) uniqueRectangle() bool {
	for r1 := range 9 {
		for r2 := r1 + 1; r2 < 9; r2++ {
			for c1 := range 9 {
				for c2 := c1 + 1; c2 < 9; c2++ {
					if (r1/3 == r2/3) == (c1/3 == c2/3) {
						continue // one box or four
					}
					q := [4]int{9*r1 + c1, 9*r1 + c2, 9*r2 + c1, 9*r2 + c2}
					common := s.cand[q[0]] & s.cand[q[1]] & s.cand[q[2]] & s.cand[q[3]]
					if bits.OnesCount16(common) < 2 {
						continue
					}
					for m := common; m != 0; m &= m - 1 {
						for m2 := m & (m - 1); m2 != 0; m2 &= m2 - 1 {
							ab := m&-m | m2&-m2
							if s.urWith(q, ab) {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}

func (s *Solver) urWith(q [4]int, ab uint16) bool {
	var exact, extra []int
	var buf [8]int
	exact, extra = buf[:0:4], buf[4:4:8]
	for _, i := range q {
		if s.cand[i] == ab {
			exact = append(exact, i)
		} else {
			extra = append(extra, i)
		}
	}
	text := func(kind string, e cellSet) func() string {
		return func() string {
			return fmt.Sprintf("unique rectangle %s on %s in %s,%s,%s,%s, removed from %s", kind, digitsOf(ab), cellName(q[0]), cellName(q[1]), cellName(q[2]), cellName(q[3]), cellsText(e))
		}
	}
	switch len(exact) {
	case 3:
		x := extra[0]
		s.elim(x, ab)
		s.record(UniqueRectangle, 45, text("type 1", single(x)))
		return true
	case 2:
		x, y := extra[0], extra[1]
		ex := (s.cand[x] | s.cand[y]) &^ ab
		// Type 2: one extra digit in both.
		if bits.OnesCount16(ex) == 1 && s.cand[x] == s.cand[y] {
			d := bits.TrailingZeros16(ex) + 1
			e := peers[x].and(peers[y]).and(s.dcells[d-1])
			if !e.empty() {
				s.elimSet(e, d)
				s.record(UniqueRectangle, 45, text("type 2", e))
				return true
			}
		}
		if !sees(x, y) {
			return false
		}
		for _, u := range cellUnit[x] {
			if !unitSet[u].has(y) {
				continue
			}
			// Type 4: a digit of the pair only in x and y in a unit.
			for m := ab; m != 0; m &= m - 1 {
				d := bits.TrailingZeros16(m) + 1
				if s.positions(u, d).count() == 2 {
					o := ab &^ (m & -m)
					if s.cand[x]&o != 0 || s.cand[y]&o != 0 {
						s.elim(x, o)
						s.elim(y, o)
						var e cellSet
						e.add(x)
						e.add(y)
						s.record(UniqueRectangle, 45, text("type 4", e))
						return true
					}
				}
			}
			// Type 3: x and y act as one cell of the extra digits, a
			// naked set with other cells of the unit.
			ne := bits.OnesCount16(ex)
			if ne < 2 || ne > 4 {
				continue
			}
			var others [9]int
			k := 0
			for _, i := range unitCells[u] {
				if i != x && i != y && s.cand[i] != 0 && s.cand[i]&^ex == 0 {
					others[k] = i
					k++
				}
			}
			for n := 1; n <= k && n < ne; n++ {
				if n != ne-1 {
					continue
				}
				if combos(others[:k], n, func(pick []int) bool {
					var in cellSet
					in.add(x)
					in.add(y)
					m := ex
					for _, i := range pick {
						m |= s.cand[i]
						in.add(i)
					}
					if m != ex {
						return false
					}
					var e cellSet
					unitSet[u].andNot(in).each(func(j int) {
						if s.cand[j]&ex != 0 {
							e.add(j)
							s.elim(j, ex)
						}
					})
					if e.empty() {
						return false
					}
					s.record(UniqueRectangle, 45+ne-1, text("type 3", e))
					return true
				}) {
					return true
				}
			}
		}
	}
	return false
}

// bug finds a bivalue universal grave plus one: every empty cell has two
// candidates but one with three, whose digit that appears three times in
// its units must be there (BUG type 1, 5.6).
func (s *Solver) bug() bool {
	three := -1
	for i := range 81 {
		switch bits.OnesCount16(s.cand[i]) {
		case 0, 2:
		case 3:
			if three >= 0 {
				return false
			}
			three = i
		default:
			return false
		}
	}
	if three < 0 {
		return false
	}
	for m := s.cand[three]; m != 0; m &= m - 1 {
		d := bits.TrailingZeros16(m) + 1
		ok := true
		for _, u := range cellUnit[three] {
			if s.positions(u, d).count() != 3 {
				ok = false
			}
		}
		if ok {
			s.place(three, d)
			s.record(BUG, 56, func() string { return fmt.Sprintf("%s: bug+1, %d", cellName(three), d) })
			return true
		}
	}
	return false
}

package rating

import (
	"fmt"
	"math/bits"
)

// Unique loops and BUG rest on uniqueness: a grid whose unsolved cells
// could take two digits in two ways (a loop of cells holding the same
// pair, each row, column and box of it visited twice; every cell
// bivalue with each digit twice per unit) would have two solutions.

// ulHint is a unique loop step under consideration.
type ulHint struct {
	ok     bool
	rating int
	typ    int
	elims  [9]cellSet
	loop   []int
	pair   uint16
}

// uniqueLoops finds unique rectangles and loops (4.5 for four cells, 4.6
// for six, 4.7 for eight, 5.0 for ten and more; type 3 adds a tenth per
// cell of its naked set beyond one) and applies the easiest, then the one
// of lowest type, as the Explainer sorts them.
func (s *Solver) uniqueLoops() bool {
	var best ulHint
	var loop [81]int
	for i := range 81 {
		if bits.OnesCount16(s.cand[i]) != 2 {
			continue
		}
		pair := s.cand[i]
		a := bits.TrailingZeros16(pair)
		both := s.dcells[a].and(s.dcells[bits.TrailingZeros16(pair&^(1<<a))])
		if both.count() < 4 {
			continue
		}
		loop[0] = i
		var in cellSet
		in.add(i)
		var units [27]uint8
		for _, u := range cellUnit[i] {
			units[u]++
		}
		s.loopSearch(&loop, 1, in, &units, pair, both, 2, 0, -1, &best)
	}
	if !best.ok {
		return false
	}
	for d := range best.elims {
		s.elimSet(best.elims[d], d+1)
	}
	s.record(UniqueRectangle, best.rating, func() string {
		var cells cellSet
		for _, c := range best.loop {
			cells.add(c)
		}
		var b []byte
		for d := range best.elims {
			if !best.elims[d].empty() {
				b = fmt.Appendf(b, " %d from %s", d+1, cellsText(best.elims[d]))
			}
		}
		return fmt.Sprintf("unique loop type %d on %s in %s, removed%s", best.typ, digitsOf(best.pair), cellsText(cells), b)
	})
	return true
}

// loopSearch extends the path loop[:n] (the Explainer's checkForLoops):
// through a unit of another kind than the last, to a cell holding both
// digits of the pair; extra digits are allowed in two cells, or in more
// if they all add the same one. A loop is found from its first bivalue
// cell only, and a path with three cells in a unit is dropped: neither
// changes what is found. both holds the cells with both digits.
func (s *Solver) loopSearch(loop *[81]int, n int, in cellSet, units *[27]uint8, pair uint16, both cellSet, allowed int, ex uint16, lastKind int, best *ulHint) {
	cell := loop[n-1]
	for kind, u := range cellUnit[cell] {
		if kind == lastKind {
			continue
		}
		for x := unitSet[u].and(both); !x.empty(); {
			next := x.first()
			x = x.andNot(single(next))
			if next == loop[0] && n >= 4 {
				s.loopFound(loop[:n], pair, best)
				continue
			}
			if in.has(next) {
				continue
			}
			card := bits.OnesCount16(s.cand[next])
			if card == 2 && next < loop[0] {
				continue
			}
			cu := &cellUnit[next]
			if units[cu[0]] >= 2 || units[cu[1]] >= 2 || units[cu[2]] >= 2 {
				continue
			}
			nex := (ex | s.cand[next]) &^ pair
			if card == 2 || bits.OnesCount16(nex) == 1 || allowed > 0 {
				na := allowed
				if card > 2 {
					na--
				}
				loop[n] = next
				in.add(next)
				units[cu[0]]++
				units[cu[1]]++
				units[cu[2]]++
				s.loopSearch(loop, n+1, in, units, pair, both, na, nex, kind, best)
				units[cu[0]]--
				units[cu[1]]--
				units[cu[2]]--
				in = in.andNot(single(next))
			}
		}
	}
}

// validLoop tells whether each unit of the loop holds two of its cells,
// consecutive ones.
func validLoop(loop []int) bool {
	var odd, even [27]bool
	for k, c := range loop {
		for _, u := range cellUnit[c] {
			v := &even
			if k%2 == 1 {
				v = &odd
			}
			if v[u] {
				return false
			}
			v[u] = true
		}
	}
	return odd == even
}

func loopRating(n int) int {
	switch {
	case n >= 10:
		return 50
	case n >= 8:
		return 47
	case n >= 6:
		return 46
	}
	return 45
}

func (s *Solver) loopFound(loop []int, pair uint16, best *ulHint) {
	if !validLoop(loop) {
		return
	}
	base := loopRating(len(loop))
	if best.ok && base > best.rating {
		return
	}
	var extra [81]int
	ne := 0
	for _, c := range loop {
		if bits.OnesCount16(s.cand[c]) > 2 {
			extra[ne] = c
			ne++
		}
	}
	consider := func(rating, typ int, el *[9]cellSet) {
		any := false
		for d := range el {
			any = any || !el[d].empty()
		}
		if !any || best.ok && (rating > best.rating || rating == best.rating && typ >= best.typ) {
			return
		}
		*best = ulHint{ok: true, rating: rating, typ: typ, elims: *el, pair: pair, loop: append(best.loop[:0], loop...)}
	}
	var el [9]cellSet
	if ne == 1 {
		for m := pair; m != 0; m &= m - 1 {
			d := bits.TrailingZeros16(m)
			el[d] = single(extra[0]).and(s.dcells[d])
		}
		consider(base, 1, &el)
		return
	}
	if ne < 2 {
		return
	}
	var exm uint16
	common := allCells
	for _, c := range extra[:ne] {
		exm |= s.cand[c] &^ pair
		common = common.and(peers[c])
	}
	if bits.OnesCount16(exm) == 1 {
		d := bits.TrailingZeros16(exm)
		el[d] = common.and(s.dcells[d])
		consider(base, 2, &el)
	}
	if ne != 2 {
		return
	}
	c1, c2 := extra[0], extra[1]
	if bits.OnesCount16(exm) >= 2 {
		s.loopType3(c1, c2, pair, exm, base, consider)
	}
	// Type 4: a digit of the pair only in c1 and c2 in a unit of both;
	// the other goes from them.
	for _, u := range cellUnit[c1] {
		if !unitSet[u].has(c2) {
			continue
		}
		rest := unitSet[u].andNot(single(c1)).andNot(single(c2))
		for m := pair; m != 0; m &= m - 1 {
			d := bits.TrailingZeros16(m)
			if !rest.and(s.dcells[d]).empty() {
				continue
			}
			o := bits.TrailingZeros16(pair &^ (1 << d))
			var el [9]cellSet
			el[o] = single(c1).or(single(c2)).and(s.dcells[o])
			consider(base, 4, &el)
			return
		}
	}
}

// loopType3 finds the naked and hidden sets c1 and c2 form, as one cell
// of their extra digits, with other cells of a unit they share.
func (s *Solver) loopType3(c1, c2 int, pair, extra uint16, base int, consider func(int, int, *[9]cellSet)) {
	ne := bits.OnesCount16(extra)
	common := extra & s.cand[c1] & s.cand[c2]
	for degree := 2; degree <= 7; degree++ {
		for _, u := range cellUnit[c1] {
			if !unitSet[u].has(c2) {
				continue
			}
			empty := 0
			var others [9]int
			k := 0
			for _, j := range unitCells[u] {
				if s.val[j] == 0 {
					empty++
				}
				if j != c1 && j != c2 {
					others[k] = j
					k++
				}
			}
			if degree*2 <= empty && degree >= ne {
				combos(&s.pick, others[:k], degree-1, func(pick []int) bool {
					naked := common
					union := extra
					for _, j := range pick {
						if bits.OnesCount16(s.cand[j]) <= 1 {
							return false
						}
						naked |= s.cand[j]
						union |= s.cand[j]
					}
					if bits.OnesCount16(naked) != degree || bits.OnesCount16(union) != degree {
						return false
					}
					var el [9]cellSet
					var set cellSet
					for _, j := range pick {
						set.add(j)
					}
					rest := unitSet[u].andNot(set).andNot(single(c1)).andNot(single(c2))
					for m := union; m != 0; m &= m - 1 {
						d := bits.TrailingZeros16(m)
						el[d] = rest.and(s.dcells[d])
					}
					consider(base+degree-1, 3, &el)
					return false
				})
			}
			if degree*2 < empty && degree-2 <= 7-ne {
				var rem [9]int
				nr := 0
				for d := range 9 {
					if (pair|extra)>>d&1 == 0 {
						rem[nr] = d
						nr++
					}
				}
				combos(&s.pick, rem[:nr], degree-2, func(pick []int) bool {
					hidden := pair
					for _, d := range pick {
						hidden |= 1 << d
					}
					var pos cellSet
					for m := hidden; m != 0; m &= m - 1 {
						p := s.positions(u, bits.TrailingZeros16(m)+1).andNot(single(c2))
						if p.empty() {
							return false
						}
						pos = pos.or(p)
					}
					if pos.count() != degree {
						return false
					}
					var el [9]cellSet
					cells := pos.andNot(single(c1))
					for m := 0x1ff &^ hidden; m != 0; m &= m - 1 {
						d := bits.TrailingZeros16(uint16(m))
						el[d] = cells.and(s.dcells[d])
					}
					consider(base+degree-2, 3, &el)
					return false
				})
			}
		}
	}
}

// bug finds a bivalue universal grave: the cells with more than two
// candidates, less their extra digits, would leave every unsolved cell
// with two and every digit twice in each unit. Type 1 (one such cell,
// 5.6): it holds its extra digit; type 2 (one extra digit, 5.7): it goes
// from the cells that see all of them; type 4 (two cells, 5.7, tried
// before type 3): see bugType4; type 3 (5.8 and up): the extra digits
// form a naked set with other cells of a unit.
func (s *Solver) bug() bool {
	temp := s.cand
	var bugCells cellSet
	var bugVals [81]uint16
	var allVals uint16
	common := allCells
	haveCommon := false
	var allExtra cellSet
	onlyValue, oneValue, haveExtra := 0, true, false
	addBug := func(c, d int) bool {
		bugCells.add(c)
		bugVals[c] |= 1 << (d - 1)
		allVals |= 1 << (d - 1)
		temp[c] &^= 1 << (d - 1)
		if !haveCommon {
			common, haveCommon = peers[c], true
		} else {
			common = common.and(peers[c])
		}
		common = common.andNot(bugCells)
		return bugCells.count() > 1 && bits.OnesCount16(allVals) > 1 && common.empty()
	}
	for _, kind := range [3]int{0, 9, 18} {
		for u := kind; u < kind+9; u++ {
			for d := 1; d <= 9; d++ {
				p := s.positions(u, d)
				if n := p.count(); n == 0 || n == 2 {
					continue
				}
				var nb cellSet
				p.each(func(c int) {
					if bits.OnesCount16(s.cand[c]) >= 3 {
						nb.add(c)
					}
				})
				if !haveExtra {
					allExtra, onlyValue, haveExtra = nb, d, true
				} else if oneValue {
					if onlyValue == d {
						allExtra = allExtra.or(nb)
					} else {
						oneValue = false
					}
				}
				switch nb.count() {
				case 0:
					return false
				case 1:
					if addBug(nb.first(), d) {
						return false
					}
				}
			}
		}
	}
	if oneValue && haveExtra && allExtra.count() > bugCells.count() {
		stop := false
		allExtra.andNot(bugCells).each(func(c int) {
			if !stop && addBug(c, onlyValue) {
				stop = true
			}
		})
		if stop {
			return false
		}
	}
	if bugCells.empty() {
		return false
	}
	for i := range 81 {
		if s.val[i] == 0 && bits.OnesCount16(temp[i]) != 2 {
			return false
		}
	}
	for u := range 27 {
		for d := range 9 {
			n := 0
			for _, c := range unitCells[u] {
				n += int(temp[c] >> d & 1)
			}
			if n != 0 && n != 2 {
				return false
			}
		}
	}
	if bugCells.count() == 1 {
		c := bugCells.first()
		keep := bugVals[c]
		s.elim(c, s.cand[c]&^keep)
		if bits.OnesCount16(keep) == 1 {
			s.place(c, bits.TrailingZeros16(keep)+1)
		}
		s.record(BUG, 56, func() string { return fmt.Sprintf("%s: bug type 1, %s", cellName(c), digitsOf(keep)) })
		return true
	}
	if bits.OnesCount16(allVals) == 1 {
		d := bits.TrailingZeros16(allVals) + 1
		e := common.and(s.dcells[d-1])
		if !e.empty() {
			s.elimSet(e, d)
			s.record(BUG, 57, func() string {
				return fmt.Sprintf("bug type 2 on %d in %s, removed from %s", d, cellsText(bugCells), cellsText(e))
			})
			return true
		}
		return s.bugType4(bugCells, &bugVals, allVals)
	}
	if common.empty() {
		return false
	}
	if s.bugType4(bugCells, &bugVals, allVals) {
		return true
	}
	for degree := 2; degree <= 6; degree++ {
		for _, kind := range [3]int{0, 1, 2} {
			u := cellUnit[bugCells.first()][kind]
			if !bugCells.andNot(unitSet[u]).empty() {
				continue
			}
			rc := common.and(unitSet[u])
			if rc.count() < degree {
				continue
			}
			var cells [9]int
			k := 0
			rc.each(func(c int) { cells[k] = c; k++ })
			if combos(&s.pick, cells[:k], degree-1, func(pick []int) bool {
				var m uint16
				var set cellSet
				for _, c := range pick {
					if bits.OnesCount16(s.cand[c]) <= 1 {
						return false
					}
					m |= s.cand[c]
					set.add(c)
				}
				if bits.OnesCount16(m) != degree || bits.OnesCount16(allVals) <= 1 || bits.OnesCount16(m|allVals) != degree {
					return false
				}
				var e [9]cellSet
				any := false
				rest := rc.andNot(set).andNot(bugCells)
				for mm := m; mm != 0; mm &= mm - 1 {
					d := bits.TrailingZeros16(mm)
					e[d] = rest.and(s.dcells[d])
					any = any || !e[d].empty()
				}
				if !any {
					return false
				}
				for d := range e {
					s.elimSet(e[d], d+1)
				}
				s.record(BUG, 57+degree-1, func() string {
					return fmt.Sprintf("bug type 3 in %s with naked set %s in %s", cellsText(bugCells), digitsOf(m), cellsText(set))
				})
				return true
			}) {
				return true
			}
		}
	}
	return false
}

// bugType4 finds a BUG type 4 (5.7): two BUG cells in one unit that have,
// besides their extra digits, one digit v in common. Without their extra
// digits they would hold v and one other digit each, and v has no other
// place in the unit: one of them holds v and the other its extra digit,
// so neither holds its other digit.
func (s *Solver) bugType4(bugCells cellSet, bugVals *[81]uint16, allVals uint16) bool {
	if bugCells.count() != 2 {
		return false
	}
	c1 := bugCells.first()
	c2 := bugCells.andNot(single(c1)).first()
	v := s.cand[c1] & s.cand[c2] &^ allVals
	if bits.OnesCount16(v) != 1 {
		return false
	}
	u := -1
	for k := range 3 { // box, row, column: the Explainer's order
		if cellUnit[c1][k] == cellUnit[c2][k] {
			u = cellUnit[c1][k]
			break
		}
	}
	if u < 0 {
		return false
	}
	r1, r2 := s.cand[c1]&^bugVals[c1]&^v, s.cand[c2]&^bugVals[c2]&^v
	if r1|r2 == 0 {
		return false
	}
	s.elim(c1, r1)
	s.elim(c2, r2)
	s.record(BUG, 57, func() string {
		return fmt.Sprintf("bug type 4 on %d in %s,%s of %s, removed %s from %s and %s from %s", bits.TrailingZeros16(v)+1,
			cellName(c1), cellName(c2), unitName(u), digitsOf(r1), cellName(c1), digitsOf(r2), cellName(c2))
	})
	return true
}

package rating

import (
	"fmt"
	"math/bits"
)

// alsWing finds the Explainer's WXYZ- (k 3), VWXYZ- (4), UVWXYZ- (5) and
// TUVWXYZ-wings (6): k cells of a unit with k+1 digits between them (an
// almost locked set) and a bivalue cell xz outside it whose digits both
// appear in the set, where every cell of the set holding x sees xz. Then
// z is in xz or in the set, and goes from the cells that see all of its
// places; with both digits so linked, the set's other digits are locked
// in it too. Ratings: 5.5 and 5.6, 6.2 to 6.4 by the largest cell of the
// set, 6.6, 7.5; the step with most eliminations among the easiest.
func (s *Solver) alsWing(k int) bool {
	type hint struct {
		rating, n int
		e         [9]cellSet
		cells     cellSet
		yz        int
	}
	var best hint
	found := false
	var cells [9]int
	for u := range 27 {
		n := 0
		for _, c := range unitCells[u] {
			if cc := bits.OnesCount16(s.cand[c]); cc >= 2 && cc <= k+1 {
				cells[n] = c
				n++
			}
		}
		if n < k {
			continue
		}
		combos(&s.pick, cells[:n], k, func(pick []int) bool {
			var union uint16
			var set, range_ cellSet
			big := 0
			for _, c := range pick {
				union |= s.cand[c]
				set.add(c)
				range_ = range_.or(peers[c])
				big = max(big, bits.OnesCount16(s.cand[c]))
			}
			if bits.OnesCount16(union) != k+1 {
				return false
			}
			// A set inside a box and a line is found from both: take it
			// once, from its first unit.
			for _, v := range cellUnit[pick[0]] {
				if v < u && set.andNot(unitSet[v]).empty() {
					return false
				}
			}
			rating := alsRating(k, big)
			if found && rating > best.rating {
				return false
			}
			// places[d]: the cells of the set holding d.
			var places [9]cellSet
			for _, c := range pick {
				for m := s.cand[c]; m != 0; m &= m - 1 {
					places[bits.TrailingZeros16(m)].add(c)
				}
			}
			range_.andNot(set).each(func(yz int) {
				cy := s.cand[yz]
				if bits.OnesCount16(cy) != 2 || cy&union != cy {
					return
				}
				a := bits.TrailingZeros16(cy)
				b := bits.TrailingZeros16(cy &^ (1 << a))
				linked := func(d int) bool { return places[d].andNot(peers[yz]).empty() }
				la, lb := linked(a), linked(b)
				if !la && !lb {
					return
				}
				var e [9]cellSet
				victims := func(d int, withYZ bool) cellSet {
					v := allCells
					places[d].each(func(c int) { v = v.and(peers[c]) })
					if withYZ {
						v = v.and(peers[yz])
					}
					return v.andNot(set).andNot(single(yz)).and(s.dcells[d])
				}
				if la {
					e[b] = victims(b, true)
				}
				if lb {
					e[a] = victims(a, true)
				}
				if la && lb {
					for m := union &^ cy; m != 0; m &= m - 1 {
						d := bits.TrailingZeros16(m)
						e[d] = victims(d, false)
					}
				}
				total := 0
				for d := range e {
					total += e[d].count()
				}
				if total == 0 || found && (rating > best.rating || rating == best.rating && total <= best.n) {
					return
				}
				best, found = hint{rating, total, e, set, yz}, true
			})
			return false
		})
	}
	if !found {
		return false
	}
	for d := range best.e {
		s.elimSet(best.e[d], d+1)
	}
	t := [7]Technique{3: WXYZWing, 4: VWXYZWing, 5: UVWXYZWing, 6: TUVWXYZWing}[k]
	s.record(t, best.rating, func() string {
		var b []byte
		for d := range best.e {
			if !best.e[d].empty() {
				b = fmt.Appendf(b, " %d from %s", d+1, cellsText(best.e[d]))
			}
		}
		return fmt.Sprintf("%s %s with %s, removed%s", t, cellsText(best.cells), cellName(best.yz), b)
	})
	return true
}

func alsRating(k, big int) int {
	dist := func(x int) int {
		if x < 3 {
			return 3 - x
		}
		return x - 3
	}
	switch k {
	case 3:
		return 55 + 1 - dist(big)
	case 4:
		return 62 + 2 - dist(big)
	case 5:
		return 66
	}
	return 75
}

// alignedPair finds an aligned pair exclusion (6.2): two cells with at
// least two bivalue cells that see both; a pair of digits for the two
// that would empty one of those (or repeat a digit in a unit) is
// impossible, and a digit that is in no possible pair goes.
func (s *Solver) alignedPair() bool {
	var cands [81]int
	n := 0
	for i := range 81 {
		if bits.OnesCount16(s.cand[i]) < 2 {
			continue
		}
		has := false
		peers[i].each(func(j int) { has = has || bits.OnesCount16(s.cand[j]) == 2 })
		if has {
			cands[n] = i
			n++
		}
	}
	var ex [20]uint16
	for x := range n {
		for y := x + 1; y < n; y++ {
			a, b := cands[x], cands[y]
			ne := 0
			peers[a].and(peers[b]).each(func(j int) {
				if bits.OnesCount16(s.cand[j]) == 2 {
					ex[ne] = s.cand[j]
					ne++
				}
			})
			if ne < 2 {
				continue
			}
			var okA, okB uint16
			see := sees(a, b)
			for ma := s.cand[a]; ma != 0; ma &= ma - 1 {
				va := ma & -ma
				for mb := s.cand[b]; mb != 0; mb &= mb - 1 {
					vb := mb & -mb
					if va == vb && see {
						continue
					}
					allowed := true
					for _, e := range ex[:ne] {
						if e&^(va|vb) == 0 {
							allowed = false
							break
						}
					}
					if allowed {
						okA |= va
						okB |= vb
					}
				}
			}
			ra, rb := s.cand[a]&^okA, s.cand[b]&^okB
			if ra|rb == 0 {
				continue
			}
			s.elim(a, ra)
			s.elim(b, rb)
			s.record(AlignedPairExclusion, 62, func() string {
				return fmt.Sprintf("aligned pair exclusion %s,%s: removed %s from %s and %s from %s", cellName(a), cellName(b), digitsOf(ra), cellName(a), digitsOf(rb), cellName(b))
			})
			return true
		}
	}
	return false
}

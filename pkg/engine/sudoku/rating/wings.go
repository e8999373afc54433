package rating

import (
	"fmt"
	"math/bits"
)

// sees tells whether two different cells share a unit.
func sees(a, b int) bool { return peers[a].has(b) }

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

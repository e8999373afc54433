package rating

import (
	"math/bits"
	"testing"
)

// TestExcludeTriple compares excludeTriple with the rule tried on every
// choice of three digits, on every triple of cells with two excluders or
// more: in the position before the first aligned triple exclusion of
// se-rated-dev (line 3469) and in that of TestNearMisses.
func TestExcludeTriple(t *testing.T) {
	built := fullPos()
	for _, c := range nearMisses {
		if c.tech == AlignedTripleExclusion {
			for _, e := range c.pattern {
				e(&built)
			}
		}
	}
	for _, p := range []pos{stateBefore(t, techniqueLines[AlignedTripleExclusion], AlignedTripleExclusion), built} {
		excludeTripleIn(t, p)
	}
}

func excludeTripleIn(t *testing.T, p pos) {
	s := NewSolver()
	var small cellSet
	for i, c := range p.cand {
		if n := bits.OnesCount16(c); n == 2 || n == 3 {
			small.add(i)
		}
	}
	tried, found := 0, 0
	for a := range 81 {
		for b := a + 1; b < 81; b++ {
			for c := b + 1; c < 81; c++ {
				if bits.OnesCount16(p.cand[a]) < 2 || bits.OnesCount16(p.cand[b]) < 2 || bits.OnesCount16(p.cand[c]) < 2 {
					continue
				}
				common := peers[a].and(peers[b]).and(peers[c]).and(small)
				if common.count() < 2 {
					continue
				}
				var ex []uint16
				common.each(func(j int) { ex = append(ex, p.cand[j]) })
				cells := [3]int{a, b, c}
				var ok [3]uint16
				for ma := p.cand[a]; ma != 0; ma &= ma - 1 {
					for mb := p.cand[b]; mb != 0; mb &= mb - 1 {
						for mc := p.cand[c]; mc != 0; mc &= mc - 1 {
							v := [3]uint16{ma & -ma, mb & -mb, mc & -mc}
							allowed := true
							for i := range 3 {
								for j := i + 1; j < 3; j++ {
									allowed = allowed && !(v[i] == v[j] && sees(cells[i], cells[j]))
								}
							}
							for _, e := range ex {
								allowed = allowed && e&^(v[0]|v[1]|v[2]) != 0
							}
							if allowed {
								for i := range 3 {
									ok[i] |= v[i]
								}
							}
						}
					}
				}
				s.loadPos(p)
				fired := s.excludeTriple(a, b, c, ex)
				tried++
				any := false
				for i, x := range cells {
					if want := p.cand[x] & ok[i]; s.cand[x] != want {
						t.Errorf("%s,%s,%s: %s left with %s, want %s", cellName(a), cellName(b), cellName(c),
							cellName(x), digitsOf(s.cand[x]), digitsOf(want))
					}
					any = any || ok[i] != p.cand[x]
				}
				if fired != any {
					t.Errorf("%s,%s,%s: step %v, want %v", cellName(a), cellName(b), cellName(c), fired, any)
				}
				if any {
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("%d triples tried, none eliminates; want the step the solver takes", tried)
	}
	t.Logf("%d triples, %d eliminate", tried, found)
}

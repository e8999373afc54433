package rating

import (
	"math/bits"
	"slices"
)

// The Explainer's chains past dynamic forcing chains: a dynamic
// propagation of level 1 and up ("Dynamic Forcing Chains (+)", 9.0 and
// up) does not stop when no single follows: it asks other rules, on the
// grid the propagation has reduced, for eliminations that rest on the
// candidates it has removed (their "rule parents"), adds them and goes
// on. The rules are, in order, and only the first that finds anything:
// locked candidates, hidden pairs, naked pairs and X-wings (level 1);
// then forcing chains and cycles (level 2, "Nested Forcing Chains",
// 9.5); then cell and region forcing chains (level 3, 10.0); level 4
// (10.5) asks, after the four rules, dynamic forcing chains of level
// nesting (0 to 3) instead. A nested chain's complexity is added to
// the complexity of every chain that rests on one of its eliminations.
//
// Chaining levels: 0 to 3 as above, levelNested+n for level 4 with
// dynamic forcing chains of level n nested.
const levelNested = 4

// nestHint is a hint of a nested chaining rule: what it removes and the
// candidates that the propagation must have removed for it to hold.
type nestHint struct {
	rating, complexity, key int
	sig                     uint64     // hash of its chains' nodes
	elims                   [9]cellSet // digit d+1 removed from elims[d]
	parents                 [9]cellSet // candidates off: digit d+1 in parents[d]
}

// collect records a hint of a chaining technique in collecting mode,
// with the rule parents gathered in c.rp; a hint that rests on no
// removed candidate is left out, as the Explainer does.
func (s *Solver) collect(rating, complexity, key int, place bool, cand int) {
	c := &s.ch
	h := nestHint{rating: rating, complexity: complexity, key: key, sig: c.rsig, parents: c.rp}
	empty := true
	for _, p := range c.rp {
		if !p.empty() {
			empty = false
			break
		}
	}
	if empty {
		return
	}
	i, d := cand/9, cand%9
	if place {
		for m := s.cand[i] &^ (1 << d); m != 0; m &= m - 1 {
			h.elims[bits.TrailingZeros16(m)].add(i)
		}
	} else {
		h.elims[d].add(i)
	}
	c.found = append(c.found, h)
}

// addCause adds to c.rp the candidates that node q on, made by cause,
// needed gone: those of its cell (causeCell) or of its digit in the
// unit, between the grid the outer propagation started from and s.cand.
func (s *Solver) addCause(q int, cause int8) {
	c := &s.ch
	src := c.outerSrc
	if cause == causeCell {
		i := q / 9
		for m := src[i] &^ s.cand[i]; m != 0; m &= m - 1 {
			c.rp[bits.TrailingZeros16(m)].add(i)
		}
		return
	}
	d := q % 9
	for _, j := range unitCells[cause] {
		if src[j]>>d&1 != 0 && s.cand[j]>>d&1 == 0 {
			c.rp[d].add(j)
		}
	}
}

// ruleParents adds to c.rp the rule parents of the chains to the nodes
// from in ns (the Explainer's collectRuleParents); rootCause is the
// cause given to the assumption (a cell or region forcing chain's).
func (s *Solver) ruleParents(ns *nodeSet, rootCause int8, from ...int32) {
	c := &s.ch
	var h uint64
	c.walk(from)
	for x, ok := c.next(ns); ok; x, ok = c.next(ns) {
		h += mix(x)
		if x < nCand {
			cause := ns.cause[x]
			if cause < 0 && ns.n[x] == 0 {
				cause = rootCause
			}
			if cause >= 0 {
				s.addCause(int(x), cause)
			}
		}
	}
	c.rsig = c.rsig*0x100000001b3 + h
}

// mix is splitmix64's finaliser, to hash sets of nodes by sums.
func mix(x int32) uint64 {
	z := uint64(x) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// conflictParents sets c.rp to the rule parents of the contradiction in
// ns, when collecting.
func (s *Solver) conflictParents(ns *nodeSet) {
	c := &s.ch
	if !c.collecting {
		return
	}
	c.rp, c.rsig = [9]cellSet{}, 0
	s.ruleParents(ns, -1, ns.a)
	b := int(ns.a) - nCand // the opposite of a, a candidate either way
	if b < 0 {
		b = int(ns.a)
	} else if ns.bcause >= 0 {
		s.addCause(b, ns.bcause)
	}
	s.ruleParents(ns, -1, ns.pool[ns.bpar:ns.bpar+ns.bn]...)
	c.rsig += mix(int32(nNodes + b))
}

// instParents sets c.rp to the rule parents of the static chain ending
// at instance dst; with rev, also those of the reversed chain (a
// cycle's second target), where the nodes off turn on with the cause
// that made them off: their cell, or the first of box, row and column
// they share with their parent.
func (s *Solver) instParents(dst int32, rev bool) {
	c := &s.ch
	c.rp = [9]cellSet{}
	var h, hrev uint64
	for a := dst; a >= 0; a = c.inst[a].parent {
		h += mix(c.inst[a].node)
		hrev += mix((c.inst[a].node + nCand) % nNodes)
	}
	c.rsig = h
	if rev {
		c.rsig = h*0x100000001b3 + hrev
	}
	for a := dst; c.inst[a].parent >= 0; a = c.inst[a].parent {
		in := &c.inst[a]
		if in.node < nCand {
			s.addCause(int(in.node), in.cause)
			continue
		}
		if !rev {
			continue
		}
		q, p := int(in.node)-nCand, int(c.inst[in.parent].node)
		i, j := p/9, q/9
		cause := int8(causeCell)
		if i != j {
			for _, u := range cellUnit[i] {
				if unitSet[u].has(j) {
					cause = int8(u)
					break
				}
			}
		}
		s.addCause(q, cause)
	}
}

// advancedOffs completes a propagation of level 1 and up that has
// nothing left to draw (the Explainer's getAdvancedPotentials): it adds
// the eliminations of the first rule that finds some resting on the
// candidates the propagation removed, and tells whether it did.
func (s *Solver) advancedOffs(ns *nodeSet, level int) bool {
	c := &s.ch
	for d := range c.wdc {
		c.wdc[d] = cellSet{}
	}
	for i := range 81 {
		for m := c.work[i]; m != 0; m &= m - 1 {
			c.wdc[bits.TrailingZeros16(m)].add(i)
		}
	}
	if s.advLocking(ns) || s.advHiddenPairs(ns) || s.advNakedPairs(ns) || s.advXWings(ns) {
		return true
	}
	if level < 2 {
		return false
	}
	in := s.innerSolver()
	in.ch.outerSrc = &c.source
	in.cand, in.val, in.dcells = c.work, s.val, c.wdc
	ic := &in.ch
	ic.collecting = true
	ic.found = ic.found[:0]
	defer func() { ic.collecting = false }()
	found := false
	if level < levelNested {
		found = in.staticChains() || level >= 3 && in.forcing(CellForcing, 80, true, false, false, 0)
	} else {
		n := level - levelNested
		base := 85
		if n > 0 {
			base = 85 + 5*n
		}
		found = in.forcing(DynamicForcing, base, true, true, false, n)
	}
	if !found {
		return false
	}
	// The Explainer sorts the hints (rating, complexity, kind) and takes
	// their eliminations in that order, the first hint to remove a
	// candidate giving it its parents.
	slices.SortStableFunc(ic.found, func(a, b nestHint) int {
		if a.rating != b.rating {
			return a.rating - b.rating
		}
		if a.complexity != b.complexity {
			return a.complexity - b.complexity
		}
		return a.key - b.key
	})
	added := false
	for k := range ic.found {
		h := &ic.found[k]
		if s.emit(ns, &h.elims, &h.parents, int32(h.complexity), h.sig) {
			added = true
		}
	}
	return added
}

// innerSolver returns the solver the nested chains of s run on.
func (s *Solver) innerSolver() *Solver {
	if s.ch.inner == nil {
		s.ch.inner = NewSolver()
	}
	s.ch.inner.ctx = s.ctx
	return s.ch.inner
}

// emit adds to ns, as nodes off, the candidates of elims it lacks, each
// with the parents given (nodes off of ns); nestCx >= 0 is the
// complexity of the nested chain they come from. The candidates come in
// the Explainer's order: cells in the order of a Java HashMap keyed by
// cell index, digits ascending.
func (s *Solver) emit(ns *nodeSet, elims, parents *[9]cellSet, nestCx int32, sig uint64) bool {
	c := &s.ch
	var cells cellSet
	for _, e := range elims {
		cells = cells.or(e)
	}
	c.order = c.order[:0]
	cells.each(func(i int) { c.order = append(c.order, i) })
	// A HashMap of n entries has 16 buckets, doubled whenever n exceeds
	// three quarters of them; it iterates by bucket (index mod buckets),
	// the entries of a bucket in the order they came (ascending here).
	buckets := 16
	for len(c.order) > buckets*3/4 {
		buckets *= 2
	}
	if len(c.order) > 1 {
		mask := buckets - 1
		slices.SortStableFunc(c.order, func(a, b int) int { return a&mask - b&mask })
	}
	c.apar = c.apar[:0]
	for d := range parents {
		parents[d].each(func(i int) { c.apar = append(c.apar, offNode(i*9+d)) })
	}
	id := int16(-1)
	added := false
	for _, i := range c.order {
		for d := range elims {
			if !elims[d].has(i) {
				continue
			}
			x := offNode(i*9 + d)
			if ns.contains(x) {
				continue
			}
			if nestCx >= 0 && id < 0 {
				id = int16(len(ns.nestCx))
				ns.nestCx = append(ns.nestCx, nestCx)
				ns.nestSig = append(ns.nestSig, sig)
			}
			ns.add(x, c.apar)
			ns.nest[x] = id
			c.qOff = append(c.qOff, x)
			added = true
		}
	}
	return added
}

// workPos returns the cells of unit u where the propagation's grid has
// digit d (0-8), from c.wdc.
func (c *chainer) workPos(u, d int) cellSet { return unitSet[u].and(c.wdc[d]) }

// removedIn returns the cells of set where the propagation removed
// digit d.
func (c *chainer) removedIn(set cellSet, d int) cellSet {
	var p cellSet
	set.each(func(j int) {
		if c.source[j]>>d&1 != 0 && c.work[j]>>d&1 == 0 {
			p.add(j)
		}
	})
	return p
}

// advLocking is the Explainer's Locking on the propagation's grid:
// boxes against columns, then rows, then columns and rows against boxes.
func (s *Solver) advLocking(ns *nodeSet) bool {
	c := &s.ch
	found := false
	for _, pair := range [4][2]int{{0, 18}, {0, 9}, {18, 0}, {9, 0}} {
		for d := range 9 {
			for i1 := range 9 {
				u1 := pair[0] + i1
				p := c.workPos(u1, d)
				if p.count() < 2 {
					continue
				}
				for i2 := range 9 {
					u2 := pair[1] + i2
					if unitSet[u1].and(unitSet[u2]).empty() || !p.andNot(unitSet[u2]).empty() {
						continue
					}
					e := c.workPos(u2, d).andNot(unitSet[u1])
					if e.empty() {
						continue
					}
					var par, el [9]cellSet
					par[d] = c.removedIn(unitSet[u1].andNot(unitSet[u2]), d)
					if par[d].empty() {
						continue
					}
					el[d] = e
					s.emit(ns, &el, &par, -1, 0)
					found = true
				}
			}
		}
	}
	return found
}

// javaUnits are the units in the order the Explainer's sets scan them:
// boxes, columns, rows.
var javaUnits = func() (u [27]int) {
	for i := range 9 {
		u[i], u[9+i], u[18+i] = i, 18+i, 9+i
	}
	return
}()

// advHiddenPairs is the Explainer's HiddenSet(2) on the propagation's grid.
func (s *Solver) advHiddenPairs(ns *nodeSet) bool {
	c := &s.ch
	found := false
	for _, u := range javaUnits {
		if s.empty[u] <= 4 {
			continue
		}
		var pos [9]cellSet
		for d := range 9 {
			pos[d] = c.workPos(u, d)
		}
		for b := 1; b < 9; b++ {
			for a := range b {
				if pos[a].count() < 2 || pos[b].count() < 2 {
					continue
				}
				in := pos[a].or(pos[b])
				if in.count() != 2 {
					continue
				}
				m := uint16(1)<<a | 1<<b
				var el, par [9]cellSet
				worth := false
				in.each(func(j int) {
					for r := c.work[j] &^ m; r != 0; r &= r - 1 {
						el[bits.TrailingZeros16(r)].add(j)
						worth = true
					}
				})
				if !worth {
					continue
				}
				any := false
				unitSet[u].andNot(in).each(func(j int) {
					for _, d := range [2]int{a, b} {
						if c.source[j]>>d&1 != 0 {
							par[d].add(j)
							any = true
						}
					}
				})
				if !any {
					continue
				}
				s.emit(ns, &el, &par, -1, 0)
				found = true
			}
		}
	}
	return found
}

// advNakedPairs is the Explainer's NakedSet(2) on the propagation's grid.
func (s *Solver) advNakedPairs(ns *nodeSet) bool {
	c := &s.ch
	found := false
	for _, u := range javaUnits {
		if s.empty[u] < 4 {
			continue
		}
		cells := &unitCells[u]
		for b := 1; b < 9; b++ {
			for a := range b {
				ma, mb := c.work[cells[a]], c.work[cells[b]]
				if bits.OnesCount16(ma) < 2 || bits.OnesCount16(mb) < 2 || bits.OnesCount16(ma|mb) != 2 {
					continue
				}
				m := ma | mb
				var el, par [9]cellSet
				worth := false
				for k, j := range cells {
					if k == a || k == b {
						continue
					}
					for r := c.work[j] & m; r != 0; r &= r - 1 {
						el[bits.TrailingZeros16(r)].add(j)
						worth = true
					}
				}
				if !worth {
					continue
				}
				any := false
				for _, j := range [2]int{cells[a], cells[b]} {
					for r := c.source[j] &^ m; r != 0; r &= r - 1 {
						par[bits.TrailingZeros16(r)].add(j)
						any = true
					}
				}
				if !any {
					continue
				}
				s.emit(ns, &el, &par, -1, 0)
				found = true
			}
		}
	}
	return found
}

// advXWings is the Explainer's Fisherman(2) on the propagation's grid:
// base columns, then base rows.
func (s *Solver) advXWings(ns *nodeSet) bool {
	c := &s.ch
	var placed [9]int
	for _, v := range s.val {
		if v != 0 {
			placed[v-1]++
		}
	}
	found := false
	for _, bc := range [2][2]int{{18, 9}, {9, 18}} {
		base, cover := bc[0], bc[1]
		for b := 1; b < 9; b++ {
			for a := range b {
				for d := range 9 {
					if placed[d]+4 > 9 {
						continue
					}
					pa, pb := c.workPos(base+a, d), c.workPos(base+b, d)
					if pa.count() < 2 || pb.count() < 2 {
						continue
					}
					in := pa.or(pb)
					var covers cellSet
					nc := 0
					for l := cover; l < cover+9; l++ {
						if !in.and(unitSet[l]).empty() {
							covers = covers.or(unitSet[l])
							nc++
						}
					}
					if nc != 2 {
						continue
					}
					bases := unitSet[base+a].or(unitSet[base+b])
					var el, par [9]cellSet
					for l := cover; l < cover+9; l++ {
						if !in.and(unitSet[l]).empty() {
							el[d] = el[d].or(c.workPos(l, d).andNot(bases))
						}
					}
					if el[d].empty() {
						continue
					}
					par[d] = c.removedIn(bases.andNot(covers), d)
					if par[d].empty() {
						continue
					}
					s.emit(ns, &el, &par, -1, 0)
					found = true
				}
			}
		}
	}
	return found
}

// collectElims is collect for a hint that removes elims (a cycle).
func (s *Solver) collectElims(rating, complexity, key int, elims *[9]cellSet) {
	c := &s.ch
	for _, p := range c.rp {
		if !p.empty() {
			c.found = append(c.found, nestHint{rating: rating, complexity: complexity, key: key, sig: c.rsig, elims: *elims, parents: c.rp})
			return
		}
	}
}

// nestedDynamic is level 4 (10.5 and up): dynamic forcing chains nesting
// dynamic forcing chains of level 0, then 1, 2 and 3.
func (s *Solver) nestedDynamic() bool {
	for n := range 4 {
		if s.forcing(NestedDynamic, 105, true, true, false, levelNested+n) {
			return true
		}
	}
	return false
}

// nestedUpTo is upTo for the chains of level 1 and up.
func (s *Solver) nestedUpTo(r int) bool { return r <= s.ceiling && !s.ch.noPlus }

package rating

import (
	"fmt"
	"math/bits"
)

// Chains follow the Explainer's chaining engine: a candidate assumed true
// ("on") or false ("off") implies others by the rules of singles, and a
// chain's rating is its technique's base plus a supplement that grows with
// the number of implications it needs (its complexity: the distinct
// candidates on and off it rests on).
//
// A candidate is cell*9+digit-1; a node is a candidate on (0-728) or off
// (729-1457). A propagation records for every node it reaches the nodes
// that imply it (one in static chains; in dynamic chains also the earlier
// eliminations a single rests on), so the complexity of a conclusion is
// the size of its ancestry.

const (
	nCand  = 729
	nNodes = 2 * nCand
)

func onNode(c int) int32  { return int32(c) }
func offNode(c int) int32 { return int32(c + nCand) }

// lengthSupplement is the Explainer's rating supplement, in tenths, for a
// chain of the given complexity: nothing up to 6, then a tenth more for
// each step of the series 4, 6, 8, 12, 16, 24, 32, ... of complexity-2.
func lengthSupplement(complexity int) int {
	add, ceil, odd := 0, 4, false
	for length := complexity - 2; length > ceil; odd = !odd {
		add++
		if !odd {
			ceil = ceil * 3 / 2
		} else {
			ceil = ceil * 4 / 3
		}
	}
	return add
}

// nodeSet is a set of nodes with their parents: the outcome of one
// assumption.
type nodeSet struct {
	has   [nNodes/64 + 1]uint64
	order []int32 // nodes in the order they were reached
	start [nNodes]int32
	n     [nNodes]uint16
	pool  []int32
	// cause tells, for a node on, the rule that made it: the unit whose
	// last place it is (0-26), the cell whose last digit it is
	// (causeCell), or none (the assumption). The nested chains' rule
	// parents read it.
	cause [nNodes]int8
	// nest is, for a node off removed by a nested chain, its index in
	// nestCx (that chain's complexity) and nestSig (a hash of its chains'
	// nodes), else -1.
	nest    [nNodes]int16
	nestCx  []int32
	nestSig []uint64
	// A contradiction: node a is in the set and its opposite b would be
	// implied by the parents bpar (len bn at bpar in pool), b made by the
	// rule bcause; a < 0 if none.
	a, bn, bpar int32
	bcause      int8
	// valid is set once the set holds the outcome of its assumption.
	valid bool
}

func (ns *nodeSet) reset() {
	for _, x := range ns.order {
		ns.has[x>>6] &^= 1 << (x & 63)
	}
	ns.order = ns.order[:0]
	ns.pool = ns.pool[:0]
	ns.nestCx, ns.nestSig = ns.nestCx[:0], ns.nestSig[:0]
	ns.a = -1
	ns.valid = false
}

func (ns *nodeSet) contains(x int32) bool { return ns.has[x>>6]>>(x&63)&1 != 0 }

func (ns *nodeSet) add(x int32, parents []int32) {
	ns.has[x>>6] |= 1 << (x & 63)
	ns.order = append(ns.order, x)
	ns.start[x] = int32(len(ns.pool))
	ns.n[x] = uint16(len(parents))
	ns.cause[x] = -1
	ns.nest[x] = -1
	ns.pool = append(ns.pool, parents...)
}

func (ns *nodeSet) parents(x int32) []int32 {
	s := ns.start[x]
	return ns.pool[s : s+int32(ns.n[x])]
}

// causeCell is the cause of a node on that is its cell's last digit.
const causeCell = 27

// chainer holds the buffers of the chaining techniques.
type chainer struct {
	work   [81]uint16 // candidates during a dynamic propagation
	source [81]uint16 // candidates before it
	qOn    []int32
	qOff   []int32
	par    []int32
	mark   [nNodes]uint32
	gen    uint32
	stack  []int32
	onRes  [nCand]*nodeSet // outcomes of "candidate on", per step
	spare  []*nodeSet
	offRes nodeSet
	regRes [9]*nodeSet

	// the static chains (cycles and forcing chains): node instances with
	// one parent each.
	inst    []chainInst
	instOn  [nCand]int32 // instance+1 of each candidate on, 0 if none
	instOff [nCand]int32
	pendOn  []int32
	pendOff []int32
	cycles  []int32
	fchains []int32
	static  staticLinks
	rp      [9]cellSet // rule parents of a nested hint: digit d off in rp[d]
	rsig    uint64     // hash of the nodes of its chains, in target order

	// cause is the rule of the node offToOn passes to its f.
	cause int8
	// nestSum is the complexity of the nested chains the nodes counted
	// by ancestors since beginCx rest on, each counted once: the
	// Explainer counts equal chains (FullChain) once, whichever
	// propagation found them, hence the hashes in nestSeen.
	nestSum  int
	nestSeen []uint64
	// The nested chains (levels 2 and up) run on a solver of their own
	// holding the grid of a propagation; collecting makes the chaining
	// techniques list their hints in found instead of applying the best,
	// and outerSrc is the grid the propagation started from.
	inner      *Solver
	noPlus     bool // levels 1 and up are not tried (tests)
	collecting bool
	found      []nestHint
	outerSrc   *[81]uint16
	apar       []int32
	order      []int
	wdc        [9]cellSet // places of each digit in c.work, for advancedOffs
}

type chainInst struct {
	node   int32 // on or off node
	parent int32 // instance, -1 for the assumption
	depth  int32
	cause  int8 // as nodeSet.cause, for nodes on
}

// walk starts a walk of the nodes from and their ancestors, each once,
// which next gives.
func (c *chainer) walk(from []int32) {
	c.gen++
	if c.gen == 0 {
		c.mark = [nNodes]uint32{}
		c.gen = 1
	}
	c.stack = append(c.stack[:0], from...)
}

// next returns the walk's next node not met yet, with its parents in ns
// to come; ok is false at the end.
func (c *chainer) next(ns *nodeSet) (x int32, ok bool) {
	for len(c.stack) > 0 {
		x = c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		if c.mark[x] == c.gen {
			continue
		}
		c.mark[x] = c.gen
		c.stack = append(c.stack, ns.parents(x)...)
		return x, true
	}
	return 0, false
}

// ancestors counts the distinct nodes among the given nodes and their
// ancestors in ns.
func (c *chainer) ancestors(ns *nodeSet, from ...int32) int {
	n := 0
	c.walk(from)
	for x, ok := c.next(ns); ok; x, ok = c.next(ns) {
		n++
		if id := ns.nest[x]; id >= 0 {
			c.addNested(ns, id)
		}
	}
	return n
}

// beginCx starts the count of a hint's nested complexity.
func (c *chainer) beginCx() {
	c.nestSum = 0
	c.nestSeen = c.nestSeen[:0]
}

func (c *chainer) addNested(ns *nodeSet, id int16) {
	sig := ns.nestSig[id]
	for _, r := range c.nestSeen {
		if r == sig {
			return
		}
	}
	c.nestSeen = append(c.nestSeen, sig)
	c.nestSum += int(ns.nestCx[id])
}

// onToOff calls f with each candidate made false by candidate p true, in the Explainer's order: the cell's other digits
// (with y), then the digit's other places in the box, the row and the
// column.
func (c *chainer) onToOff(cand *[81]uint16, p int, y bool, f func(q int) bool) bool {
	i, d := p/9, p%9
	if y {
		for m := cand[i] &^ (1 << d); m != 0; m &= m - 1 {
			if f(i*9 + bits.TrailingZeros16(m)) {
				return true
			}
		}
	}
	var done cellSet
	done.add(i)
	for _, u := range cellUnit[i] {
		for _, j := range unitCells[u] {
			if cand[j]>>d&1 != 0 && !done.has(j) {
				done.add(j)
				if f(j*9 + d) {
					return true
				}
			}
		}
	}
	return false
}

// offToOn calls f with each candidate made true by candidate p false: the
// other digit of a cell with two (with y), the other place of the digit in
// the box, row or column where it has two (with x). In a dynamic
// propagation hidden is set and the parents passed to f include the
// candidates of that cell or unit eliminated before.
func (c *chainer) offToOn(cand *[81]uint16, p int, y, x, hidden bool, f func(q int, parents []int32) bool) bool {
	i, d := p/9, p%9
	if y && bits.OnesCount16(cand[i]) == 2 {
		o := bits.TrailingZeros16(cand[i] &^ (1 << d))
		c.par = append(c.par[:0], offNode(p))
		if hidden {
			for m := c.source[i] &^ cand[i]; m != 0; m &= m - 1 {
				c.par = append(c.par, offNode(i*9+bits.TrailingZeros16(m)))
			}
		}
		c.cause = causeCell
		if f(i*9+o, c.par) {
			return true
		}
	}
	if x {
		for _, u := range cellUnit[i] {
			other := -1
			for _, j := range unitCells[u] {
				if j != i && cand[j]>>d&1 != 0 {
					if other >= 0 {
						other = -2
						break
					}
					other = j
				}
			}
			if other < 0 {
				continue
			}
			c.par = append(c.par[:0], offNode(p))
			if hidden {
				for _, j := range unitCells[u] {
					if c.source[j]>>d&1 != 0 && cand[j]>>d&1 == 0 {
						c.par = append(c.par, offNode(j*9+d))
					}
				}
			}
			c.cause = int8(u)
			if f(other*9+d, c.par) {
				return true
			}
		}
	}
	return false
}

// propagate completes ns, which holds the assumption, with everything it
// implies (the Explainer's doChaining): implications of candidates on are
// drawn before those of candidates off. It stops at the first
// contradiction, recorded in ns.a. With dynamic, each candidate off is
// removed from the grid once drawn, so later singles see it gone; level 1
// adds the eliminations of locked candidates, hidden and naked pairs and
// X-wings when nothing else follows.
func (s *Solver) propagate(ns *nodeSet, dynamic, y bool, level int) {
	c := &s.ch
	c.work = s.cand
	c.source = s.cand
	c.qOn, c.qOff = c.qOn[:0], c.qOff[:0]
	for _, x := range ns.order {
		if x < nCand {
			c.qOn = append(c.qOn, x)
		} else {
			c.qOff = append(c.qOff, x)
		}
	}
	hOn, hOff := 0, 0
	for {
		if hOn < len(c.qOn) {
			p := c.qOn[hOn]
			hOn++
			var one [1]int32
			one[0] = p
			if c.onToOff(&c.work, int(p), y, func(q int) bool {
				if ns.contains(onNode(q)) {
					ns.a = onNode(q)
					ns.bpar = int32(len(ns.pool))
					ns.pool = append(ns.pool, p)
					ns.bn, ns.bcause = 1, -1
					return true
				}
				if !ns.contains(offNode(q)) {
					ns.add(offNode(q), one[:])
					c.qOff = append(c.qOff, offNode(q))
				}
				return false
			}) {
				ns.valid = true
				return
			}
			continue
		}
		if hOff < len(c.qOff) {
			p := c.qOff[hOff]
			hOff++
			pc := int(p) - nCand
			// The Explainer gathers the singles before it removes p.
			type imp struct {
				q, s, n int32
				cause   int8
			}
			var imps [4]imp
			ni := 0
			c.offToOn(&c.work, pc, y, true, dynamic, func(q int, parents []int32) bool {
				imps[ni] = imp{int32(q), int32(len(ns.pool)), int32(len(parents)), c.cause}
				ns.pool = append(ns.pool, parents...)
				ni++
				return false
			})
			if dynamic {
				c.work[pc/9] &^= 1 << (pc % 9)
			}
			for _, im := range imps[:ni] {
				if ns.contains(offNode(int(im.q))) {
					ns.a = offNode(int(im.q))
					ns.bpar, ns.bn, ns.bcause = im.s, im.n, im.cause
					ns.valid = true
					return
				}
				if !ns.contains(onNode(int(im.q))) {
					par := ns.pool[im.s : im.s+im.n]
					ns.add(onNode(int(im.q)), par)
					ns.cause[im.q] = im.cause
					c.qOn = append(c.qOn, onNode(int(im.q)))
				}
			}
			continue
		}
		if level > 0 && s.advancedOffs(ns, level) {
			continue
		}
		break
	}
	ns.valid = true
}

// conflictComplexity is the complexity of the contradiction in ns.
func (c *chainer) conflictComplexity(ns *nodeSet) int {
	c.beginCx()
	n := c.ancestors(ns, ns.a) + 1 + c.ancestors(ns, ns.pool[ns.bpar:ns.bpar+ns.bn]...)
	return n + c.nestSum
}

// chainHint is the best hint of a chaining technique so far: the lowest
// rating, then complexity, then the Explainer's sort key.
type chainHint struct {
	ok         bool
	rating     int
	complexity int
	key        int
	place      bool // place cand, else remove it
	cand       int
	cycle      bool       // a cycle: remove elims instead
	elims      [9]cellSet // per digit
	tech       Technique
	text       string
}

func (h *chainHint) better(rating, complexity, key int) bool {
	if !h.ok {
		return true
	}
	if rating != h.rating {
		return rating < h.rating
	}
	if complexity != h.complexity {
		return complexity < h.complexity
	}
	return key < h.key
}

func (s *Solver) chainSet() *nodeSet {
	c := &s.ch
	if n := len(c.spare); n > 0 {
		ns := c.spare[n-1]
		c.spare = c.spare[:n-1]
		return ns
	}
	ns := &nodeSet{}
	ns.a = -1
	return ns
}

// onOutcome returns the outcome of candidate p on, computed once a step.
func (s *Solver) onOutcome(p int, dynamic, y bool, level int) *nodeSet {
	c := &s.ch
	if ns := c.onRes[p]; ns != nil {
		return ns
	}
	ns := s.chainSet()
	ns.reset()
	ns.add(onNode(p), nil)
	s.propagate(ns, dynamic, y, level)
	c.onRes[p] = ns
	return ns
}

// releaseOutcomes returns the outcomes of the step to the spare list.
func (s *Solver) releaseOutcomes() {
	c := &s.ch
	for p, ns := range c.onRes {
		if ns != nil {
			c.spare = append(c.spare, ns)
			c.onRes[p] = nil
		}
	}
}

// forcing finds the best Nishio (nishio), multiple (cell and region, not
// dynamic) or dynamic forcing chain, the Explainer's getMultipleChainsHintList,
// and applies it. base is the technique's rating before the supplement.
func (s *Solver) forcing(t Technique, base int, multiple, dynamic, nishio bool, level int) bool {
	c := &s.ch
	defer s.releaseOutcomes()
	y := !nishio
	var best chainHint
	consider := func(complexity, key int, place bool, cand int, kind string) {
		r := base + lengthSupplement(complexity)
		if c.collecting {
			s.collect(r, complexity, key, place, cand)
			return
		}
		if !best.better(r, complexity, key) {
			return
		}
		tt := t
		if t == CellForcing && kind == "region" {
			tt = RegionForcing
		}
		best = chainHint{ok: true, rating: r, complexity: complexity, key: key, place: place, cand: cand, tech: tt, text: kind}
	}
	for i := range 81 {
		if s.halted() {
			return false
		}
		card := bits.OnesCount16(s.cand[i])
		if !(card > 2 || card > 1 && dynamic) {
			continue
		}
		doDouble := card >= 3 && !nishio && dynamic
		doContra := dynamic || nishio
		cellOK := !nishio && (card == 2 || multiple && card > 2)
		for m := s.cand[i]; m != 0; m &= m - 1 {
			d := bits.TrailingZeros16(m)
			p := i*9 + d
			on := s.onOutcome(p, dynamic, y, level)
			if doContra && on.a >= 0 {
				s.conflictParents(on)
				consider(c.conflictComplexity(on), 7, false, p, "contradiction")
			}
			off := &c.offRes
			off.reset()
			off.add(offNode(p), nil)
			s.propagate(off, dynamic, y, level)
			if doContra && off.a >= 0 {
				s.conflictParents(off)
				consider(c.conflictComplexity(off), 7, true, p, "contradiction")
			}
			if doDouble {
				s.concluded([]*nodeSet{on, off}, -1, 1, "double", consider)
			}
			if !nishio {
				s.regionForcing(i, d, multiple, dynamic, y, level, consider)
			}
		}
		if cellOK {
			var outs [9]*nodeSet
			k := 0
			for m := s.cand[i]; m != 0; m &= m - 1 {
				outs[k] = c.onRes[i*9+bits.TrailingZeros16(m)]
				k++
			}
			s.concluded(outs[:k], causeCell, 5, "cell", consider)
		}
	}
	return s.takeChain(&best)
}

// regionForcing looks at the units of cell i where it is the first place
// of digit d: what holds whichever place takes d.
func (s *Solver) regionForcing(i, d int, multiple, dynamic, y bool, level int, consider func(int, int, bool, int, string)) {
	c := &s.ch
	for _, u := range cellUnit[i] {
		p := s.positions(u, d+1)
		n := p.count()
		if !(n == 2 || multiple && n > 2) || p.first() != i {
			continue
		}
		k := 0
		p.each(func(j int) {
			c.regRes[k] = s.onOutcome(j*9+d, dynamic, y, level)
			k++
		})
		s.concluded(c.regRes[:k], int8(u), 6, "region", consider)
	}
}

// concluded considers each node that every outcome of outs holds, nodes
// on first, then off, in the order outs[0] reached them: a conclusion of
// a double (key 1), cell (5) or region (6) forcing chain, its complexity
// the ancestry it has in all of them. cause is what the nested chains
// record for the assumptions (-1: none).
func (s *Solver) concluded(outs []*nodeSet, cause int8, key int, kind string, consider func(int, int, bool, int, string)) {
	c := &s.ch
	for pass := range 2 {
		for _, x := range outs[0].order {
			if (x < nCand) != (pass == 0) {
				continue
			}
			all := true
			for _, r := range outs[1:] {
				all = all && r.contains(x)
			}
			q := int(x) % nCand
			if !all || x < nCand && s.cand[q/9]&^(1<<(q%9)) == 0 {
				continue
			}
			c.beginCx()
			c.rp, c.rsig = [9]cellSet{}, 0
			n := 0
			for _, r := range outs {
				n += c.ancestors(r, x)
				if c.collecting {
					s.ruleParents(r, cause, x)
				}
			}
			consider(n+c.nestSum, key, x < nCand, q, kind)
		}
	}
}

// takeChain ends a chaining technique's search: collecting, it tells
// whether hints were listed; else it applies the best hint if any.
func (s *Solver) takeChain(best *chainHint) bool {
	if s.ch.collecting {
		return len(s.ch.found) > 0
	}
	if !best.ok {
		return false
	}
	s.applyChainHint(best)
	return true
}

func (s *Solver) applyChainHint(h *chainHint) {
	if h.cycle {
		for d := range h.elims {
			s.elimSet(h.elims[d], d+1)
		}
		s.record(h.tech, h.rating, func() string {
			var b []byte
			for d := range h.elims {
				if !h.elims[d].empty() {
					b = fmt.Appendf(b, " %d from %s", d+1, cellsText(h.elims[d]))
				}
			}
			return fmt.Sprintf("%s (cycle, complexity %d) removes%s", h.tech, h.complexity, b)
		})
		return
	}
	i, d := h.cand/9, h.cand%9+1
	if h.place {
		s.elim(i, s.cand[i]&^(1<<(d-1)))
		s.place(i, d)
	} else {
		s.elim(i, 1<<(d-1))
	}
	s.record(h.tech, h.rating, func() string {
		verb := "removes"
		if h.place {
			verb = "places"
		}
		return fmt.Sprintf("%s (%s, complexity %d) %s %d at %s", h.tech, h.text, h.complexity, verb, d, cellName(i))
	})
}

package rating

import "math/bits"

// The static chains of the Explainer's "Forcing Chains & Cycles": from
// each candidate, breadth first, with X-links only (one digit: X-cycles
// 6.5, X-chains 6.6), Y-links only (bivalue cells: Y-cycles 6.5) and both
// (7.0), plus the length supplement. A cycle removes the candidates that
// see a candidate on and a candidate off of the same digit along it; a
// forcing chain from a candidate to its own negation decides it.

// staticLinks are the implications of the grid as it stands, drawn once
// for a whole search of static chains (the grid does not change during
// it) in the order chainer.onToOff and offToOn give them.
type staticLinks struct {
	// peerAt[p]: where in peers the places of p's digit that p on makes
	// false start (its box, then row, then column).
	peerAt [nCand + 1]int32
	peers  []int32
	// conj[p]: the other place of p's digit in its box, row and column
	// where it has two (made true by p off), else -1.
	conj [nCand][3]int32
	buf  []int32
	// causes[k]: the rule that made buf[k] true, after ons (as
	// chainInst.cause: a unit, or causeCell).
	causes []int8
}

// draw computes the links of the grid's candidates.
func (l *staticLinks) draw(s *Solver) {
	l.peers = l.peers[:0]
	for p := range nCand {
		l.peerAt[p] = int32(len(l.peers))
		i, d := p/9, p%9
		if s.cand[i]>>d&1 == 0 {
			continue
		}
		done := single(i)
		for k, u := range cellUnit[i] {
			places := unitSet[u].and(s.dcells[d])
			l.conj[p][k] = -1
			if places.count() == 2 {
				l.conj[p][k] = int32(places.andNot(single(i)).first()*9 + d)
			}
			for x := places.andNot(done); !x.empty(); {
				j := x.first()
				x = x.andNot(single(j))
				l.peers = append(l.peers, int32(j*9+d))
			}
			done = done.or(places)
		}
	}
	l.peerAt[nCand] = int32(len(l.peers))
}

// offs returns the candidates made false by candidate p true: the cell's
// other digits (with y), then the peers (chainer.onToOff's order).
func (l *staticLinks) offs(s *Solver, p int, y bool) []int32 {
	l.buf = l.buf[:0]
	i, d := p/9, p%9
	if y {
		for m := s.cand[i] &^ (1 << d); m != 0; m &= m - 1 {
			l.buf = append(l.buf, int32(i*9+bits.TrailingZeros16(m)))
		}
	}
	l.buf = append(l.buf, l.peers[l.peerAt[p]:l.peerAt[p+1]]...)
	return l.buf
}

// ons returns the candidates made true by candidate p false: the other
// digit of a bivalue cell (with y), the other place of a unit (with x;
// chainer.offToOn's order).
func (l *staticLinks) ons(s *Solver, p int, y, x bool) []int32 {
	l.buf, l.causes = l.buf[:0], l.causes[:0]
	i, d := p/9, p%9
	if m := s.cand[i]; y && bits.OnesCount16(m) == 2 {
		l.buf = append(l.buf, int32(i*9+bits.TrailingZeros16(m&^(1<<d))))
		l.causes = append(l.causes, causeCell)
	}
	if x {
		for k, q := range l.conj[p] {
			if q >= 0 {
				l.buf = append(l.buf, q)
				l.causes = append(l.causes, int8(cellUnit[i][k]))
			}
		}
	}
	return l.buf
}

func (c *chainer) newInst(node, parent int32) int32 {
	depth := int32(0)
	if parent >= 0 {
		depth = c.inst[parent].depth + 1
	}
	cause := int8(-1)
	if node < nCand && parent >= 0 {
		cause = c.cause // set by offToOn
	}
	c.inst = append(c.inst, chainInst{node, parent, depth, cause})
	return int32(len(c.inst) - 1)
}

// isAncestor tells whether node is among the strict ancestors of instance a.
func (c *chainer) isAncestor(a int32, node int32) bool {
	for a = c.inst[a].parent; a >= 0; a = c.inst[a].parent {
		if c.inst[a].node == node {
			return true
		}
	}
	return false
}

// resetInst forgets the instances, clearing only the entries of instOn
// and instOff they set.
func (c *chainer) resetInst() {
	for _, in := range c.inst {
		if in.node < nCand {
			c.instOn[in.node] = 0
		} else {
			c.instOff[in.node-nCand] = 0
		}
	}
	c.inst = c.inst[:0]
}

// noDeeper is the depth past which a search cannot find a chain better
// than best: one of complexity depth+extra rates base plus its length
// supplement, which only grows with the depth.
func noDeeper(best *chainHint, base, extra, key int) int {
	if !best.ok {
		return 1 << 30
	}
	d := 0
	for best.better(base+lengthSupplement(d+extra), d+extra, key) {
		d++
	}
	return d - 1
}

// cyclesFrom finds the cycles through candidate p on (the Explainer's
// doCycles): it leaves in c.cycles the instances that come back to p, up
// to depth max.
func (s *Solver) cyclesFrom(p int, y, x bool, max int) {
	c := &s.ch
	c.resetInst()
	c.cycles = c.cycles[:0]
	root := c.newInst(onNode(p), -1)
	c.instOn[p] = root + 1
	c.pendOn = append(c.pendOn[:0], root)
	c.pendOff = c.pendOff[:0]
	length := 0
	for len(c.pendOn) > 0 || len(c.pendOff) > 0 {
		if length+2 > max {
			break // an off level, then an on level, all past max
		}
		length++
		for _, a := range c.pendOn {
			for _, q := range c.static.offs(s, int(c.inst[a].node), y) {
				if !c.isAncestor(a, offNode(int(q))) {
					c.pendOff = append(c.pendOff, c.newInst(offNode(int(q)), a))
				}
			}
		}
		c.pendOn = c.pendOn[:0]
		length++
		for _, b := range c.pendOff {
			for k, q := range c.static.ons(s, int(c.inst[b].node)-nCand, y, x) {
				c.cause = c.static.causes[k]
				if length >= 4 && int(q) == p {
					c.cycles = append(c.cycles, c.newInst(onNode(int(q)), b))
				}
				if c.instOn[q] == 0 {
					a := c.newInst(onNode(int(q)), b)
					c.instOn[q] = a + 1
					c.pendOn = append(c.pendOn, a)
				}
			}
		}
		c.pendOff = c.pendOff[:0]
	}
}

// forcingFrom finds the chains from candidate p on (or off) to its
// negation (the Explainer's doForcingChains); it leaves their last
// instances, up to depth max, in c.fchains.
func (s *Solver) forcingFrom(p int, on, y bool, max int) {
	c := &s.ch
	c.resetInst()
	c.fchains = c.fchains[:0]
	c.pendOn, c.pendOff = c.pendOn[:0], c.pendOff[:0]
	node := offNode(p)
	if on {
		node = onNode(p)
	}
	root := c.newInst(node, -1)
	if on {
		c.instOn[p] = root + 1
		c.pendOn = append(c.pendOn, root)
	} else {
		c.instOff[p] = root + 1
		c.pendOff = append(c.pendOff, root)
	}
	found := false
	for len(c.pendOn) > 0 || len(c.pendOff) > 0 {
		for h := 0; h < len(c.pendOn); h++ {
			a := c.pendOn[h]
			if int(c.inst[a].depth) >= max {
				continue // what it implies lies past max
			}
			for _, q := range c.static.offs(s, int(c.inst[a].node), y) {
				if on && int(q) == p && !found {
					found = true
					c.fchains = append(c.fchains, c.newInst(offNode(int(q)), a))
				}
				if c.instOff[q] == 0 {
					b := c.newInst(offNode(int(q)), a)
					c.instOff[q] = b + 1
					c.pendOff = append(c.pendOff, b)
				}
			}
		}
		c.pendOn = c.pendOn[:0]
		for h := 0; h < len(c.pendOff); h++ {
			b := c.pendOff[h]
			if int(c.inst[b].depth) >= max {
				continue
			}
			for k, q := range c.static.ons(s, int(c.inst[b].node)-nCand, y, true) {
				c.cause = c.static.causes[k]
				if !on && int(q) == p && !found {
					found = true
					c.fchains = append(c.fchains, c.newInst(onNode(int(q)), b))
				}
				if c.instOn[q] == 0 {
					a := c.newInst(onNode(int(q)), b)
					c.instOn[q] = a + 1
					c.pendOn = append(c.pendOn, a)
				}
			}
		}
		c.pendOff = c.pendOff[:0]
	}
}

// cycleElims computes what the cycle ending at instance dst removes.
func (s *Solver) cycleElims(dst int32, el *[9]cellSet) bool {
	c := &s.ch
	var cells cellSet
	for a := dst; c.inst[a].parent >= 0; a = c.inst[a].parent {
		cells.add(int(c.inst[a].node) % nCand / 9)
	}
	var forw, back [9]cellSet
	for a := dst; c.inst[a].parent >= 0; a = c.inst[a].parent {
		q := int(c.inst[a].node) % nCand
		d := q % 9
		v := peers[q/9].and(s.dcells[d]).andNot(cells)
		if c.inst[a].node < nCand {
			forw[d] = forw[d].or(v)
		} else {
			back[d] = back[d].or(v)
		}
	}
	any := false
	for d := range el {
		el[d] = forw[d].and(back[d])
		any = any || !el[d].empty()
	}
	return any
}

// staticChains finds the best cycle or forcing X-, Y- or XY-chain and
// applies it.
func (s *Solver) staticChains() bool {
	c := &s.ch
	var best chainHint
	var el [9]cellSet
	c.static.draw(s)
	for _, cfg := range [3]struct {
		y, x bool
		key  int
	}{{false, true, 2}, {true, false, 3}, {true, true, 4}} {
		cycleBase, chainBase, tech := 65, 66, XChain
		if cfg.y {
			tech = YChain
		}
		if cfg.y && cfg.x {
			cycleBase, chainBase, tech = 70, 70, AIC
		}
		if noDeeper(&best, cycleBase, 0, cfg.key) < 0 && noDeeper(&best, chainBase, 1, cfg.key) < 0 {
			continue // nothing of this kind can beat best
		}
		for i := range 81 {
			card := bits.OnesCount16(s.cand[i])
			if card < 2 || !cfg.x && card > 2 {
				continue
			}
			for m := s.cand[i]; m != 0; m &= m - 1 {
				p := i*9 + bits.TrailingZeros16(m)
				s.cyclesFrom(p, cfg.y, cfg.x, noDeeper(&best, cycleBase, 0, cfg.key))
				for _, dst := range c.cycles {
					cx := int(c.inst[dst].depth)
					r := cycleBase + lengthSupplement(cx)
					if c.collecting {
						if s.cycleElims(dst, &el) {
							s.instParents(dst, true)
							s.collectElims(r, cx, cfg.key, &el)
						}
						continue
					}
					if !best.better(r, cx, cfg.key) || !s.cycleElims(dst, &el) {
						continue
					}
					best = chainHint{ok: true, rating: r, complexity: cx, key: cfg.key, cycle: true, elims: el, tech: tech}
				}
				if !cfg.x {
					continue
				}
				for _, on := range [2]bool{true, false} {
					s.forcingFrom(p, on, cfg.y, noDeeper(&best, chainBase, 1, cfg.key))
					for _, dst := range c.fchains {
						cx := int(c.inst[dst].depth) + 1
						r := chainBase + lengthSupplement(cx)
						if c.collecting {
							s.instParents(dst, false)
							s.collect(r, cx, cfg.key, !on, p)
						} else if best.better(r, cx, cfg.key) {
							best = chainHint{ok: true, rating: r, complexity: cx, key: cfg.key, place: !on, cand: p, tech: tech, text: "forcing chain"}
						}
					}
				}
			}
		}
	}
	return s.takeChain(&best)
}

package rating

import "math/bits"

// The static chains of the Explainer's "Forcing Chains & Cycles": from
// each candidate, breadth first, with X-links only (one digit: X-cycles
// 6.5, X-chains 6.6), Y-links only (bivalue cells: Y-cycles 6.5) and both
// (7.0), plus the length supplement. A cycle removes the candidates that
// see a candidate on and a candidate off of the same digit along it; a
// forcing chain from a candidate to its own negation decides it.

func (c *chainer) newInst(node, parent int32) int32 {
	depth := int32(0)
	if parent >= 0 {
		depth = c.inst[parent].depth + 1
	}
	c.inst = append(c.inst, chainInst{node, parent, depth})
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
			c.onToOff(&s.cand, int(c.inst[a].node), y, func(q int) bool {
				if !c.isAncestor(a, offNode(q)) {
					c.pendOff = append(c.pendOff, c.newInst(offNode(q), a))
				}
				return false
			})
		}
		c.pendOn = c.pendOn[:0]
		length++
		for _, b := range c.pendOff {
			c.offToOn(&s.cand, int(c.inst[b].node)-nCand, y, x, false, func(q int, _ []int32) bool {
				if length >= 4 && q == p {
					c.cycles = append(c.cycles, c.newInst(onNode(q), b))
				}
				if c.instOn[q] == 0 {
					a := c.newInst(onNode(q), b)
					c.instOn[q] = a + 1
					c.pendOn = append(c.pendOn, a)
				}
				return false
			})
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
			c.onToOff(&s.cand, int(c.inst[a].node), y, func(q int) bool {
				if on && q == p && !found {
					found = true
					c.fchains = append(c.fchains, c.newInst(offNode(q), a))
				}
				if c.instOff[q] == 0 {
					b := c.newInst(offNode(q), a)
					c.instOff[q] = b + 1
					c.pendOff = append(c.pendOff, b)
				}
				return false
			})
		}
		c.pendOn = c.pendOn[:0]
		for h := 0; h < len(c.pendOff); h++ {
			b := c.pendOff[h]
			if int(c.inst[b].depth) >= max {
				continue
			}
			c.offToOn(&s.cand, int(c.inst[b].node)-nCand, y, true, false, func(q int, _ []int32) bool {
				if !on && q == p && !found {
					found = true
					c.fchains = append(c.fchains, c.newInst(onNode(q), b))
				}
				if c.instOn[q] == 0 {
					a := c.newInst(onNode(q), b)
					c.instOn[q] = a + 1
					c.pendOn = append(c.pendOn, a)
				}
				return false
			})
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
						if best.better(r, cx, cfg.key) {
							best = chainHint{ok: true, rating: r, complexity: cx, key: cfg.key, place: !on, cand: p, tech: tech, text: "forcing chain"}
						}
					}
				}
			}
		}
	}
	if !best.ok {
		return false
	}
	s.applyChainHint(&best)
	return true
}

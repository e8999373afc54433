package rating

import "fmt"

// Strong-link fish (the Explainer's StrongLinks): n units where a digit
// has two places, or two groups of places (an empty rectangle in a box,
// two box segments of a line), chained by weak links (the end of one and
// the start of the next lie in one row, column or box). One of the
// chain's two far ends holds the digit, so it goes from the cells that
// see both. Two links (skyscraper, kite, turbot fish, empty rectangle)
// rate 4.0, three 5.4, four 5.8, plus 0.3 with a grouped link, else 0.1
// unless all links are parallel lines, 0.2 with a box and both kinds of
// lines.

// sLink is one strong link: the places of the digit in unit u split in
// ends a and b (each a group of cells in one line or box).
type sLink struct {
	u       int
	a, b    cellSet
	places  cellSet
	grouped bool
}

// groupUnit returns the column, else row, else box holding all of g
// (the Explainer's shareRegionOf order), or -1.
func groupUnit(g cellSet) int {
	f := g.first()
	for _, k := range [3]int{2, 1, 0} {
		u := cellUnit[f][k]
		if g.andNot(unitSet[u]).empty() {
			return u
		}
	}
	return -1
}

// strongLinksOf lists the links of digit d.
func (s *Solver) strongLinksOf(d int, out []sLink) []sLink {
	for u := range 27 {
		p := s.positions(u, d)
		n := p.count()
		if n < 2 || n > 6 {
			continue
		}
		if n == 2 {
			a := p.first()
			b := p.andNot(single(a)).first()
			if u < 9 && (a/9 == b/9 || a%9 == b%9) {
				continue // a line's link
			}
			out = append(out, sLink{u: u, a: single(a), b: single(b), places: p})
			continue
		}
		if u < 9 {
			// An empty rectangle: all places in the row and column of a
			// heart cell h of the box, some off each.
			found := false
			for _, h := range unitCells[u] {
				row, col := unitSet[cellUnit[h][1]].and(unitSet[u]), unitSet[cellUnit[h][2]].and(unitSet[u])
				if !p.andNot(row.or(col)).empty() {
					continue
				}
				b1, b2 := p.and(col).andNot(single(h)), p.and(row).andNot(single(h))
				if b1.empty() || b2.empty() {
					continue
				}
				found = true
				switch {
				case b1.count() == 1 || b2.count() == 1:
					if b1.count() == 1 {
						out = append(out, sLink{u: u, a: b1, b: b2.or(single(h)), places: p, grouped: true})
					}
					if b2.count() == 1 {
						out = append(out, sLink{u: u, a: b2, b: b1.or(single(h)), places: p, grouped: true})
					}
				default:
					if p.has(h) {
						if b1.count() == 2 {
							b1.add(h)
						}
						if b2.count() == 2 {
							b2.add(h)
						}
					}
					out = append(out, sLink{u: u, a: b1, b: b2, places: p, grouped: true})
				}
				break
			}
			if found || n < 4 {
				continue
			}
			// Two rows (or columns) of the box hold all places.
			for _, k := range [2]int{1, 2} {
				var lines [3]cellSet
				nl := 0
				for _, c := range unitCells[u] {
					l := cellUnit[c][k]
					seg := unitSet[l].and(unitSet[u])
					dup := false
					for _, x := range lines[:nl] {
						dup = dup || x == seg
					}
					if !dup {
						lines[nl] = seg
						nl++
					}
				}
				for e := range 3 {
					if !p.and(lines[e]).empty() {
						continue
					}
					b1, b2 := p.and(lines[(e+1)%3]), p.and(lines[(e+2)%3])
					if !b1.empty() && !b2.empty() {
						out = append(out, sLink{u: u, a: b1, b: b2, places: p, grouped: true})
						found = true
					}
					break
				}
				if found {
					break
				}
			}
			continue
		}
		// A line: its places in two of its three box segments.
		var segs [3]cellSet
		for k := range 3 {
			segs[k] = unitSet[u].and(unitSet[cellUnit[unitCells[u][3*k]][0]])
		}
		for e := range 3 {
			if !p.and(segs[e]).empty() {
				continue
			}
			b1, b2 := p.and(segs[(e+1)%3]), p.and(segs[(e+2)%3])
			if !b1.empty() && !b2.empty() {
				out = append(out, sLink{u: u, a: b1, b: b2, places: p, grouped: true})
			}
			break
		}
	}
	return out
}

// slSearch is the state of the strong-link search.
type slSearch struct {
	n, d  int
	links []sLink
	chain [4]int
	flip  [4]bool
	found bool
	any   bool // a chain eliminates, for the digit searched
	best  slHint
	// into[u]: the ends a chain may enter links by (bit 2li for link
	// li's a, 2li+1 for its b) that lie in unit u; see[2li+fl]: the cells
	// that see all of that end.
	into [27]cellSet
	see  []cellSet
}

type slHint struct {
	rating, n int
	d         int
	e         cellSet
}

func (s *Solver) strongLinks(n int) bool {
	st := &s.sl
	st.n, st.found = n, false
	key := scanLinks2 + scan(n-2)
	digits := s.mem.newDigits(key)
	for d := 1; d <= 9; d++ {
		if digits>>(d-1)&1 == 0 || s.dcells[d-1].empty() {
			continue
		}
		st.d = d
		st.links = s.strongLinksOf(d, st.links[:0])
		st.into = [27]cellSet{}
		st.see = st.see[:0]
		for li := range st.links {
			l := &st.links[li]
			for fl, a := range [2]cellSet{l.a, l.b} {
				see := allCells
				for x := a; !x.empty(); {
					c := x.first()
					x = x.andNot(single(c))
					see = see.and(peers[c])
				}
				st.see = append(st.see, see)
				for _, u := range cellUnit[a.first()] {
					if a.andNot(unitSet[u]).empty() {
						st.into[u].add(2*li + fl)
					}
				}
			}
		}
		st.any = false
		s.slRec(0, cellSet{}, cellSet{}, s.dcells[d-1])
		if !st.any {
			s.mem.nothingFor(key, d)
		}
	}
	if !st.found {
		s.mem.nothing(key)
		return false
	}
	best := st.best
	s.elimSet(best.e, best.d)
	t := [5]Technique{2: TurbotFish, 3: ThreeStrongLinks, 4: FourStrongLinks}[n]
	s.record(t, best.rating, func() string {
		return fmt.Sprintf("%d strong links on %d, removed from %s", n, best.d, cellsText(best.e))
	})
	return true
}

// slRec extends the chain of k links; used holds their places, shares the
// units of their weak links, and elim the cells the chain may still
// eliminate from: places of the digit that see all of its start and lie in
// none of its links' units. slFound eliminates from a subset of it, so the
// search stops where it is empty.
//
// A chain and its reverse have the same ends, links and weak links, so
// the same eliminations and rating: only the one whose first link comes
// first in links is completed (the one the search meets first, so the
// step chosen is the same), which halves the last level.
func (s *Solver) slRec(k int, used, shares, elim cellSet) {
	st := &s.sl
	n, links := st.n, st.links
	if k == n {
		s.slFound(shares)
		return
	}
	// ends: the ends the chain may go on by (bit 2li+flip), all of them
	// at the start, then those sharing a unit with the last end, pb.
	ends := cellSet{^uint64(0), ^uint64(0)}
	var pb cellSet
	if k > 0 {
		prev := &links[st.chain[k-1]]
		pb = prev.b
		if st.flip[k-1] {
			pb = prev.a
		}
		ends = cellSet{}
		for _, u := range cellUnit[pb.first()] {
			if pb.andNot(unitSet[u]).empty() {
				ends = ends.or(st.into[u])
			}
		}
	}
	for ; !ends.empty(); ends = ends.andNot(single(ends.first())) {
		j := ends.first()
		li, fl := j/2, j%2 == 1
		if li >= len(links) {
			break
		}
		if k == n-1 && li < st.chain[0] {
			continue // the reverse of a chain already completed
		}
		l := &links[li]
		if !l.places.and(used).empty() {
			continue
		}
		el := elim.andNot(unitSet[l.u])
		if el.empty() {
			continue
		}
		dup := false
		for _, x := range st.chain[:k] {
			dup = dup || links[x].u == l.u
		}
		if dup {
			continue
		}
		a := l.a
		if fl {
			a = l.b
		}
		sh, e := shares, el
		if k == 0 {
			if e = e.and(st.see[j]); e.empty() {
				continue
			}
		} else {
			sh = sh.or(unitSet[groupUnit(pb.or(a))])
		}
		if k == n-1 && e.and(st.see[j^1]).empty() {
			continue // nothing sees both ends: slFound would find nothing
		}
		st.chain[k], st.flip[k] = li, fl
		s.slRec(k+1, used.or(l.places), sh, e)
	}
}

// slFound rates a complete chain and keeps it if it is the best so far.
func (s *Solver) slFound(shares cellSet) {
	st := &s.sl
	n, links := st.n, st.links
	first, last := &links[st.chain[0]], &links[st.chain[n-1]]
	start, end := first.a, last.b
	if st.flip[0] {
		start = first.b
	}
	if st.flip[n-1] {
		end = last.a
	}
	v := allCells
	for x := start.or(end); !x.empty(); {
		c := x.first()
		x = x.andNot(single(c))
		v = v.and(peers[c])
	}
	v = v.andNot(start).andNot(end)
	grouped, box, rows, cols := false, false, false, false
	for _, li := range st.chain[:n] {
		l := &links[li]
		v = v.andNot(unitSet[l.u])
		grouped = grouped || l.grouped
		switch {
		case l.u < 9:
			box = true
		case l.u < 18:
			rows = true
		default:
			cols = true
		}
	}
	if groupUnit(start.or(end)) < 0 {
		v = v.andNot(shares) // not a ring
	}
	e := v.and(s.dcells[st.d-1])
	if e.empty() {
		return
	}
	st.any = true
	rating := [5]int{2: 40, 3: 54, 4: 58}[n]
	switch {
	case grouped:
		rating += 3
	case !box && !(rows && cols):
	case box && rows && cols:
		rating += 2
	default:
		rating++
	}
	cnt := e.count()
	if st.found && (rating > st.best.rating || rating == st.best.rating && cnt <= st.best.n) {
		return
	}
	st.best, st.found = slHint{rating: rating, n: cnt, d: st.d, e: e}, true
}

package pns

import "math/bits"

// Set matching (Solver.SetMatching) is a static draw stronger than a
// pairing: it proves that the attacker cannot complete a line where no
// pairing exists, with fewer than two cells a window (Uiterwijk, "Set
// Matching: an enhancement of the Hales-Jewett pairing strategy", ICGA
// Journal 40(3), 2018). The rule, as this solver uses it:
//
// A matching of the defender is a set of disjoint blocks of empty cells,
// and for every window free of the defender's stones a block that holds
// at least two of its empty cells (its trace in the block), such that in
// every block the defender, answering each attacker move in the block with
// a move in the block, takes a cell of every trace assigned to the block:
// a Maker-Breaker game on the block's cells and traces, Maker (the
// attacker) moving first, that Breaker wins (blockGame solves it
// exactly). The defender then answers every attacker move in a block by
// that block's strategy, and plays anywhere otherwise. Every window of the
// attacker gets a defender's stone, so the attacker never completes a
// line, whoever is to move, because:
//
//   - the blocks are disjoint, so their games do not interfere;
//   - a move the defender plays anywhere (the attacker having played
//     outside every block, or the defender being to move) may land in a
//     block: an extra stone never hurts Breaker (it pretends the stone is
//     not there, and plays any free cell when its strategy names that one);
//   - an attacker move outside every block, a pass in every block's game,
//     changes none of them.
//
// A pairing is the matching whose blocks are pairs. A block of up to four
// cells proves nothing a pairing does not (a Breaker win on them always
// holds a pair in each trace), so the blocks that matter have five cells
// or more: the smallest is five cells a to e with traces {a,b}, {a,c,d},
// {b,c,e}, three windows on five cells where a pairing needs six
// (TestBreakerWins).
//
// The search (matchSearch) is pairSearch's with one more kind of
// candidate: for each pair of the window with the fewest free cells, the
// block of that pair and the free cells of the windows the pair would
// leave short of a pair of their own, with every window whose trace the
// block's game still wins. Its zone (zones.go) is the blocks' cells: the
// traces, and so every block's game, are the same whatever the attacker
// has outside them.

// maxBlock bounds the cells of a block, so that blockGame's table holds
// every position of its game (at most 3^7 = 2,187), and maxBlockEdges its
// traces.
const (
	maxBlock      = 7
	maxBlockEdges = 16
)

// matchBudget bounds the steps of one matching search, as pairBudget does
// a pairing search's. Each step grows a block for each pair of a window,
// and solves its game for each window it might cover, so a step costs
// tens of a pairing's; 8 finds the most matchings that save nodes
// (measured on 4,5,4, 5,5,4 and 6,5,4: 16 or 64 find more of them and
// save fewer nodes, 4 finds fewer).
const matchBudget = 8

// SetMatching turns set matching on or off (off by default): on, where no
// pairing is found at a position of the attacker to move, the solver looks
// for a matching, and a position with one is proven for the defender. The
// answers are the same (TestMatchingAgree); the nodes fewer where the
// matchings end lines of search early.
func (s *Solver) SetMatching(on bool) {
	s.matching = on
	if on && s.block == nil {
		s.block = new(blockGame)
	}
}

// matchable reports whether the defender, whose stones are def, has a
// matching (above), found within matchBudget steps; the blocks are then
// s.blocks[:s.blockLen]. A "no" proves nothing.
func (s *Solver) matchable(def, empty set) bool {
	if s.tt.pairs == nil {
		return false
	}
	var open [pairWords]uint64
	n := 0
	for i, w := range s.g.Windows() {
		if !isEmpty(and(w, def)) {
			continue
		}
		if atMostOne(and(w, empty)) {
			return false // fewer than two empty cells: no block covers it
		}
		open[i>>6] |= 1 << uint(i&63)
		n++
	}
	if n >= ones(empty) {
		return false // as pairable: rare, and costly to look for
	}
	s.matchSteps, s.pairEmpty = 0, empty
	return s.matchSearch(0, open, noCells)
}

// pivot returns, of the windows open, the one with the fewest empty cells
// not in used (every solution covers it from those cells), of those the
// one whose free cells the most open windows need, and its number of free
// cells; -1 if none is open.
func (s *Solver) pivot(open *[pairWords]uint64, used set) (best, bestFree int) {
	pt, ws := s.tt.pairs, s.g.Windows()
	best, bestFree, bestD := -1, maxCells+1, 0
	for wi := range pairWords {
		for m := open[wi]; m != 0; m &= m - 1 {
			i := wi<<6 | bits.TrailingZeros64(m)
			free := andNot(and(ws[i], s.pairEmpty), used)
			f := ones(free)
			if f > bestFree {
				continue
			}
			d := 0 // the open windows through its free cells
			for c := free; !isEmpty(c); c = withoutLowest(c) {
				cw := &pt.cellWins[lowest(c)]
				for wj := range pairWords {
					d += bits.OnesCount64(open[wj] & cw[wj])
				}
			}
			if f < bestFree || d > bestD {
				best, bestFree, bestD = i, f, d
			}
		}
	}
	return best, bestFree
}

// matchCandidates is the most candidates of one step: a pair and a block
// for each pair of a window of eight cells.
const matchCandidates = 2 * pairMaxPairs

// matchSearch covers the windows open with disjoint blocks of empty cells
// avoiding the cells used, as pairSearch covers them with pairs: at the
// pivot window it tries, for each pair of its free cells, the block grown
// from the pair (growBlock) where it covers more than the pair, then the
// pair; the blocks first, those covering the most windows a cell first.
func (s *Solver) matchSearch(lv int, open [pairWords]uint64, used set) bool {
	best, bestFree := s.pivot(&open, used)
	if best < 0 {
		s.blockLen = lv
		return true
	}
	if bestFree < 2 {
		return false
	}
	s.matchSteps++
	if s.matchSteps > matchBudget || lv == len(s.blocks) {
		return false
	}
	pt := s.tt.pairs
	free := andNot(and(s.g.Windows()[best], s.pairEmpty), used)
	var cells [matchCandidates]set
	var cover [matchCandidates][pairWords]uint64
	var score [matchCandidates]int
	nc := 0
	add := func(b set, cv *[pairWords]uint64, sc int) {
		j := nc
		for j > 0 && score[j-1] < sc {
			cells[j], cover[j], score[j] = cells[j-1], cover[j-1], score[j-1]
			j--
		}
		cells[j], cover[j], score[j] = b, *cv, sc
		nc++
	}
	for a := free; !isEmpty(a); a = withoutLowest(a) {
		ca := lowest(a)
		for b := withoutLowest(a); !isEmpty(b); b = withoutLowest(b) {
			cb := lowest(b)
			pi := pt.index[ca][cb]
			var pc [pairWords]uint64
			np := 0
			for wi := range pairWords {
				pc[wi] = open[wi] & pt.wins[pi][wi]
				np += bits.OnesCount64(pc[wi])
			}
			pair := or(bit(ca), bit(cb))
			// Pairs after blocks, by coverage.
			add(pair, &pc, np)
			if blk, bc, nb := s.growBlock(best, pair, &open, used); nb > np {
				add(blk, &bc, 1<<20+nb<<8/ones(blk))
			}
		}
	}
	for i := range nc {
		next := open
		for wi := range pairWords {
			next[wi] &^= cover[i][wi]
		}
		s.blocks[lv] = cells[i]
		if s.matchSearch(lv+1, next, or(used, cells[i])) {
			return true
		}
		if s.matchSteps > matchBudget {
			return false
		}
	}
	return false
}

// growBlock returns the block grown from pair, two free cells of the pivot
// window: the pair and the free cells (not in used) of every open window
// through one cell of the pair that has at most two free cells besides the
// pair's (a window the pair would leave short), as long as the block has
// at most maxBlock cells; and the windows it covers, the pivot first, then
// every open window with two free cells or more in the block, each kept if
// the block's game stays a win for the defender with its trace. It returns
// the number of windows covered, 0 if the block is the pair alone.
func (s *Solver) growBlock(pivot int, pair set, open *[pairWords]uint64, used set) (set, [pairWords]uint64, int) {
	pt, ws := s.tt.pairs, s.g.Windows()
	var cover [pairWords]uint64
	avail := andNot(s.pairEmpty, used)
	blk := pair
	ca, cb := lowest(pair), lowest(withoutLowest(pair))
	for wi := range pairWords {
		for m := open[wi] & (pt.cellWins[ca][wi] ^ pt.cellWins[cb][wi]); m != 0; m &= m - 1 {
			w := and(ws[wi<<6|bits.TrailingZeros64(m)], avail)
			if ones(andNot(w, pair)) <= 2 && ones(or(blk, w)) <= maxBlock {
				blk = or(blk, w)
			}
		}
	}
	if blk == pair {
		return noCells, cover, 0
	}
	// The block's cells in order: local cell i is the i-th set bit.
	local := func(w set) uint8 {
		var l uint8
		i := 0
		for c := blk; !isEmpty(c); c = withoutLowest(c) {
			if !isEmpty(and(w, lowestSet(c))) {
				l |= 1 << uint(i)
			}
			i++
		}
		return l
	}
	bg := s.block
	bg.reset(uint8(1<<uint(ones(blk)) - 1))
	try := func(i int) bool {
		if !bg.add(local(and(ws[i], avail))) {
			return false
		}
		cover[i>>6] |= 1 << uint(i&63)
		return true
	}
	if !try(pivot) {
		return noCells, cover, 0
	}
	var through [pairWords]uint64
	for c := blk; !isEmpty(c); c = withoutLowest(c) {
		cw := &pt.cellWins[lowest(c)]
		for wi := range pairWords {
			through[wi] |= cw[wi]
		}
	}
	n := 1
	for wi := range pairWords {
		for m := open[wi] & through[wi]; m != 0; m &= m - 1 {
			if i := wi<<6 | bits.TrailingZeros64(m); i != pivot && try(i) {
				n++
			}
		}
	}
	return blk, cover, n
}

// blockGame is the Maker-Breaker game of one block (above),
// built a trace at a time by growBlock, with a table of the positions
// solved since the last trace was added.
type blockGame struct {
	edges [maxBlockEdges]uint8
	n     int
	all   uint8 // the block's cells
	gen   uint32
	memo  [1 << 16]uint32 // by Maker's and Breaker's cells: gen<<1 | Breaker wins
}

// reset starts the game of a block of cells all, without traces.
func (bg *blockGame) reset(all uint8) { bg.n, bg.all = 0, all }

// add adds a trace to the game and reports whether Breaker still wins; if
// not, the game is left as it was. A trace of fewer than two cells never
// wins; one that holds a trace already in the game is won with it.
func (bg *blockGame) add(tr uint8) bool {
	if tr&(tr-1) == 0 || bg.n == maxBlockEdges {
		return false
	}
	for _, e := range bg.edges[:bg.n] {
		if e&tr == e {
			return true // hit whenever e is
		}
	}
	bg.edges[bg.n] = tr
	bg.n++
	bg.gen++
	if bg.gen == 1<<31 {
		bg.memo, bg.gen = [1 << 16]uint32{}, 1
	}
	if bg.win(0, 0) {
		return true
	}
	bg.n--
	bg.gen++
	return false
}

// win reports whether Breaker wins with Maker to move, Maker holding the
// cells maker and Breaker the cells breaker.
func (bg *blockGame) win(maker, breaker uint8) bool {
	key := uint16(maker)<<8 | uint16(breaker)
	if m := bg.memo[key]; m>>1 == bg.gen {
		return m&1 != 0
	}
	w := bg.solve(maker, breaker)
	r := bg.gen << 1
	if w {
		r |= 1
	}
	bg.memo[key] = r
	return w
}

func (bg *blockGame) solve(maker, breaker uint8) bool {
	free := bg.all &^ (maker | breaker)
	for m := free; m != 0; m &= m - 1 {
		c := m & -m
		mk := maker | c
		// Maker takes c: an edge that Breaker has not hit and Maker now
		// holds but for one free cell forces Breaker there; two such
		// cells, or an edge all Maker's, lose.
		single, lost := uint8(0), false
		for _, e := range bg.edges[:bg.n] {
			if e&breaker != 0 {
				continue
			}
			switch x := e &^ mk; {
			case x == 0:
				lost = true
			case x&(x-1) == 0:
				if single != 0 && single != x {
					lost = true
				}
				single = x
			}
		}
		if lost {
			return false
		}
		rest := free &^ c
		if rest == 0 {
			continue // no edge left unhit: Breaker has won
		}
		if single != 0 {
			if !bg.win(mk, breaker|single) {
				return false
			}
			continue
		}
		won := false
		for r := rest; r != 0 && !won; r &= r - 1 {
			won = bg.win(mk, breaker|r&-r)
		}
		if !won {
			return false
		}
	}
	return true
}

// union returns the union of sets of cells.
func union(sets []set) set {
	var u set
	for _, c := range sets {
		u = or(u, c)
	}
	return u
}

// matchingOf returns a matching of the defender (X if defX) at p, where the
// solver looks for matchings (SetMatching), as pairing does a pairing: the
// blocks as sets of cells in p's frame; or false.
func (s *Solver) matchingOf(p position, defX bool) ([]set, bool) {
	if !s.matching {
		return nil, false
	}
	return s.onImages(p, defX, s.matchable, func() []set { return s.blocks[:s.blockLen] })
}

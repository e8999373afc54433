package mnk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Stats are exact statistics of the game tree below a position p, p
// included. All of them are invariant under the symmetries of the board.
type Stats struct {
	// Nodes is the number of nodes of the tree: every move sequence from p
	// counts, transpositions included.
	Nodes uint64
	// Wins[L] is the number of complete games (paths from p to a terminal
	// position) that end with a line completed at ply L, the number of
	// stones on the board: X's wins for odd L, O's for even L.
	Wins [65]uint64
	// Draws is the number of complete games that end on a full board
	// without a line.
	Draws uint64
	// CanonicalGames is the number of complete games up to symmetry: 1 for
	// a terminal p, else the sum over the children of p grouped by
	// canonical form, each group counted once.
	CanonicalGames uint64
	// Value is the game-theoretic value of p for the side to move.
	Value Value
}

// Games returns the number of complete games, the wins plus the draws. It
// panics if the sum overflows a uint64.
func (s *Stats) Games() uint64 { return s.sum(0) + s.Draws }

// XWins returns the number of complete games won by X.
func (s *Stats) XWins() uint64 { return s.sum(1) }

// OWins returns the number of complete games won by O.
func (s *Stats) OWins() uint64 { return s.sum(0) - s.sum(1) }

// sum adds Wins[L] for all L with parity (odd = 1) or, for parity 0, all L.
func (s *Stats) sum(odd int) uint64 {
	var t, carry uint64
	for l := odd; l < len(s.Wins); l += 1 + odd {
		t, carry = bits.Add64(t, s.Wins[l], 0)
		if carry != 0 {
			panic("mnk: number of games overflows uint64")
		}
	}
	return t
}

// statsVersion is the first byte of the binary form of Stats.
const statsVersion = 1

// MarshalBinary encodes s compactly: a version byte, the value, Nodes, Draws
// and CanonicalGames as uvarints, then the first ply with wins, the number
// of plies, and their counts as uvarints.
func (s *Stats) MarshalBinary() ([]byte, error) {
	lo, hi := 0, len(s.Wins)
	for lo < hi && s.Wins[lo] == 0 {
		lo++
	}
	for hi > lo && s.Wins[hi-1] == 0 {
		hi--
	}
	b := make([]byte, 0, 8+3*binary.MaxVarintLen64+(hi-lo)*4)
	b = append(b, statsVersion, byte(s.Value))
	b = binary.AppendUvarint(b, s.Nodes)
	b = binary.AppendUvarint(b, s.Draws)
	b = binary.AppendUvarint(b, s.CanonicalGames)
	b = append(b, byte(lo), byte(hi-lo))
	for _, w := range s.Wins[lo:hi] {
		b = binary.AppendUvarint(b, w)
	}
	return b, nil
}

// errStats reports a malformed binary Stats.
var errStats = errors.New("malformed stats")

// UnmarshalBinary decodes the output of MarshalBinary into s.
func (s *Stats) UnmarshalBinary(data []byte) error {
	d := data
	uvarint := func() (uint64, bool) {
		v, n := binary.Uvarint(d)
		if n <= 0 {
			return 0, false
		}
		d = d[n:]
		return v, true
	}
	if len(d) < 2 || d[0] != statsVersion {
		return fmt.Errorf("unmarshal stats: bad header (%d bytes): %w", len(data), errStats)
	}
	var t Stats
	t.Value = Value(int8(d[1]))
	if t.Value < Loss || t.Value > Win {
		return fmt.Errorf("unmarshal stats: value %d: %w", t.Value, errStats)
	}
	d = d[2:]
	var ok1, ok2, ok3 bool
	t.Nodes, ok1 = uvarint()
	t.Draws, ok2 = uvarint()
	t.CanonicalGames, ok3 = uvarint()
	if !ok1 || !ok2 || !ok3 || len(d) < 2 {
		return fmt.Errorf("unmarshal stats: truncated counts: %w", errStats)
	}
	lo, n := int(d[0]), int(d[1])
	d = d[2:]
	if lo+n > len(t.Wins) {
		return fmt.Errorf("unmarshal stats: wins at plies %d..%d: %w", lo, lo+n-1, errStats)
	}
	for i := range n {
		w, ok := uvarint()
		if !ok {
			return fmt.Errorf("unmarshal stats: truncated wins at ply %d: %w", lo+i, errStats)
		}
		t.Wins[lo+i] = w
	}
	if len(d) != 0 {
		return fmt.Errorf("unmarshal stats: %d trailing bytes: %w", len(d), errStats)
	}
	*s = t
	return nil
}

// Cache is a persistent store of Stats by canonical position, consulted and
// filled by a Counter (see SetCache).
type Cache interface {
	// Load returns the stats stored for the canonical position p.
	Load(p Position) (Stats, bool)
	// Store saves the stats of the canonical position p.
	Store(p Position, s Stats)
}

// Counter counts game trees (see Count) with a memo table keyed by canonical
// position, kept across calls so that later calls reuse earlier work. It is
// not safe for concurrent use.
//
// The memo is an open-addressing table of 8-byte slots (a 32-bit offset, 30
// bits of hash to skip most key comparisons, the 2-bit value) pointing into
// a slab of uint64: the exact key (X, O), Nodes, Draws, CanonicalGames and
// Wins[L] only for the plies L where a line is still possible below the
// position. For 4x4 this is about 100 bytes per entry; a map[Position]Stats
// would take over 600. The key is the canonical position itself, never just
// a hash: a 64-bit hash collision would silently corrupt exact counts.
type Counter struct {
	g *Game

	slots []uint64 // 0: empty; else off<<32 | hash tag (30 bits) | value+1
	used  int
	shift uint // index = hash >> shift
	// The slab is a list of 512 KB pages rather than one slice: a slice of
	// 100+ MB grown by append is copied at every growth, which spends a
	// quarter of the count of 4,4,4 in memmove and memclr and allocates 3.6
	// times the memory. pages[:npages] are in use, the last up to top.
	pages  [][]uint64
	npages int
	top    int

	cache       Cache
	cacheMaxPly int
	cacheHits   uint64

	carry uint64 // non-zero once an addition or product overflowed

	// CountContext's context, polled every pollMask+1 new positions; abort
	// unwinds the recursion without memoising what it left unfinished.
	ctx   context.Context
	polls uint64
	abort bool

	// Per-ply scratch, so that the recursion allocates nothing.
	acc  [65]accum
	kids [65][64]kid
}

type accum struct {
	nodes, draws, cg uint64
	val              Value
	wins             [65]uint64
}

// kid is a distinct child orbit of the node being counted: its canonical
// form, how many moves lead to it, and its result.
type kid struct {
	p    Position
	mult uint64
	res  Result
}

// entry layout in the slab, from the entry's offset.
const (
	eX = iota
	eO
	eNodes
	eDraws
	eCG
	eWins // Wins[lo(ply)], Wins[lo(ply)+1], ..., Wins[cells]
)

const minSlotBits = 10

// NewCounter returns an empty Counter for g.
func NewCounter(g *Game) *Counter {
	c := &Counter{g: g}
	c.slots = make([]uint64, 1<<minSlotBits)
	c.shift = 64 - minSlotBits
	c.Reset()
	return c
}

// SetCache makes the Counter consult cache for the positions it has not
// memoised and fill it with the ones it computes, but only for positions
// with at most maxPly stones: the cache is much slower than the memo, so it
// should hold only the few positions near the root that are expensive to
// recompute. A nil cache turns caching off.
func (c *Counter) SetCache(cache Cache, maxPly int) {
	c.cache, c.cacheMaxPly = cache, maxPly
}

// Reset empties the memo but keeps its memory for the next counts.
func (c *Counter) Reset() {
	clear(c.slots)
	c.used = 0
	c.npages, c.top = 0, pageSize // the first alloc opens page 0
	c.alloc(1)                    // offset 0 means an empty slot
}

// MemoEntries returns the number of positions in the memo.
func (c *Counter) MemoEntries() int { return c.used }

// MemoBytes returns the memory held by the memo (table and slab).
func (c *Counter) MemoBytes() int { return 8 * (len(c.slots) + len(c.pages)*pageSize) }

const pageBits = 16
const pageSize = 1 << pageBits

// alloc returns the offset of n free words (n <= pageSize) in the slab.
func (c *Counter) alloc(n int) int {
	if c.top+n > pageSize {
		if c.npages == len(c.pages) {
			c.pages = append(c.pages, make([]uint64, pageSize))
		}
		c.npages++
		c.top = 0
	}
	off := (c.npages-1)<<pageBits | c.top
	c.top += n
	return off
}

// entry returns the slab from offset off.
func (c *Counter) entry(off uint64) []uint64 {
	return c.pages[off>>pageBits][off&(pageSize-1):]
}

// CacheHits returns the number of positions taken from the cache.
func (c *Counter) CacheHits() uint64 { return c.cacheHits }

// Count returns the statistics of the game tree below p, p included. p must
// be valid (see Game.Valid) but need not be canonical. Count panics if a
// count overflows a uint64, which cannot happen for boards of up to 16
// cells.
func (c *Counter) Count(p Position) Stats {
	s, _ := c.CountContext(context.Background(), p)
	return s
}

// CountContext is Count stopped when ctx is done, with ctx's error. The
// memo keeps only the positions counted to the end, so a later count with
// the same Counter is exact.
func (c *Counter) CountContext(ctx context.Context, p Position) (Stats, error) {
	g := c.g
	var s Stats
	ply := p.Ply()
	switch g.Status(p) {
	case XWin, OWin:
		s.Nodes, s.CanonicalGames, s.Wins[ply], s.Value = 1, 1, 1, Loss
		return s, nil
	case Draw:
		s.Nodes, s.CanonicalGames, s.Draws, s.Value = 1, 1, 1, Drawn
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return s, err
	}
	c.ctx, c.abort = nil, false
	if ctx.Done() != nil {
		c.ctx = ctx
	}
	cp, _ := g.canonical(p)
	slot := c.solve(cp, ply)
	c.ctx = nil
	if c.abort {
		return Stats{}, ctx.Err()
	}
	c.fill(&s, slot, ply)
	return s, nil
}

// fill copies the memo entry in slot, at ply, into s.
func (c *Counter) fill(s *Stats, slot uint64, ply int) {
	e := c.entry(slot >> 32)
	s.Nodes, s.Draws, s.CanonicalGames = e[eNodes], e[eDraws], e[eCG]
	s.Value = Value(slot&3) - 1
	lo := c.lo(ply)
	for l := lo; l <= c.g.cells; l++ {
		s.Wins[l] = e[eWins+l-lo]
	}
}

// lo returns the first ply whose wins are stored for a position at ply
// (cells+1 if there are none).
func (c *Counter) lo(ply int) int { return min(max(ply+1, c.g.winLo), c.g.cells+1) }

// hash mixes the key for the table index (the top bits) and tag.
func hash(p Position) uint64 {
	h := p.X*0x9e3779b97f4a7c15 ^ (p.O+0x632be59bd9b4e019)*0xc2b2ae3d27d4eb4f
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

const tagMask = 0xffff_fffc

// lookup returns the slot of p, or 0 and the index of the empty slot where
// p would go.
func (c *Counter) lookup(p Position) (uint64, int) {
	h := hash(p)
	tag := h & tagMask
	mask := len(c.slots) - 1
	for i := int(h >> c.shift); ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			return 0, i
		}
		if s&tagMask == tag {
			e := c.entry(s >> 32)
			if e[eX] == p.X && e[eO] == p.O {
				return s, i
			}
		}
	}
}

// insert adds the entry at off for p with value v and returns its slot.
func (c *Counter) insert(p Position, off int, v Value) uint64 {
	if off >= 1<<32 {
		panic("mnk: counter memo exceeds 2^32 words")
	}
	// Keep the load at most 1/2: linear probing stays short, and a miss,
	// the common case while the tree is being explored, ends at the first
	// empty slot.
	if 2*(c.used+1) > len(c.slots) {
		c.grow()
	}
	_, i := c.lookup(p)
	s := uint64(off)<<32 | hash(p)&tagMask | uint64(v+1)
	c.slots[i] = s
	c.used++
	return s
}

func (c *Counter) grow() {
	old := c.slots
	c.slots = make([]uint64, 2*len(old))
	c.shift--
	mask := len(c.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		e := c.entry(s >> 32)
		i := int(hash(Position{e[eX], e[eO]}) >> c.shift)
		for c.slots[i] != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = s
	}
}

// addMul adds m*x to *dst, recording any overflow in c.carry.
func (c *Counter) addMul(dst *uint64, m, x uint64) {
	hi, lo := bits.Mul64(m, x)
	sum, cy := bits.Add64(*dst, lo, 0)
	*dst = sum
	c.carry |= hi | cy
}

// solve returns the memo slot of the canonical, non-terminal position p at
// ply, computing it if needed.
//
// The children of p are grouped by canonical form first: each group is one
// edge for CanonicalGames, one memo lookup, and its multiplicity scales the
// other counts, so a symmetric position (the empty board has 3 groups for
// 9 moves in tic-tac-toe) costs a fraction of its moves.
func (c *Counter) solve(p Position, ply int) uint64 {
	if s, _ := c.lookup(p); s != 0 {
		return s
	}
	if c.ctx != nil {
		c.polls++
		if c.polls&pollMask == 0 && c.ctx.Err() != nil {
			c.abort = true
		}
		if c.abort {
			return 0
		}
	}
	g := c.g
	if c.cache != nil && ply <= c.cacheMaxPly {
		if st, ok := c.cache.Load(p); ok {
			c.cacheHits++
			return c.store(p, ply, &st)
		}
	}

	kids := &c.kids[ply]
	n := 0
	xToMove := ply&1 == 0
	im, nsym := g.images(p)
	for e := g.Empty(p); e != 0; e &= e - 1 {
		cell := bits.TrailingZeros64(e)
		_, r := g.play(p, cell, xToMove)
		q := g.childCanonical(&im, nsym, cell, xToMove)
		i := 0
		for i < n && kids[i].p != q {
			i++
		}
		if i < n {
			kids[i].mult++
			continue
		}
		kids[n] = kid{q, 1, r}
		n++
	}

	a := &c.acc[ply]
	lo, cells := c.lo(ply), g.cells
	a.nodes, a.draws, a.cg, a.val = 1, 0, 0, Loss
	clear(a.wins[lo : cells+1])
	for i := range n {
		k := &kids[i]
		switch k.res {
		case XWin, OWin:
			a.nodes += k.mult
			a.wins[ply+1] += k.mult
			a.cg++
			a.val = Win
		case Draw:
			a.nodes += k.mult
			a.draws += k.mult
			a.cg++
			a.val = max(a.val, Drawn)
		default:
			s := c.solve(k.p, ply+1)
			if c.abort {
				return 0 // nothing of p is memoised or cached
			}
			e := c.entry(s >> 32)
			c.addMul(&a.nodes, k.mult, e[eNodes])
			c.addMul(&a.draws, k.mult, e[eDraws])
			c.addMul(&a.cg, 1, e[eCG])
			clo := c.lo(ply + 1)
			for l := clo; l <= cells; l++ {
				c.addMul(&a.wins[l], k.mult, e[eWins+l-clo])
			}
			a.val = max(a.val, -(Value(s&3) - 1))
		}
	}
	if c.carry != 0 {
		panic(fmt.Sprintf("mnk: counts overflow uint64 below %s", g.String(p)))
	}
	off := c.alloc(eWins + cells + 1 - lo)
	e := c.entry(uint64(off))
	e[eX], e[eO], e[eNodes], e[eDraws], e[eCG] = p.X, p.O, a.nodes, a.draws, a.cg
	copy(e[eWins:], a.wins[lo:cells+1])
	s := c.insert(p, off, a.val)
	if c.cache != nil && ply <= c.cacheMaxPly {
		var st Stats
		c.fill(&st, s, ply)
		c.cache.Store(p, st)
	}
	return s
}

// store puts st, the stats of the canonical position p at ply, in the memo.
func (c *Counter) store(p Position, ply int, st *Stats) uint64 {
	lo, cells := c.lo(ply), c.g.cells
	off := c.alloc(eWins + cells + 1 - lo)
	e := c.entry(uint64(off))
	e[eX], e[eO], e[eNodes], e[eDraws], e[eCG] = p.X, p.O, st.Nodes, st.Draws, st.CanonicalGames
	copy(e[eWins:], st.Wins[lo:cells+1])
	return c.insert(p, off, st.Value)
}

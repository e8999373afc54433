// Package count counts m,n,k game trees exactly: the nodes, the complete
// games by result and length, the games up to symmetry and the value of
// the tree below a position (Counter, with a memo table that Counters on
// several goroutines may share, Memo), and the distinct positions, by
// reverse search (Positions, Walk).
package count

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
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
	Value mnk.Value
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
			panic("count: number of games overflows uint64")
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
	t.Value = mnk.Value(int8(d[1]))
	if t.Value < mnk.Loss || t.Value > mnk.Win {
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
	Load(p mnk.Position) (Stats, bool)
	// Store saves the stats of the canonical position p.
	Store(p mnk.Position, s Stats)
}

// Memo is the memo table of Counters: the statistics of every canonical
// position counted so far, by position. Counters of one game may share a
// Memo (see Memo.NewCounter) and count at the same time, each on a
// goroutine of its own: each finds the positions that the others have
// finished, so that tasks whose subtrees overlap (the transpositions below
// the split depth of a job) are counted once per process rather than once
// per goroutine.
//
// The table is open addressing over 8-byte slots (a 32-bit offset, 30 bits
// of hash to skip most key comparisons, the 2-bit value) pointing into a
// slab of uint64: the exact key (X, O), Nodes, Draws, CanonicalGames and
// Wins[L] only for the plies L where a line is still possible below the
// position. For 4x4 this is about 100 bytes per entry; a map[Position]Stats
// would take over 600. The key is the canonical position itself, never just
// a hash: a 64-bit hash collision would silently corrupt exact counts.
//
// Sharing needs no lock on the way of a count. An entry is written once,
// into a page of the slab that its Counter took for itself, before its
// slot is published with a compare-and-swap; readers load slots
// atomically, so they see whole entries or none, and entries never change
// afterwards. Loads on amd64 are plain moves, so a Counter alone pays
// nothing for the sharing (BenchmarkCounter444). Two Counters that both miss a
// position both count it and the second insert finds the first's slot and
// drops its own entry: work is lost, never exactness. The table grows
// (doubles) under a mutex while the others go on, in the old table: what
// they insert there during the copy is lost to the new one, which costs
// recounting those positions, one node each since their children are
// there. The alternatives rejected cost more on two cores: a mutex per
// stripe of the table, and a shared map consulted only near the tasks'
// roots (BenchmarkCountTasks444 runs private and shared memos).
type Memo struct {
	g      *mnk.Game
	table  atomic.Pointer[memoTable]
	growMu sync.Mutex

	// The slab: pages of pageSize words, in chunks of chunkSize pages,
	// allocated as they are first needed and kept by Reset. A Counter
	// takes a page (npages.Add) and fills it alone; an entry's offset is
	// its page number << pageBits | its index in the page. Pages are not
	// one slice grown by append: such a slice is copied at every growth,
	// which for a memo of 100+ MB costs much of a count in memmove and
	// memclr and holds several times the memory (BenchmarkCounter444).
	chunks   [maxChunks]atomic.Pointer[memoChunk]
	npages   atomic.Int64 // pages taken since the last Reset
	pages    atomic.Int64 // pages allocated
	gen      atomic.Uint64
	counters atomic.Int64
}

type memoTable struct {
	slots []uint64 // 0: empty; else off<<32 | hash tag (30 bits) | value+1
	shift uint     // index = hash >> shift
	used  atomic.Int64
}

type memoPage [pageSize]uint64

type memoChunk [chunkSize]*memoPage

const (
	pageBits  = 16
	pageSize  = 1 << pageBits
	chunkBits = 8
	chunkSize = 1 << chunkBits
	maxChunks = 1 << (32 - pageBits - chunkBits) // offsets are 32 bits

	minSlotBits = 10
	// usedBatch is how many inserts a Counter makes before it adds them to
	// the table's count (one atomic addition, which two cores inserting at
	// once would otherwise contend for at every position).
	usedBatch = 64
)

// NewMemo returns an empty memo for the positions of g.
func NewMemo(g *mnk.Game) *Memo {
	m := &Memo{g: g}
	m.table.Store(newMemoTable(minSlotBits))
	return m
}

func newMemoTable(slotBits uint) *memoTable {
	return &memoTable{slots: make([]uint64, 1<<slotBits), shift: 64 - slotBits}
}

// NewCounter returns a Counter that consults and fills m. Counters of one
// memo may count at the same time, each on a goroutine of its own.
func (m *Memo) NewCounter() *Counter {
	id := uint64(m.counters.Add(1) - 1)
	return &Counter{g: m.g, m: m, winLo: 2*m.g.K - 1, reverse: id%2 == 1, rotate: uint32(id / 2 * 0x9e3779b9)}
}

// Entries returns the number of positions in the memo.
func (m *Memo) Entries() int { return int(m.table.Load().used.Load()) }

// Bytes returns the memory held by the memo (table and slab).
func (m *Memo) Bytes() int {
	return 8 * (len(m.table.Load().slots) + int(m.pages.Load())*pageSize)
}

// Reset empties the memo but keeps its memory for the next counts. No
// Counter of m may be counting.
func (m *Memo) Reset() {
	t := m.table.Load()
	clear(t.slots)
	t.used.Store(0)
	m.npages.Store(0)
	m.gen.Add(1) // the Counters' pages are free again
}

// entry returns the slab from offset off.
func (m *Memo) entry(off uint64) []uint64 {
	pg := m.chunks[off>>(pageBits+chunkBits)%maxChunks].Load()[off>>pageBits%chunkSize]
	return pg[off%pageSize:]
}

// grow doubles the table t, unless another Counter is growing it or has.
func (m *Memo) grow(t *memoTable) {
	if !m.growMu.TryLock() {
		return
	}
	defer m.growMu.Unlock()
	if m.table.Load() != t {
		return
	}
	nt := newMemoTable(uint(64-t.shift) + 1)
	mask := len(nt.slots) - 1
	n := 0
	for i := range t.slots {
		s := atomic.LoadUint64(&t.slots[i])
		if s == 0 {
			continue
		}
		e := m.entry(s >> 32)
		j := int(hash(mnk.Position{X: e[eX], O: e[eO]}) >> nt.shift)
		for nt.slots[j] != 0 {
			j = (j + 1) & mask
		}
		nt.slots[j] = s // nt is not published yet
		n++
	}
	nt.used.Store(int64(n))
	m.table.Store(nt)
}

// Counter counts game trees (see Count) with a memo table keyed by canonical
// position (a Memo of its own, or one it shares with other Counters), kept
// across calls so that later calls reuse earlier work. A Counter is not
// safe for concurrent use; Counters sharing a Memo are.
type Counter struct {
	g *mnk.Game
	m *Memo
	// winLo is the first ply at which a line can be completed (2k-1):
	// the memo stores wins only from there on.
	winLo int

	// The page this Counter fills: its number, the next free word, and the
	// memo's generation when it was taken.
	page   *memoPage
	pageNo int
	top    int
	gen    uint64
	// Inserts into the table pendingIn not yet added to its count; a
	// table's count is that of its entries, those copied in as it grew
	// included.
	pendingIn *memoTable
	pending   int64

	cache       Cache
	cacheMaxPly int
	cacheHits   uint64
	recounted   uint64 // positions counted that another Counter had counted first

	// The order in which this Counter visits the children of a position:
	// reversed, and rotated by rotate/2^32 of the children, so that two
	// Counters of a memo that reach the same unfinished position go
	// different ways below it and soon find each other's work, rather than
	// count the same subtree side by side (the first Counter of a memo
	// takes them in order; BenchmarkCountTasks444 measures it).
	reverse bool
	rotate  uint32
	carry   uint64 // non-zero once an addition or product overflowed

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
	val              mnk.Value
	wins             [65]uint64
}

// kid is a distinct child orbit of the node being counted: its canonical
// form, how many moves lead to it, and its result.
type kid struct {
	p    mnk.Position
	mult uint64
	res  mnk.Result
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

// New returns a Counter for g with an empty memo of its own.
func New(g *mnk.Game) *Counter { return NewMemo(g).NewCounter() }

// Memo returns the Counter's memo.
func (c *Counter) Memo() *Memo { return c.m }

// SetCache makes the Counter consult cache for the positions it has not
// memoised and fill it with the ones it computes, but only for positions
// with at most maxPly stones: the cache is much slower than the memo, so it
// should hold only the few positions near the root that are expensive to
// recompute. A nil cache turns caching off.
func (c *Counter) SetCache(cache Cache, maxPly int) {
	c.cache, c.cacheMaxPly = cache, maxPly
}

// Reset empties the memo but keeps its memory for the next counts. No other
// Counter of the same memo may be counting.
func (c *Counter) Reset() {
	c.m.Reset()
	c.page, c.pendingIn, c.pending = nil, nil, 0
}

// MemoEntries returns the number of positions in the memo.
func (c *Counter) MemoEntries() int { return c.m.Entries() }

// MemoBytes returns the memory held by the memo (table and slab).
func (c *Counter) MemoBytes() int { return c.m.Bytes() }

// alloc returns the offset of n free words (n <= pageSize) in the slab.
func (c *Counter) alloc(n int) int {
	m := c.m
	if c.page == nil || c.top+n > pageSize || c.gen != m.gen.Load() {
		c.gen = m.gen.Load()
		no := m.npages.Add(1) - 1
		if no >= maxChunks*chunkSize {
			panic("count: counter memo exceeds 2^32 words")
		}
		ch := m.chunks[no>>chunkBits].Load()
		if ch == nil {
			ch = new(memoChunk)
			if !m.chunks[no>>chunkBits].CompareAndSwap(nil, ch) {
				ch = m.chunks[no>>chunkBits].Load()
			}
		}
		pg := ch[no%chunkSize]
		if pg == nil {
			// Only this Counter has page no; the others read the chunk's
			// entry only after an entry of the page is published.
			pg = new(memoPage)
			ch[no%chunkSize] = pg
			m.pages.Add(1)
		}
		c.page, c.pageNo, c.top = pg, int(no), 0
		if no == 0 {
			c.top = 1 // offset 0 means an empty slot
		}
	}
	off := c.pageNo<<pageBits | c.top
	c.top += n
	return off
}

// entry returns the slab from offset off.
func (c *Counter) entry(off uint64) []uint64 { return c.m.entry(off) }

// CacheHits returns the number of positions taken from the cache.
func (c *Counter) CacheHits() uint64 { return c.cacheHits }

// Count returns the statistics of the game tree below p, p included. p must
// be valid (see mnk.Game.Valid) but need not be canonical. Count panics if a
// count overflows a uint64, which cannot happen for boards of up to 16
// cells.
func (c *Counter) Count(p mnk.Position) Stats {
	s, _ := c.CountContext(context.Background(), p)
	return s
}

// CountContext is Count stopped when ctx is done, with ctx's error. The
// memo keeps only the positions counted to the end, so a later count with
// the same Counter is exact.
func (c *Counter) CountContext(ctx context.Context, p mnk.Position) (Stats, error) {
	g := c.g
	var s Stats
	ply := p.Ply()
	switch g.Status(p) {
	case mnk.XWin, mnk.OWin:
		s.Nodes, s.CanonicalGames, s.Wins[ply], s.Value = 1, 1, 1, mnk.Loss
		return s, nil
	case mnk.Draw:
		s.Nodes, s.CanonicalGames, s.Draws, s.Value = 1, 1, 1, mnk.Drawn
		return s, nil
	}
	if err := ctx.Err(); err != nil {
		return s, err
	}
	c.ctx, c.abort = nil, false
	if ctx.Done() != nil {
		c.ctx = ctx
	}
	cp, _ := g.CanonicalSym(p)
	slot := c.solve(cp, ply)
	c.ctx = nil
	c.flush()
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
	s.Value = mnk.Value(slot&3) - 1
	lo := c.lo(ply)
	for l := lo; l <= c.g.Cells(); l++ {
		s.Wins[l] = e[eWins+l-lo]
	}
}

// lo returns the first ply whose wins are stored for a position at ply
// (cells+1 if there are none).
func (c *Counter) lo(ply int) int { return min(max(ply+1, c.winLo), c.g.Cells()+1) }

// hash mixes the key for the table index (the top bits) and tag.
func hash(p mnk.Position) uint64 {
	h := p.X*0x9e3779b97f4a7c15 ^ (p.O+0x632be59bd9b4e019)*0xc2b2ae3d27d4eb4f
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

const tagMask = 0xffff_fffc

// lookup returns the slot of p, or 0.
func (c *Counter) lookup(p mnk.Position) uint64 {
	t := c.m.table.Load()
	h := hash(p)
	tag := h & tagMask
	mask := len(t.slots) - 1
	i := int(h >> t.shift)
	// The load stays under 1/2 (linear probing stays short, and a miss, the
	// common case while the tree is being explored, ends at the first empty
	// slot), but a table being grown by another Counter may fill: a lookup
	// ends after probing every slot.
	for range len(t.slots) {
		s := atomic.LoadUint64(&t.slots[i])
		if s == 0 {
			return 0
		}
		if s&tagMask == tag {
			e := c.entry(s >> 32)
			if e[eX] == p.X && e[eO] == p.O {
				return s
			}
		}
		i = (i + 1) & mask
	}
	return 0
}

// insert adds the entry at off for p with value v and returns its slot; or,
// if another Counter of the memo has inserted p meanwhile, returns that one.
func (c *Counter) insert(p mnk.Position, off int, v mnk.Value) uint64 {
	t := c.m.table.Load()
	h := hash(p)
	tag := h & tagMask
	s := uint64(off)<<32 | tag | uint64(v+1)
	mask := len(t.slots) - 1
	i := int(h >> t.shift)
	for range len(t.slots) {
		cur := atomic.LoadUint64(&t.slots[i])
		if cur == 0 {
			if atomic.CompareAndSwapUint64(&t.slots[i], 0, s) {
				if t != c.pendingIn {
					c.flush()
					c.pendingIn = t
				}
				c.pending++
				if c.pending == usedBatch {
					c.flush()
				}
				return s
			}
			cur = atomic.LoadUint64(&t.slots[i])
		}
		if cur&tagMask == tag {
			e := c.entry(cur >> 32)
			if e[eX] == p.X && e[eO] == p.O {
				return cur
			}
		}
		i = (i + 1) & mask
	}
	return s // a full table being grown: p is counted but not found again
}

// flush adds the Counter's pending inserts to the count of the table they
// went into, and grows the table when it is half full.
func (c *Counter) flush() {
	if t := c.pendingIn; t != nil && c.pending != 0 {
		t.used.Add(c.pending)
		c.pending = 0
		if 2*t.used.Load() > int64(len(t.slots)) {
			c.m.grow(t)
		}
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
func (c *Counter) solve(p mnk.Position, ply int) uint64 {
	if s := c.lookup(p); s != 0 {
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
	im, nsym := g.Images(p)
	for e := g.Empty(p); e != 0; e &= e - 1 {
		cell := bits.TrailingZeros64(e)
		_, r := g.Place(p, cell, xToMove)
		q, _ := g.ChildCanonical(&im, nsym, cell, xToMove)
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
	lo, cells := c.lo(ply), g.Cells()
	a.nodes, a.draws, a.cg, a.val = 1, 0, 0, mnk.Loss
	clear(a.wins[lo : cells+1])
	rot := int(uint64(c.rotate) * uint64(n) >> 32)
	for j := range n {
		i := j + rot
		if i >= n {
			i -= n
		}
		if c.reverse {
			i = n - 1 - i
		}
		k := &kids[i]
		switch k.res {
		case mnk.XWin, mnk.OWin:
			a.nodes += k.mult
			a.wins[ply+1] += k.mult
			a.cg++
			a.val = mnk.Win
		case mnk.Draw:
			a.nodes += k.mult
			a.draws += k.mult
			a.cg++
			a.val = max(a.val, mnk.Drawn)
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
			a.val = max(a.val, -(mnk.Value(s&3) - 1))
		}
	}
	if c.carry != 0 {
		panic(fmt.Sprintf("count: counts overflow uint64 below %s", g.String(p)))
	}
	size := eWins + cells + 1 - lo
	off := c.alloc(size)
	e := c.page[off%pageSize:]
	e[eX], e[eO], e[eNodes], e[eDraws], e[eCG] = p.X, p.O, a.nodes, a.draws, a.cg
	copy(e[eWins:], a.wins[lo:cells+1])
	s := c.insert(p, off, a.val)
	if s>>32 != uint64(off) {
		c.top -= size // another Counter's entry for p won: this one is free again
		c.recounted++
	}
	if c.cache != nil && ply <= c.cacheMaxPly {
		var st Stats
		c.fill(&st, s, ply)
		c.cache.Store(p, st)
	}
	return s
}

// store puts st, the stats of the canonical position p at ply, in the memo.
func (c *Counter) store(p mnk.Position, ply int, st *Stats) uint64 {
	lo, cells := c.lo(ply), c.g.Cells()
	size := eWins + cells + 1 - lo
	off := c.alloc(size)
	e := c.page[off%pageSize:]
	e[eX], e[eO], e[eNodes], e[eDraws], e[eCG] = p.X, p.O, st.Nodes, st.Draws, st.CanonicalGames
	copy(e[eWins:], st.Wins[lo:cells+1])
	s := c.insert(p, off, st.Value)
	if s>>32 != uint64(off) {
		c.top -= size
		c.recounted++
	}
	return s
}

// pollMask sets how often a count polls its context: every 2^14 new
// positions.
const pollMask = 1<<14 - 1

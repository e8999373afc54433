// Package solve is the exact alpha-beta solver of m,n,k-games (Solver):
// the value of a position of a board of up to MaxCells cells, the value of
// each move, a principal variation, and a certificate of the value
// (NewCertificate). Solvers on several goroutines may share a table
// (Table).
package solve

import (
	"context"
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/exact"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/invariants"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/order"
)

// The solver is a negamax alpha-beta search over the three values loss,
// draw and win, with a transposition table keyed by canonical position.
//
// The window is at most (-1, 1), so the search is really two null-window
// questions ("can the side to move win?", "can it avoid losing?") asked in
// one pass; iterative deepening does not pay here: there is no horizon, and
// the table already carries what a shallower pass would have taught the
// move ordering.
//
// Every node scans the k-windows of the board once (28 for 5,5,4) and learns
// the four facts the sound prunings need: the cells where the side to move
// completes a line (a win, without searching), the cells where the opponent
// would (two of them lose; one forces the block), and whether each side has
// any window free of enemy stones (a side without one cannot win, so the
// value is at most, or at least, a draw). Tracking these incrementally was
// rejected: the scan is a few dozen ANDs and popcounts, while the undo
// bookkeeping of per-window counters costs as much on every make and unmake.
//
// Two more sound prunings: a move that makes two threats at once wins when
// the opponent has none (it cannot win at once and cannot block both), and
// of the dead cells (on no window free of either side) only one is tried,
// since a stone there can never be part of a line. Both cut the nodes of
// the draws (BenchmarkSolve554).
//
// Move ordering decides the size of the proof: the table's move first, then
// the cells by a weight summed over the windows through them that are still
// open to a side (fourfold per stone of that side on the window, the side to
// move's windows weighing 11 against the opponent's 3), then by history.
// The window weights and the prunings take a small fraction of the nodes
// of history over a static centre-first order. Attack weighs more than
// defence because attack first pays most where a side defends a lost
// cause; 11:3 with a wide history tie-break is the ratio that took the
// fewest nodes over the proofs compared in docs/benchmarks.md
// (BenchmarkSolve554, BenchmarkSolve654).
//
// Positions are canonicalised from the images of the position under every
// symmetry, kept up to date with one OR per symmetry and move (as Board does
// for its hashes), so the canonical key costs 8 comparisons per node instead
// of the shifts and swaps of mnk.Game.Canonical.

// ValueCache is a persistent store of exact values by canonical position,
// consulted and filled by a Solver (see SetCache).
type ValueCache interface {
	// LoadValue returns the value (for the side to move) of the canonical
	// position p.
	LoadValue(p mnk.Position) (mnk.Value, bool)
	// StoreValue saves the exact value of the canonical position p.
	StoreValue(p mnk.Position, v mnk.Value)
}

// MaxCells bounds the boards the exact solver accepts (6x6). Not all of
// them are within reach: 6,6,4 is, 6,6,5 is not, and package pns proves it
// (docs/where-search-stops.md).
const MaxCells = 36

// Table is the transposition table of Solvers: proven bounds and a
// best move by canonical position. Solvers of one game may share a table
// (see Table.NewSolver), each searching on a goroutine of its own:
// each then finds what the others have proven, as one Solver finds what its
// earlier calls proved.
//
// An entry is one word, read and written atomically, so that sharing needs
// no lock and a reader never sees half of one entry and half of another.
// It holds the position exactly, never a lossy hash of it, so that a
// collision can never lend one position's value to another: the canonical
// position as a number in base 3 (under 3^36 < 2^58 for the 36 cells the
// solver takes; the Solver keeps the numbers of the images of its position
// up to date as it keeps the images) is mixed by a bijection of [0, 2^58);
// the low bits of the result choose the bucket, and the entry keeps the
// others (the quotient), from which bucket and quotient give back the
// position. The rest of the word is the packed bounds, best move (in the
// canonical frame) and work; a bucket is 8 entries, a cache line. An
// entry of 24 bytes with the key as two bitboards would hold a third as
// many positions per byte, and could not be written atomically.
type Table struct {
	g     *mnk.Game
	slots []uint64 // meta | quotient << metaBits; 0 is empty
	mask  uint64   // bucket index mask
	shift uint     // bucket index bits
	pow3  uint64   // 3^Cols
	// digit[c] is 3^(r*Cols+col) for the cell c = r*8+col: what a stone of
	// X adds to the ternary number of a position, twice that for O.
	digit [64]uint64
}

const (
	ttBucket = 8
	keyBits  = 58 // 3^36 < 2^58
	// Entry: 1 (occupied) | lo+1 << 1 | hi+1 << 3 | move+1 << 5 | work << 12,
	// then the quotient.
	metaBits      = 17
	ttMinBuckets  = 1 << (keyBits + metaBits - 64) // so that the quotient fits
	ttMaxWorkBits = 31
)

// NewTable returns an empty table of at most ttBytes bytes (a power
// of two of 64-byte buckets), but of 128 KiB at least (the quotient must
// fit its entries); ttBytes < 64 makes a table that holds nothing, for
// tests that compare the search with and without one.
func NewTable(g *mnk.Game, ttBytes int) *Table {
	t := &Table{g: g, pow3: 1}
	for range g.Cols {
		t.pow3 *= 3
	}
	p := uint64(1)
	for r := range g.Rows {
		for c := range g.Cols {
			t.digit[mnk.Cell(r, c)] = p
			p *= 3
		}
	}
	if ttBytes >= ttBucket*8 {
		nb := ttMinBuckets
		for nb*2*ttBucket*8 <= ttBytes {
			nb *= 2
		}
		t.slots = make([]uint64, nb*ttBucket)
		t.mask = uint64(nb - 1)
		t.shift = uint(bits.TrailingZeros(uint(nb)))
	}
	return t
}

// Bytes returns the memory of the table.
func (t *Table) Bytes() int { return len(t.slots) * 8 }

// Clear empties the table. No Solver of t may be searching.
func (t *Table) Clear() { clear(t.slots) }

// Entries returns the number of positions the table holds.
func (t *Table) Entries() uint64 {
	var n uint64
	for _, e := range t.slots {
		if e != 0 {
			n++
		}
	}
	return n
}

// NewSolver returns a Solver that consults and fills t. Solvers of one
// table may search at the same time, each on a goroutine of its own.
func (t *Table) NewSolver() *Solver {
	g := t.g
	return &Solver{g: g, k1: g.K - 1, tt: t, limit: ^uint64(0)}
}

// ternary4[x<<4|o] is the number in base 3 whose digits are the four cells
// of x and o (1 for x, 2 for o), lowest cell first.
var ternary4 = func() (t [256]uint8) {
	for i := range t {
		x, o := i>>4, i&15
		v, p := 0, 1
		for c := range 4 {
			v += (x>>c&1 + 2*(o>>c&1)) * p
			p *= 3
		}
		t[i] = uint8(v)
	}
	return t
}()

// ternary returns p as a number in base 3: the cell in row r and column c
// is the digit of 3^(r*Cols+c), 1 for X and 2 for O.
func (t *Table) ternary(p mnk.Position) uint64 {
	var v uint64
	for r := t.g.Rows - 1; r >= 0; r-- {
		x, o := p.X>>(8*r)&0xff, p.O>>(8*r)&0xff
		row := uint64(ternary4[x&15<<4|o&15]) + 81*uint64(ternary4[x>>4<<4|o>>4])
		v = v*t.pow3 + row
	}
	return v
}

// key returns the bucket index and quotient of a position given as a
// number in base 3 (see ternary).
func (t *Table) key(v uint64) (bucket, quotient uint64) {
	// A bijection of [0, 2^58): odd multipliers and right xorshifts.
	const m = 1<<keyBits - 1
	v = v * 0x9e3779b97f4a7c15 & m
	v ^= v >> 29
	v = v * 0xbf58476d1ce4e5b9 & m
	v ^= v >> 32
	return v & t.mask, v >> t.shift
}

// Solver computes exact game-theoretic values. It keeps its transposition
// table across calls, so later calls reuse earlier work (every entry is a
// proven bound, valid forever). A Solver is not safe for concurrent use;
// Solvers sharing a table are.
type Solver struct {
	g  *mnk.Game
	k1 int // K-1

	// Current position, its images under the symmetries (and their
	// numbers in base 3, the table's keys), and ply.
	pos  mnk.Position
	im   [8]mnk.Position
	tern [8]uint64
	ply  int
	tt   *Table
	hist [2][64]uint32

	cache       ValueCache
	cacheMaxPly int

	nodes, ttHits, cacheHits uint64
	ctx                      context.Context
	abort                    bool
	limit                    uint64 // Nodes at which a search stops
	limited                  bool   // the search stopped at limit

	moves     [65][64]int8
	scores    [65][64]int32
	pairs     [65][256]uint64
	cellScore [64]int32
}

// New returns a solver for g with a transposition table of its own of
// at most ttBytes bytes (see NewTable).
func New(g *mnk.Game, ttBytes int) *Solver { return NewTable(g, ttBytes).NewSolver() }

// Table returns the Solver's transposition table.
func (s *Solver) Table() *Table { return s.tt }

// TTBytes returns the memory of the transposition table.
func (s *Solver) TTBytes() int { return s.tt.Bytes() }

// SetCache makes the solver consult cache for positions with at most maxPly
// stones and store there the exact values it proves at those plies. Only
// shallow positions belong there: the cache is much slower than the table.
// A nil cache turns caching off.
func (s *Solver) SetCache(c ValueCache, maxPly int) { s.cache, s.cacheMaxPly = c, maxPly }

// Nodes returns the number of positions searched so far (all calls).
func (s *Solver) Nodes() uint64 { return s.nodes }

// SetNodeLimit makes a search stop, with ErrNodeLimit, once Nodes reaches
// n (0: no limit): a budget that, unlike a deadline, stops at the same node
// on every machine.
func (s *Solver) SetNodeLimit(n uint64) {
	if n == 0 {
		n = ^uint64(0)
	}
	s.limit = n
}

// TTHits returns how often the table settled or narrowed a position.
func (s *Solver) TTHits() uint64 { return s.ttHits }

// CacheHits returns how many values came from the cache.
func (s *Solver) CacheHits() uint64 { return s.cacheHits }

// Clear empties the transposition table and the history. No other Solver
// of the same table may be searching.
func (s *Solver) Clear() {
	s.tt.Clear()
	s.hist = [2][64]uint32{}
}

func (s *Solver) set(p mnk.Position) {
	s.pos, s.ply = p, p.Ply()
	im, n := s.g.Images(p)
	s.im = im
	for i := n; i < 8; i++ {
		s.im[i] = mnk.Position{}
	}
	for i := range 8 {
		s.tern[i] = s.tt.ternary(s.im[i])
	}
}

// Solve returns the exact value of p for the side to move. p must be valid.
// It returns ctx's error if ctx is done before the value is known.
func (s *Solver) Solve(ctx context.Context, p mnk.Position) (mnk.Value, error) {
	switch s.g.Status(p) {
	case mnk.XWin, mnk.OWin:
		return mnk.Loss, nil
	case mnk.Draw:
		return mnk.Drawn, nil
	}
	if s.g.Cells() > MaxCells {
		return 0, mnk.ErrTooBig
	}
	s.ctx, s.abort, s.limited = ctx, false, false
	s.set(p)
	v := s.search(-1, 1)
	if s.abort {
		if s.limited {
			return 0, mnk.ErrNodeLimit
		}
		return 0, ctx.Err()
	}
	return mnk.Value(v), nil
}

// MoveValues returns the exact value of every legal move of p (which must
// be valid and not over), in increasing cell order.
func (s *Solver) MoveValues(ctx context.Context, p mnk.Position) ([]mnk.MoveValue, error) {
	return exact.Moves(ctx, s.g, p, s.Solve)
}

// PV returns a principal variation from p, whose exact value for the side
// to move is v: a line of play where each move keeps the value, to the end
// of the game. Moves are cells.
func (s *Solver) PV(ctx context.Context, p mnk.Position, v mnk.Value) ([]int, error) {
	// The table's move first: usually right, and then one probe.
	return exact.PV(ctx, s.g, p, v, s.Solve, s.ttMove)
}

// ttMove returns the table's best move for p in p's frame, or -1.
func (s *Solver) ttMove(p mnk.Position) int {
	best, bs := s.g.CanonicalSym(p)
	e := s.probe(s.tt.ternary(best))
	if m := int(e>>5&127) - 1; m >= 0 {
		return int(s.g.UnmapCell(bs, m))
	}
	return -1
}

// probe returns the table's entry for the canonical position whose number
// in base 3 is key, or 0.
func (s *Solver) probe(key uint64) uint64 {
	t := s.tt
	if t.slots == nil {
		return 0
	}
	b, q := t.key(key)
	bucket := t.slots[b*ttBucket : b*ttBucket+ttBucket]
	for i := range bucket {
		if e := atomic.LoadUint64(&bucket[i]); e != 0 && e>>metaBits == q {
			return e
		}
	}
	return 0
}

// store records bounds [lo, hi] and the best move (canonical frame) of key,
// replacing in its bucket the same key, else the entry with the least work.
// Another Solver of the table may replace an entry at the same time: one
// of the two is lost, neither is damaged.
func (s *Solver) store(key uint64, lo, hi int8, move int, work uint64) {
	t := s.tt
	if t.slots == nil {
		return
	}
	b, q := t.key(key)
	bucket := t.slots[b*ttBucket : b*ttBucket+ttBucket]
	w := uint64(min(bits.Len64(work), ttMaxWorkBits))
	victim, vwork := 0, uint64(1<<63)
	for i := range bucket {
		e := atomic.LoadUint64(&bucket[i])
		if e != 0 && e>>metaBits == q {
			// Intersect with what is known: bounds only ever tighten.
			lo = max(lo, int8(e>>1&3)-1)
			hi = min(hi, int8(e>>3&3)-1)
			if move < 0 {
				move = int(e>>5&127) - 1
			}
			w = max(w, e>>12&31)
			victim = i
			break
		}
		if ew := e >> 12 & 31; e == 0 || ew < vwork { // empty slots first
			victim, vwork = i, ew
			if e == 0 {
				vwork = 0
			}
		}
	}
	if invariants.Enabled && (lo > hi || lo < -1 || hi > 1) {
		// Bounds from sound searches always overlap.
		panic(fmt.Sprintf("solve: bounds [%d, %d] for %s", lo, hi, s.g.String(s.pos)))
	}
	e := 1 | uint64(lo+1)<<1 | uint64(hi+1)<<3 | uint64(move+1)<<5 | w<<12 | q<<metaBits
	atomic.StoreUint64(&bucket[victim], e)
}

// make plays cell for the side to move, updating the images and their
// numbers in base 3.
func (s *Solver) make(cell int) {
	g, d := s.g, &s.tt.digit
	if s.ply&1 == 0 {
		s.pos.X |= 1 << uint(cell)
		for i := range g.NumSymmetries() {
			c := g.MapCell(i, cell)
			s.im[i].X |= 1 << uint(c)
			s.tern[i] += d[c&63]
		}
	} else {
		s.pos.O |= 1 << uint(cell)
		for i := range g.NumSymmetries() {
			c := g.MapCell(i, cell)
			s.im[i].O |= 1 << uint(c)
			s.tern[i] += 2 * d[c&63]
		}
	}
	s.ply++
	if invariants.Enabled {
		s.check()
	}
}

func (s *Solver) unmake(cell int) {
	g, d := s.g, &s.tt.digit
	s.ply--
	if s.ply&1 == 0 {
		s.pos.X &^= 1 << uint(cell)
		for i := range g.NumSymmetries() {
			c := g.MapCell(i, cell)
			s.im[i].X &^= 1 << uint(c)
			s.tern[i] -= d[c&63]
		}
	} else {
		s.pos.O &^= 1 << uint(cell)
		for i := range g.NumSymmetries() {
			c := g.MapCell(i, cell)
			s.im[i].O &^= 1 << uint(c)
			s.tern[i] -= 2 * d[c&63]
		}
	}
	if invariants.Enabled {
		s.check()
	}
}

// check recomputes what make and unmake maintain incrementally (the ply and
// the images under the symmetries) and panics on a difference. Called only
// with the invariants build tag.
func (s *Solver) check() {
	im, n := s.g.Images(s.pos)
	if s.ply != s.pos.Ply() {
		panic(fmt.Sprintf("solve: solver at ply %d, position %s has %d stones", s.ply, s.g.String(s.pos), s.pos.Ply()))
	}
	for i := range n {
		if im[i] != s.im[i] {
			panic(fmt.Sprintf("solve: solver image %d of %s is %s, want %s", i, s.g.String(s.pos), s.g.String(s.im[i]), s.g.String(im[i])))
		}
		if v := s.tt.ternary(im[i]); v != s.tern[i] {
			panic(fmt.Sprintf("solve: solver image %d of %s is %d in base 3, want %d", i, s.g.String(s.pos), s.tern[i], v))
		}
	}
}

// canonical returns the least image of the current position and its
// symmetry.
func (s *Solver) canonical() (mnk.Position, int) {
	best, bs := s.im[0], 0
	for i := 1; i < s.g.NumSymmetries(); i++ {
		if q := s.im[i]; q.X < best.X || q.X == best.X && q.O < best.O {
			best, bs = q, i
		}
	}
	return best, bs
}

// pollMask sets how often the search polls its context: every 2^14 nodes.
const pollMask = 1<<14 - 1

// search returns the value of the current position (ongoing, the last move
// made no line) for the side to move, fail-soft within (alpha, beta).
func (s *Solver) search(alpha, beta int8) int8 {
	if s.nodes == s.limit {
		s.abort, s.limited = true, true
		return 0
	}
	s.nodes++
	if s.nodes&pollMask == 0 && s.ctx.Err() != nil {
		s.abort = true
	}
	if s.abort {
		return 0
	}
	g := s.g
	me, them := s.pos.X, s.pos.O
	if s.ply&1 == 1 {
		me, them = them, me
	}
	empty := g.Mask() &^ (me | them)
	if empty == 0 {
		return 0
	}
	var oppThreat, live uint64
	meLive, oppLive := false, false
	k1 := s.k1
	pairs := &s.pairs[s.ply]
	np := 0
	for _, w := range g.Windows() {
		a, b := w&me, w&them
		if b == 0 {
			meLive = true
			live |= w
			switch bits.OnesCount64(a) {
			case k1:
				return 1 // complete the line
			case k1 - 1:
				pairs[np] = w &^ me
				np++
			}
		}
		if a == 0 {
			oppLive = true
			live |= w
			if bits.OnesCount64(b) == k1 {
				oppThreat |= w &^ them
			}
		}
	}
	lo, hi := int8(-1), int8(1)
	if !meLive {
		hi = 0
	}
	if !oppLive {
		lo = 0
	}
	if lo == hi {
		return 0
	}
	if oppThreat&(oppThreat-1) != 0 {
		return -1 // two threats: one block is not enough
	}
	if oppThreat == 0 && np > 1 {
		// A move on two windows that lack only it and one other cell each,
		// two different cells, makes two threats; the opponent, with no
		// threat of its own, cannot win at once and cannot block both.
		for i := 1; i < np; i++ {
			for j := range i {
				if pairs[i]&pairs[j] != 0 && pairs[i] != pairs[j] {
					return 1
				}
			}
		}
	}
	// A cell on no window free of either side's stones is dead: a stone
	// there can never be part of a line, so every move to a dead cell leads
	// to a position of the same value, and one of them is searched.
	dead := empty &^ live

	canon, sym := s.canonical()
	key := s.tern[sym]
	ttMove := -1
	if e := s.probe(key); e != 0 {
		s.ttHits++
		lo = max(lo, int8(e>>1&3)-1)
		hi = min(hi, int8(e>>3&3)-1)
		if m := int(e>>5&127) - 1; m >= 0 {
			ttMove = int(s.g.UnmapCell(sym, m))
		}
	}
	if lo >= beta || lo == hi {
		return lo
	}
	if hi <= alpha {
		return hi
	}
	ply := s.ply
	cached := s.cache != nil && ply <= s.cacheMaxPly
	if cached {
		if v, ok := s.cache.LoadValue(canon); ok {
			s.cacheHits++
			s.store(key, int8(v), int8(v), -1, 1<<40)
			return int8(v)
		}
	}
	a, b := max(alpha, lo), min(beta, hi)
	a0 := a
	start := s.nodes

	// Moves: the forced block alone, else the table's move, then by history
	// and the static order.
	moves := &s.moves[ply]
	n := 0
	if oppThreat != 0 {
		moves[0] = int8(bits.TrailingZeros64(oppThreat))
		n = 1
	} else {
		side := ply & 1
		sc := &s.scores[ply]
		hist := &s.hist[side]
		// Dynamic order: every window still open to a side adds to its
		// empty cells a weight that grows fourfold per stone of that side
		// on it, 11 for the side to move's windows (attack), 3 for the
		// opponent's (defence); see the top of the file. No window here
		// has k-1 stones of a side (that was a win or a forced block), so
		// a cell's weight stays below 24 windows x 14<<8 on the boards the
		// solver takes, and the shift by 12 below the table move's 1<<30.
		cs := &s.cellScore
		order.Weights(cs, g.Windows(), me, them, empty, 11, 3)
		oneDead := dead & -dead
		if ttMove >= 0 {
			moves[0], sc[0] = int8(ttMove), 1<<30
			n = 1
			if dead>>uint(ttMove)&1 != 0 {
				oneDead = 0
			}
		}
		for e := empty; e != 0; e &= e - 1 {
			c := int8(bits.TrailingZeros64(e))
			if int(c) == ttMove || dead>>uint(c)&1 != 0 && oneDead>>uint(c)&1 == 0 {
				continue
			}
			v := cs[c]<<12 + int32(min(hist[c]>>4, 4095))
			n = order.Insert(moves, sc, n, c, v)
		}
	}

	best, bestMove := int8(-2), -1
	for i := range n {
		c := int(moves[i])
		s.make(c)
		v := -s.search(-b, -a)
		s.unmake(c)
		if s.abort {
			return 0
		}
		if v > best {
			best, bestMove = v, c
			if v > a {
				a = v
				if a >= b {
					// History: a cut deep in the tree says little,
					// one with many empty cells a lot.
					r := uint32(bits.OnesCount64(empty))
					h := &s.hist[ply&1][c]
					*h = min(*h+r*r, 1<<28)
					break
				}
			}
		}
	}
	// Bounds from the result: a fail-high is a lower bound, a fail-low an
	// upper bound, anything between exact.
	nlo, nhi := lo, hi
	switch {
	case best >= b:
		nlo = max(lo, best)
	case best <= a0:
		nhi = min(hi, best)
	default:
		nlo, nhi = best, best
	}
	if nlo > nhi { // cannot happen with sound bounds; trust the facts
		nlo, nhi = lo, hi
	}
	cm := int(g.MapCell(sym, bestMove))
	s.store(key, nlo, nhi, cm, s.nodes-start)
	if cached && nlo == nhi {
		s.cache.StoreValue(canon, mnk.Value(nlo))
	}
	return min(max(best, nlo), nhi)
}

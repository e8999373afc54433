package mnk

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
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
// since a stone there can never be part of a line. Together they halved the
// nodes of 4,5,4.
//
// Move ordering decides the size of the proof: the table's move first, then
// the cells by a weight summed over the windows through them that are still
// open to a side (fourfold per stone of that side on the window, the side to
// move's windows weighing 11 against the opponent's 3), then by history.
// On 5,5,4 the window weights and the prunings together need under a
// seven-hundredth of the nodes of history with a static centre-first order.
// Attack first pays most where a side defends a lost cause: on 6,5,4 after
// an edge opening (1,0), a draw, defence first (3:4) takes ten times the
// nodes of attack first (8:3). Over seven proofs (5,5,4, 6,5,4, 4,5,4,
// 6,6,4, 6,5,4 after (1,0), 6,6,4 after (1,2) and after (0,1)) 11:3 with a
// wide history tie-break takes a third of the nodes of 8:3, and fewer than
// 4:1. The node counts are in docs/benchmarks.md.
//
// Positions are canonicalised from the images of the position under every
// symmetry, kept up to date with one OR per symmetry and move (as Board does
// for its hashes), so the canonical key costs 8 comparisons per node instead
// of the shifts and swaps of Game.Canonical.

// ValueCache is a persistent store of exact values by canonical position,
// consulted and filled by a Solver (see SetCache).
type ValueCache interface {
	// LoadValue returns the value (for the side to move) of the canonical
	// position p.
	LoadValue(p Position) (Value, bool)
	// StoreValue saves the exact value of the canonical position p.
	StoreValue(p Position, v Value)
}

// ErrTooBig reports a game too large for the exact solver.
var ErrTooBig = errors.New("board too big for exact solving")

// MaxSolveCells bounds the boards the exact solver accepts (6x6). Not all
// of them are within reach: 6,6,4 is solved in about a second, 6,6,5 was
// not in 20 s (docs/benchmarks.md).
const MaxSolveCells = 36

// ttEntry is a slot of the transposition table: the full canonical key, so
// that a hash collision can never lend one position's value to another, and
// the packed bounds, best move (in the canonical frame) and work.
type ttEntry struct {
	x, o uint64
	meta uint32 // lo+1 (2 bits) | hi+1 (2 bits) << 2 | move+1 (7 bits) << 4 | work (6 bits) << 11
}

const ttBucket = 4

// Solver computes exact game-theoretic values. It keeps its transposition
// table across calls, so later calls reuse earlier work (every entry is a
// proven bound, valid forever). It is not safe for concurrent use.
type Solver struct {
	g  *Game
	k1 int // K-1

	// Current position, its images under the symmetries, and ply.
	pos  Position
	im   [8]Position
	ply  int
	inv  [8][64]int8 // inv[s][perm[s][c]] = c
	tt   []ttEntry
	mask uint64 // bucket index mask
	hist [2][64]uint32

	cache       ValueCache
	cacheMaxPly int

	nodes, ttHits, cacheHits uint64
	ctx                      context.Context
	abort                    bool

	moves     [65][64]int8
	scores    [65][64]int32
	pairs     [65][256]uint64
	cellScore [64]int32
}

// NewSolver returns a solver for g with a transposition table of at most
// ttBytes bytes (a power of two of 96-byte buckets); ttBytes < 96 turns the
// table off, for tests that compare the search with and without it.
func NewSolver(g *Game, ttBytes int) *Solver {
	s := &Solver{g: g, k1: g.K - 1}
	if ttBytes >= ttBucket*24 {
		nb := 1
		for nb*2*ttBucket*24 <= ttBytes {
			nb *= 2
		}
		s.tt = make([]ttEntry, nb*ttBucket)
		s.mask = uint64(nb - 1)
	}
	for c := range 64 {
		for sym := range 8 {
			s.inv[sym][c] = -1
		}
	}
	for sym := range g.nsym {
		for c := range 64 {
			if t := g.perm[sym][c]; t >= 0 {
				s.inv[sym][t] = int8(c)
			}
		}
	}
	return s
}

// TTBytes returns the memory of the transposition table.
func (s *Solver) TTBytes() int { return len(s.tt) * 24 }

// SetCache makes the solver consult cache for positions with at most maxPly
// stones and store there the exact values it proves at those plies. Only
// shallow positions belong there: the cache is much slower than the table.
// A nil cache turns caching off.
func (s *Solver) SetCache(c ValueCache, maxPly int) { s.cache, s.cacheMaxPly = c, maxPly }

// Nodes returns the number of positions searched so far (all calls).
func (s *Solver) Nodes() uint64 { return s.nodes }

// TTHits returns how often the table settled or narrowed a position.
func (s *Solver) TTHits() uint64 { return s.ttHits }

// CacheHits returns how many values came from the cache.
func (s *Solver) CacheHits() uint64 { return s.cacheHits }

// Clear empties the transposition table and the history.
func (s *Solver) Clear() {
	clear(s.tt)
	s.hist = [2][64]uint32{}
}

func (s *Solver) set(p Position) {
	s.pos, s.ply = p, p.Ply()
	im, n := s.g.images(p)
	s.im = im
	for i := n; i < 8; i++ {
		s.im[i] = Position{}
	}
}

// Solve returns the exact value of p for the side to move. p must be valid.
// It returns ctx's error if ctx is done before the value is known.
func (s *Solver) Solve(ctx context.Context, p Position) (Value, error) {
	switch s.g.Status(p) {
	case XWin, OWin:
		return Loss, nil
	case Draw:
		return Drawn, nil
	}
	if s.g.Cells() > MaxSolveCells {
		return 0, ErrTooBig
	}
	s.ctx, s.abort = ctx, false
	s.set(p)
	v := s.search(-1, 1)
	if s.abort {
		return 0, ctx.Err()
	}
	return Value(v), nil
}

// MoveValue is a legal move and the exact value it leads to, for the side
// that plays it.
type MoveValue struct {
	Cell  int
	Value Value
}

// MoveValues returns the exact value of every legal move of p (which must
// be valid and not over), in increasing cell order.
func (s *Solver) MoveValues(ctx context.Context, p Position) ([]MoveValue, error) {
	var mv []MoveValue
	for e := s.g.Empty(p); e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		q, r := s.g.Play(p, c)
		var v Value
		switch r {
		case XWin, OWin:
			v = Win
		case Draw:
			v = Drawn
		default:
			cv, err := s.Solve(ctx, q)
			if err != nil {
				return nil, err
			}
			v = -cv
		}
		mv = append(mv, MoveValue{c, v})
	}
	return mv, nil
}

// PV returns a principal variation from p, whose exact value for the side
// to move is v: a line of play where each move keeps the value, to the end
// of the game. Moves are cells.
func (s *Solver) PV(ctx context.Context, p Position, v Value) ([]int, error) {
	var pv []int
	for s.g.Status(p) == Ongoing {
		found := false
		// The table's move first: usually right, and then one probe.
		cells := make([]int, 0, 64)
		if m := s.ttMove(p); m >= 0 {
			cells = append(cells, m)
		}
		for e := s.g.Empty(p); e != 0; e &= e - 1 {
			cells = append(cells, bits.TrailingZeros64(e))
		}
		for _, c := range cells {
			q, r := s.g.Play(p, c)
			var cv Value
			switch r {
			case XWin, OWin:
				cv = Win
			case Draw:
				cv = Drawn
			default:
				w, err := s.Solve(ctx, q)
				if err != nil {
					return nil, err
				}
				cv = -w
			}
			if cv == v {
				pv, p, v, found = append(pv, c), q, -v, true
				break
			}
		}
		if !found {
			return pv, errors.New("mnk: principal variation: no move keeps the value")
		}
	}
	return pv, nil
}

// ttMove returns the table's best move for p in p's frame, or -1.
func (s *Solver) ttMove(p Position) int {
	im, n := s.g.images(p)
	best, bs := im[0], 0
	for i := 1; i < n; i++ {
		if less(im[i], best) {
			best, bs = im[i], i
		}
	}
	e := s.probe(best)
	if e == nil {
		return -1
	}
	m := int(e.meta>>4&127) - 1
	if m < 0 {
		return -1
	}
	return int(s.inv[bs][m])
}

func (s *Solver) probe(key Position) *ttEntry {
	if s.tt == nil {
		return nil
	}
	b := (hash(key) & s.mask) * ttBucket
	for i := b; i < b+ttBucket; i++ {
		if e := &s.tt[i]; e.x == key.X && e.o == key.O && e.meta != 0 {
			return e
		}
	}
	return nil
}

// store records bounds [lo, hi] and the best move (canonical frame) of key,
// replacing in its bucket the same key, else the entry with the least work.
func (s *Solver) store(key Position, lo, hi int8, move int, work uint64) {
	if s.tt == nil {
		return
	}
	b := (hash(key) & s.mask) * ttBucket
	w := uint32(min(bits.Len64(work), 63))
	victim := b
	for i := b; i < b+ttBucket; i++ {
		e := &s.tt[i]
		if e.x == key.X && e.o == key.O && e.meta != 0 {
			// Intersect with what is known: bounds only ever tighten.
			lo = max(lo, int8(e.meta&3)-1)
			hi = min(hi, int8(e.meta>>2&3)-1)
			if move < 0 {
				move = int(e.meta>>4&127) - 1
			}
			w = max(w, e.meta>>11)
			victim = i
			break
		}
		if e.meta>>11 < s.tt[victim].meta>>11 { // empty slots have work 0
			victim = i
		}
	}
	if invariants && (lo > hi || lo < -1 || hi > 1) {
		// Bounds from sound searches always overlap.
		panic(fmt.Sprintf("mnk: bounds [%d, %d] for %s", lo, hi, s.g.String(key)))
	}
	s.tt[victim] = ttEntry{key.X, key.O, uint32(lo+1) | uint32(hi+1)<<2 | uint32(move+1)<<4 | w<<11}
}

// make plays cell for the side to move, updating the images.
func (s *Solver) make(cell int) {
	g := s.g
	if s.ply&1 == 0 {
		s.pos.X |= 1 << uint(cell)
		for i := range g.nsym {
			s.im[i].X |= 1 << uint(g.perm[i][cell])
		}
	} else {
		s.pos.O |= 1 << uint(cell)
		for i := range g.nsym {
			s.im[i].O |= 1 << uint(g.perm[i][cell])
		}
	}
	s.ply++
	if invariants {
		s.check()
	}
}

func (s *Solver) unmake(cell int) {
	g := s.g
	s.ply--
	if s.ply&1 == 0 {
		s.pos.X &^= 1 << uint(cell)
		for i := range g.nsym {
			s.im[i].X &^= 1 << uint(g.perm[i][cell])
		}
	} else {
		s.pos.O &^= 1 << uint(cell)
		for i := range g.nsym {
			s.im[i].O &^= 1 << uint(g.perm[i][cell])
		}
	}
	if invariants {
		s.check()
	}
}

// check recomputes what make and unmake maintain incrementally (the ply and
// the images under the symmetries) and panics on a difference. Called only
// with the invariants build tag.
func (s *Solver) check() {
	im, n := s.g.images(s.pos)
	if s.ply != s.pos.Ply() {
		panic(fmt.Sprintf("mnk: solver at ply %d, position %s has %d stones", s.ply, s.g.String(s.pos), s.pos.Ply()))
	}
	for i := range n {
		if im[i] != s.im[i] {
			panic(fmt.Sprintf("mnk: solver image %d of %s is %s, want %s", i, s.g.String(s.pos), s.g.String(s.im[i]), s.g.String(im[i])))
		}
	}
}

// canonical returns the least image of the current position and its
// symmetry.
func (s *Solver) canonical() (Position, int) {
	best, bs := s.im[0], 0
	for i := 1; i < s.g.nsym; i++ {
		if q := s.im[i]; q.X < best.X || q.X == best.X && q.O < best.O {
			best, bs = q, i
		}
	}
	return best, bs
}

// pollMask sets how often the search polls its context: every 2^14 nodes,
// about a millisecond.
const pollMask = 1<<14 - 1

// search returns the value of the current position (ongoing, the last move
// made no line) for the side to move, fail-soft within (alpha, beta).
func (s *Solver) search(alpha, beta int8) int8 {
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
	empty := g.mask &^ (me | them)
	if empty == 0 {
		return 0
	}
	var oppThreat, live uint64
	meLive, oppLive := false, false
	k1 := s.k1
	pairs := &s.pairs[s.ply]
	np := 0
	for _, w := range g.windows {
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

	key, sym := s.canonical()
	ttMove := -1
	if e := s.probe(key); e != nil {
		s.ttHits++
		lo = max(lo, int8(e.meta&3)-1)
		hi = min(hi, int8(e.meta>>2&3)-1)
		if m := int(e.meta>>4&127) - 1; m >= 0 {
			ttMove = int(s.inv[sym][m])
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
		if v, ok := s.cache.LoadValue(key); ok {
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
		g.windowWeights(cs, me, them, empty, 11, 3)
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
			n = insertMove(moves, sc, n, c, v)
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
	cm := int(g.perm[sym][bestMove])
	s.store(key, nlo, nhi, cm, s.nodes-start)
	if cached && nlo == nhi {
		s.cache.StoreValue(key, Value(nlo))
	}
	return min(max(best, nlo), nhi)
}

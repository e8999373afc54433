package pns

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/invariants"
)

// The proof-number solver answers two binary questions about a position,
// "does the side to move win?" and "does the opponent win?": a draw is a
// no to both. Each question is a depth-first proof-number search (df-pn,
// Nagai 2002) in its negamax form: at every node phi is the proof number of
// the goal of the side to move (the attacker's goal is to win, the
// defender's that the attacker does not) and delta its disproof number;
// phi(n) = min over the children of delta(c), delta(n) = sum of phi(c). A
// node is searched until its phi or delta reaches a threshold given by its
// parent, and the parent then picks the child with the least delta again.
//
// The child's delta threshold is min(phi threshold of the parent,
// ceil(delta2 * (1+1/4))) where delta2 is the second least delta among the
// children: the 1+epsilon trick (Pawlewicz and Lew, "Improving depth-first
// PN-search: 1+epsilon trick", 2006), which stops df-pn from switching back
// and forth between two children of nearly equal delta (each switch throws
// away the subtree's work when the table is full).
//
// The game has no cycles (stones are only added), so no graph history
// interaction can make a value wrong. Transpositions make the sums of
// delta count a shared subtree once per path: that overestimates disproof
// numbers, which is sound (a number only steers the search; only 0 and
// infinity are results) and costs only search order.
//
// Threat rules at every node, each sound on its own and documented where it
// is applied (evaluate): a line the side to move can complete wins; two
// enemy threats lose; one enemy threat forces the block; a move making two
// threats wins when the opponent has none; an attacker without a window
// free of the defender's stones, or whose every such window needs more
// stones than it has moves left, cannot win; of the dead cells (on no
// window free of either side) one is tried; and a pairing of empty cells
// covering every window of the attacker proves it cannot win (see
// pairable).
//
// The pairings are what make k = 5 cheap: the empty 5x5 board has one (a
// pair on each of its 12 lines), so 5,5,5 is a draw at the root, and deep
// enough in the tree most positions of 6,6,5 and 7,7,5 have one; the
// alpha-beta solver of package solve, without them, proves the same draws
// with far more nodes or not at all (TestLadderProofNumbers in package
// ladder compares them). A pairing is looked for only
// where the attacker is to move: one where the defender is to move
// survives every defender move (a stone on a pair kills the windows the
// pair covered), so the first child entered finds it, one node later, and
// the half of the searches that would fail are saved.
//
// Children are not evaluated when a node is expanded: a child is found in
// the table, or starts at phi = 1 and delta = 1 if the move makes a threat
// (the reply is forced), so that df-pn follows forcing lines first, as
// threat-space search does; otherwise at the number of empty cells left,
// times 1 + r/4 for the r-th move in the order of the window weights (as
// the alpha-beta solver's, 11:3), so that df-pn searches the first moves
// deeper before it turns to the others, which takes fewer nodes than the
// same delta for all (BenchmarkProof775). Each node
// keeps its children's numbers in a per-ply array and reads the table only
// when it is entered; a child's search returns its numbers, so a table too
// small to keep them never makes a node loop on stale ones.

// MaxCells bounds the boards of the proof-number solver: every board
// of its game package (set.go).
const MaxCells = maxCells

// proofInf is an infinite proof or disproof number: a result. Sums of
// numbers saturate at proofInf-1, so infinity is never reached by adding.
const proofInf = 1 << 31

// Table is the transposition table of proof-number solvers: proof and
// disproof numbers by question and canonical position, kept exactly (the
// two bitboards), so that no collision can lend one position's numbers to
// another. An entry is 32 bytes; a bucket holds 4 entries. A new position
// replaces the entry of its bucket with the least work (nodes searched below
// it), so a full table keeps the large subtrees, and the search goes on
// when it is full: it only searches again what it forgot.
//
// Solvers of one table may search at the same time (Table.NewSolver on a
// table from NewTable): each bucket is then read and written under one
// of a fixed set of mutexes.
type Table struct {
	g       *game
	entries []proofEntry
	mask    uint64 // bucket index mask
	locks   []sync.Mutex
	pairs   *pairTable // for the pairing searches of the solvers
}

// proofEntry is one entry. meta packs the work (low 32 bits), the best move
// plus one in the canonical frame (8 bits), whether the attacker is X (bit
// 40), whether the entry is used (bit 41) and whether pd holds a relevance
// zone (bit 42) instead of numbers: then the position is proven for the
// defender, won by the side to move if bit 43 is set (the defender is to
// move), else lost (the attacker is to move); see zones.go.
type proofEntry struct {
	x, o set
	pd   set // phi << 32 | delta (packNumbers), or the zone in the canonical frame
	meta uint64
}

const (
	proofBucket    = 4
	proofEntrySize = int(unsafe.Sizeof(proofEntry{})) // 32 bytes on 64-bit sets
	proofLocks     = 1024
	metaAttX       = 1 << 40
	metaUsed       = 1 << 41
	metaZone       = 1 << 42
	metaZoneWon    = 1 << 43
)

// numbers returns the entry's proof and disproof numbers, and its zone
// (canonical frame) if it holds one.
func (e *proofEntry) numbers() (phi, delta uint32, zone set, zoned bool) {
	if e.meta&metaZone == 0 {
		phi, delta = unpackNumbers(e.pd)
		return phi, delta, noCells, false
	}
	if e.meta&metaZoneWon != 0 {
		return wonPhi, wonDelta, e.pd, true
	}
	return lostPhi, lostDelta, e.pd, true
}

// NewTable returns an empty table of at most ttBytes bytes (a power of
// two of buckets, at least one) that solvers may share across goroutines.
func NewTable(g *game, ttBytes int) *Table {
	t := newProofTable(g, ttBytes)
	t.locks = make([]sync.Mutex, proofLocks)
	return t
}

func newProofTable(g *game, ttBytes int) *Table {
	nb := 1
	for nb*2*proofBucket*proofEntrySize <= ttBytes {
		nb *= 2
	}
	return &Table{g: g, entries: make([]proofEntry, nb*proofBucket), mask: uint64(nb - 1), pairs: newPairTable(g)}
}

// Bytes returns the memory of the table.
func (t *Table) Bytes() int { return len(t.entries) * proofEntrySize }

// Entries returns the number of (question, position) pairs the table holds.
// No solver of the table may be searching.
func (t *Table) Entries() uint64 {
	var n uint64
	for i := range t.entries {
		if t.entries[i].meta&metaUsed != 0 {
			n++
		}
	}
	return n
}

// Clear empties the table. No solver of the table may be searching.
func (t *Table) Clear() { clear(t.entries) }

func (t *Table) bucket(x, o set, attX bool) uint64 {
	h := hashPosition(x, o)
	if attX {
		h ^= 0x165667b19e3779f9
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h & t.mask
}

// probe returns the numbers and best move (canonical frame, -1 if none) of
// the question attX about the canonical position (x, o).
func (t *Table) probe(x, o set, attX bool) (phi, delta uint32, move int, ok bool) {
	phi, delta, move, _, _, ok = t.probeZone(x, o, attX)
	return phi, delta, move, ok
}

// probeZone is probe with the relevance zone (canonical frame) of a
// position proven for the defender, if the entry holds one.
func (t *Table) probeZone(x, o set, attX bool) (phi, delta uint32, move int, zone set, zoned, ok bool) {
	b := t.bucket(x, o, attX)
	if t.locks != nil {
		l := &t.locks[b&(proofLocks-1)]
		l.Lock()
		defer l.Unlock()
	}
	want := uint64(metaUsed)
	if attX {
		want |= metaAttX
	}
	es := t.entries[b*proofBucket : b*proofBucket+proofBucket]
	for i := range es {
		e := &es[i]
		if e.x == x && e.o == o && e.meta&(metaUsed|metaAttX) == want {
			phi, delta, zone, zoned = e.numbers()
			return phi, delta, int(e.meta>>32&0xff) - 1, zone, zoned, true
		}
	}
	return 0, 0, -1, noCells, false, false
}

// store records the numbers of the question attX about (x, o), the best
// move (canonical frame, or -1) and the work just spent on it, added to the
// work already recorded, and, if zoned, the relevance zone (canonical
// frame) of a position proven for the defender. A proven result is never
// replaced by numbers of the same position (another solver of the table
// may have proven it meanwhile), and a zone already recorded for it is
// kept (either is sound).
func (t *Table) store(x, o set, attX bool, phi, delta uint32, move int, work uint64, zone set, zoned bool) {
	b := t.bucket(x, o, attX)
	if t.locks != nil {
		l := &t.locks[b&(proofLocks-1)]
		l.Lock()
		defer l.Unlock()
	}
	want := uint64(metaUsed)
	if attX {
		want |= metaAttX
	}
	es := t.entries[b*proofBucket : b*proofBucket+proofBucket]
	victim, vwork := 0, uint64(1<<33)
	for i := range es {
		e := &es[i]
		if e.x == x && e.o == o && e.meta&(metaUsed|metaAttX) == want {
			if p, d, z, ok := e.numbers(); p == 0 || d == 0 {
				if invariants.Enabled && (phi == 0 && p != 0 || delta == 0 && d != 0) {
					panic(fmt.Sprintf("pns: proof numbers (%d, %d) replace (%d, %d)", phi, delta, p, d))
				}
				phi, delta = p, d
				if ok {
					zone, zoned = z, true
				}
			}
			work += e.meta & 0xffffffff
			if move < 0 {
				move = int(e.meta>>32&0xff) - 1
			}
			victim = i
			break
		}
		w := e.meta & 0xffffffff
		if e.meta&metaUsed == 0 {
			w = 0
		}
		if w < vwork {
			victim, vwork = i, w
		}
	}
	meta := want | uint64(move+1)<<32 | min(work, 0xffffffff)
	pd := packNumbers(phi, delta)
	if zoned && (phi == 0 || delta == 0) {
		meta |= metaZone
		if phi == 0 {
			meta |= metaZoneWon
		}
		pd = zone
	}
	es[victim] = proofEntry{x: x, o: o, pd: pd, meta: meta}
}

// Solver computes exact values with proof-number search. It keeps its
// table across calls. A Solver is not safe for concurrent use;
// solvers sharing a table (NewTable, Table.NewSolver) are.
type Solver struct {
	g    *game
	k1   int
	tt   *Table
	attX bool // the question: does X win (else O)?

	pos position
	im  [8]position
	ply int

	nodes, limit uint64
	ctx          context.Context
	abort        bool
	limited      bool
	rootPhi      uint32
	rootDelta    uint32

	moves     [maxCells + 1][maxCells]int8
	phi       [maxCells + 1][maxCells]uint32
	delta     [maxCells + 1][maxCells]uint32
	seen      [maxCells + 1][maxCells]bool // the child is in the table
	scores    [maxCells]int32
	cellScore [maxCells]int32
	threats   []set // windows one stone short of a threat, by the side to move: at most all

	// Relevance zones (zones.go): on or off; the zone of the node at each
	// ply once it is proven for the defender (fullZone: unknown); whether
	// the attacker to move there may only block; the zones of the
	// children proven for the defender, and the attacker's moves skipped
	// as outside a refuted sibling's zone.
	zones  bool
	zone   [maxCells + 2]set
	forced [maxCells + 1]bool
	czone  [maxCells + 1][maxCells]set
	pruned [maxCells + 1][maxCells]bool

	// Pairing search state: the empty cells, the pair chosen at each
	// level (the pairing found is pairs[:pairLen]), the steps taken.
	pairEmpty set
	pairs     [maxCells / 2]set
	pairLen   int
	pairSteps int

	// Set matching (matching.go): on or off; the blocks found (the
	// matching is blocks[:blockLen]) and the steps taken.
	matching   bool
	blocks     [maxCells / 2]set
	blockLen   int
	matchSteps int
	block      *blockGame
}

const (
	// pairWords is the size of the bitsets of windows of the pairing
	// search: 256 windows, more than any board has (8,8,2 has 210).
	pairWords    = 4
	pairMaxPairs = maxSide * (maxSide - 1) / 2 // pairs of a window of the longest line
	// pairBudget bounds the steps of one pairing search: the search is
	// complete within it, and gives up (no pairing found) past it. Most
	// searches that succeed take a step per pair (15 to 20 on 7x7); a
	// larger budget finds more pairings, and so takes fewer nodes, at a
	// higher cost per node. 256 is where the 8-wide boards, whose nodes
	// cost the most, are quickest, and costs the 7-wide ones nothing
	// (BenchmarkProof775, BenchmarkProof785).
	pairBudget = 256
)

// New returns a solver for g with a table of its own of at most
// ttBytes bytes (see NewTable).
func New(g *game, ttBytes int) *Solver {
	return newProofTable(g, ttBytes).NewSolver()
}

// NewSolver returns a solver that consults and fills t.
func (t *Table) NewSolver() *Solver {
	g := t.g
	return &Solver{g: g, k1: g.K - 1, tt: t, limit: ^uint64(0), threats: make([]set, len(g.Windows()))}
}

// Table returns the solver's table.
func (s *Solver) Table() *Table { return s.tt }

// Clear empties the table. No other solver of the table may be searching.
func (s *Solver) Clear() { s.tt.Clear() }

// Nodes returns the number of calls of the search function so far (all
// calls, both questions).
func (s *Solver) Nodes() uint64 { return s.nodes }

// SetNodeLimit makes a search stop, with ErrNodeLimit, once Nodes reaches
// n (0: no limit).
func (s *Solver) SetNodeLimit(n uint64) {
	if n == 0 {
		n = ^uint64(0)
	}
	s.limit = n
}

// RootNumbers returns the proof and disproof numbers of the root of the
// last question asked, for its attacker: (0, inf) proven, (inf, 0)
// disproven, else where a stopped search left them. Infinity is 2^31.
func (s *Solver) RootNumbers() (proof, disproof uint32) { return s.rootPhi, s.rootDelta }

// Solve returns the exact value of p for the side to move. p must be valid.
// It returns ErrNodeLimit or ctx's error if the search stops first.
func (s *Solver) Solve(ctx context.Context, p position) (mnk.Value, error) {
	switch s.g.Status(p) {
	case mnk.XWin, mnk.OWin:
		return mnk.Loss, nil
	case mnk.Draw:
		return mnk.Drawn, nil
	}
	xToMove := p.XToMove()
	win, err := s.Prove(ctx, p, xToMove)
	if err != nil || win {
		return mnk.Win, err
	}
	loss, err := s.Prove(ctx, p, !xToMove)
	if err != nil {
		return 0, err
	}
	if loss {
		return mnk.Loss, nil
	}
	return mnk.Drawn, nil
}

// Prove answers one binary question: does X (xWins) or O win from p, which
// must be valid and not over, against every defence? It returns ErrNodeLimit
// or ctx's error if the search stops first.
func (s *Solver) Prove(ctx context.Context, p position, xWins bool) (bool, error) {
	if st := s.g.Status(p); st != mnk.Ongoing {
		return st == mnk.XWin && xWins || st == mnk.OWin && !xWins, nil
	}
	s.ctx, s.abort, s.limited = ctx, false, false
	s.attX = xWins
	s.set(p)
	attMover := xWins == p.XToMove()
	canon, _ := s.canonical()
	phi, delta, _, ok := s.tt.probe(canon.X, canon.O, s.attX)
	if !ok || phi != 0 && delta != 0 {
		phi, delta = s.mid(proofInf, proofInf, ok)
	}
	if !attMover {
		phi, delta = delta, phi
	}
	s.rootPhi, s.rootDelta = phi, delta
	if s.abort {
		if s.limited {
			return false, mnk.ErrNodeLimit
		}
		return false, ctx.Err()
	}
	return phi == 0, nil
}

// GoalMove returns, in p's frame, the move with which the side to move
// reached its goal in the question xWins ("does X win?", else O) that the
// table has proven about p: the winning move if the side to move is the
// attacker, a move after which the attacker does not win if it is the
// defender. It returns -1 if the table holds no such proof (never asked,
// not reached, or replaced).
func (s *Solver) GoalMove(p position, xWins bool) int {
	best, bs := s.g.CanonicalSym(p)
	if phi, _, m, ok := s.tt.probe(best.X, best.O, xWins); ok && m >= 0 && phi == 0 {
		return int(s.g.UnmapCell(bs, m))
	}
	return -1
}

// bestMove returns, in p's frame, the move with which the side to move
// reached its goal in one of the questions the table has proven about p,
// or -1: the winning move if p is won, a move that keeps the opponent from
// winning if it is drawn.
func (s *Solver) bestMove(p position) int {
	if m := s.GoalMove(p, p.XToMove()); m >= 0 {
		return m
	}
	return s.GoalMove(p, !p.XToMove())
}

func (s *Solver) set(p position) {
	s.pos, s.ply = p, p.Ply()
	im, n := s.g.Images(p)
	s.im = im
	for i := n; i < 8; i++ {
		s.im[i] = position{}
	}
}

// canonical returns the least image of the current position and its
// symmetry.
func (s *Solver) canonical() (position, int) {
	best, bs := s.im[0], 0
	for i := 1; i < s.g.NumSymmetries(); i++ {
		if q := s.im[i]; less(q, best) {
			best, bs = q, i
		}
	}
	return best, bs
}

func (s *Solver) make(cell int) {
	g := s.g
	if s.ply&1 == 0 {
		s.pos.X = or(s.pos.X, bit(cell))
		for i := range g.NumSymmetries() {
			s.im[i].X = or(s.im[i].X, bit(int(g.MapCell(i, cell))))
		}
	} else {
		s.pos.O = or(s.pos.O, bit(cell))
		for i := range g.NumSymmetries() {
			s.im[i].O = or(s.im[i].O, bit(int(g.MapCell(i, cell))))
		}
	}
	s.ply++
}

func (s *Solver) unmake(cell int) {
	g := s.g
	s.ply--
	if s.ply&1 == 0 {
		s.pos.X = andNot(s.pos.X, bit(cell))
		for i := range g.NumSymmetries() {
			s.im[i].X = andNot(s.im[i].X, bit(int(g.MapCell(i, cell))))
		}
	} else {
		s.pos.O = andNot(s.pos.O, bit(cell))
		for i := range g.NumSymmetries() {
			s.im[i].O = andNot(s.im[i].O, bit(int(g.MapCell(i, cell))))
		}
	}
}

// won and lost are the numbers of a node whose side to move reaches, or
// cannot reach, its goal.
const (
	wonPhi, wonDelta   = 0, proofInf
	lostPhi, lostDelta = proofInf, 0
)

// evaluate applies the rules to the current position (the last move made
// no line); seen says the table holds it undecided, so that a pairing
// search has failed on it, or on one of its images, before. It returns the numbers of a decided node and n = 0, or the n
// moves worth searching in s.moves[ply] with the starting numbers of their
// children in s.phi[ply] and s.delta[ply].
func (s *Solver) evaluate(seen bool) (phi, delta uint32, n int) {
	g := s.g
	me, them := s.pos.X, s.pos.O
	if s.ply&1 == 1 {
		me, them = them, me
	}
	attMover := s.attX == (s.ply&1 == 0)
	empty := andNot(g.Mask(), or(me, them))
	s.zone[s.ply], s.forced[s.ply] = fullZone, false
	if isEmpty(empty) {
		if s.zones {
			s.zone[s.ply] = noCells // nothing left to place
		}
		// A full board is a draw: the attacker has not won.
		if attMover {
			return lostPhi, lostDelta, 0
		}
		return wonPhi, wonDelta, 0
	}
	var oppThreat, live set
	k1 := s.k1
	// The fewest stones a window free of the other side lacks: more than
	// any side can still place if there is none.
	meNeed, themNeed := maxCells+1, maxCells+1
	nt := 0
	for _, w := range g.Windows() {
		a, b := and(w, me), and(w, them)
		if isEmpty(b) {
			live = or(live, w)
			ca := ones(a)
			switch ca {
			case k1:
				// A line the side to move completes at once: its win, so
				// its goal (the attacker's win, or the defender's denial
				// of it) is reached.
				if s.zones && !attMover {
					s.zone[s.ply] = s.hitZone(andNot(w, me), 1)
				}
				return wonPhi, wonDelta, 0
			case k1 - 1:
				s.threats[nt] = andNot(w, me)
				nt++
			}
			meNeed = min(meNeed, g.K-ca)
		}
		if isEmpty(a) {
			live = or(live, w)
			cb := ones(b)
			if cb == k1 {
				oppThreat = or(oppThreat, andNot(w, them))
			}
			themNeed = min(themNeed, g.K-cb)
		}
	}
	if !atMostOne(oppThreat) {
		// Two cells where the opponent completes a line: one block is not
		// enough, and the side to move has no line to complete first. The
		// opponent wins, so the side to move's goal fails whichever side
		// it is.
		if s.zones && attMover {
			s.zone[s.ply] = s.hitZone(oppThreat, 2)
		}
		return lostPhi, lostDelta, 0
	}
	// The attacker cannot win if it has no window free of the defender's
	// stones, or if each of them lacks more stones than the attacker will
	// still place (half the empty cells, rounded up if it is to move).
	e := ones(empty)
	attNeed, attMoves := themNeed, e/2
	if attMover {
		attNeed, attMoves = meNeed, (e+1)/2
	}
	if attNeed > attMoves {
		if s.zones {
			s.zone[s.ply] = s.liveZone()
		}
		if attMover {
			return lostPhi, lostDelta, 0
		}
		return wonPhi, wonDelta, 0
	}
	if isEmpty(oppThreat) && nt > 1 {
		// A move on two windows that each lack only it and one more cell,
		// two different cells, makes two threats; the opponent, with no
		// line to complete at once, cannot block both.
		for i := 1; i < nt; i++ {
			for j := range i {
				if !isEmpty(and(s.threats[i], s.threats[j])) && s.threats[i] != s.threats[j] {
					if s.zones && !attMover {
						s.zone[s.ply] = s.hitZone(or(s.threats[i], s.threats[j]), 2)
					}
					return wonPhi, wonDelta, 0
				}
			}
		}
	}
	if attMover && !seen {
		// The zone of a pairing or a matching is its cells.
		if s.pairable(them, empty) {
			if s.zones {
				s.zone[s.ply] = union(s.pairs[:s.pairLen])
			}
			return lostPhi, lostDelta, 0
		}
		if s.matching && s.matchable(them, empty) {
			if s.zones {
				s.zone[s.ply] = union(s.blocks[:s.blockLen])
			}
			return lostPhi, lostDelta, 0
		}
	}

	ply := s.ply
	moves := &s.moves[ply]
	cp, cd := &s.phi[ply], &s.delta[ply]
	if !isEmpty(oppThreat) {
		s.forced[ply] = attMover
		moves[0] = int8(lowest(oppThreat))
		cp[0], cd[0] = 1, uint32(e-1)
		return 0, 0, 1
	}
	// A move on a window lacking two stones of the side to move makes a
	// threat: the reply is forced.
	var makes set
	for i := range nt {
		makes = or(makes, s.threats[i])
	}
	// A cell on no window free of either side's stones is dead: a stone
	// there can never be part of a line, so every move to a dead cell leads
	// to a position of the same value, and one of them is searched.
	dead := withoutLowest(andNot(empty, live))
	cs := &s.cellScore
	weights(cs, g.Windows(), me, them, empty, 11, 3)
	sc := &s.scores
	for m := andNot(empty, dead); !isEmpty(m); m = withoutLowest(m) {
		c := int8(lowest(m))
		n = insert(moves, sc, n, c, cs[c])
	}
	for i := range n {
		cp[i], cd[i] = 1, uint32((e-1)*(4+i)/4)
		if has(makes, int(moves[i])) {
			cd[i] = 1
		}
	}
	return 0, 0, n
}

// pairable reports whether the defender, whose stones are def, has a
// pairing strategy: disjoint pairs of empty cells such that every window
// free of the defender's stones holds both cells of a pair.
// Then whenever the attacker plays a cell of a pair, the defender takes the
// other (it is still empty: the pairs are disjoint), and plays anywhere
// otherwise; every window of the attacker then gets a defender's stone
// before the attacker can fill it, so the attacker never completes a line,
// whoever is to move and whatever else happens (a line of the defender's
// only ends the game sooner). The search for pairs is complete within
// pairBudget steps and gives up after them: a "no" is not a proof of
// anything and only means the search goes on.
func (s *Solver) pairable(def, empty set) bool {
	pt := s.tt.pairs
	if pt == nil {
		return false // too many windows
	}
	var open [pairWords]uint64
	n := 0
	for i, w := range s.g.Windows() {
		if !isEmpty(and(w, def)) {
			continue
		}
		if atMostOne(and(w, empty)) {
			return false // fewer than two empty cells: no pair fits
		}
		open[i>>6] |= 1 << uint(i&63)
		n++
	}
	if n >= ones(empty) {
		// At least as many open windows as empty cells: a pairing is
		// rare there (not impossible), and on 8x8 nearly every such
		// search would fail after the full budget (BenchmarkProof885Budget).
		// Skipping a search is always sound.
		return false
	}
	s.pairSteps, s.pairEmpty = 0, empty
	return s.pairSearch(0, open, noCells)
}

// pairSearch covers the windows open (a set of indexes in g.windows) with
// disjoint pairs of empty cells avoiding the cells used: it takes the
// window with the fewest free cells (every solution covers it with a pair
// of its own cells), of those the one whose free cells the most open
// windows need, and tries each pair in it: those covering the most open
// windows first, then those whose cells the fewest other open windows
// need. The two tie-breaks find within the budget pairings that the first
// window of fewest free cells, with its pairs by coverage alone, misses,
// and so save nodes and time (BenchmarkProof775).
func (s *Solver) pairSearch(lv int, open [pairWords]uint64, used set) bool {
	pt, ws := s.tt.pairs, s.g.Windows()
	best, bestFree := s.pivot(&open, used)
	if best < 0 {
		s.pairLen = lv
		return true
	}
	if bestFree < 2 {
		return false // the last pair left a window without one
	}
	s.pairSteps++
	if s.pairSteps > pairBudget || lv == len(s.pairs) {
		return false
	}
	free := andNot(and(ws[best], s.pairEmpty), used)
	var pairs [pairMaxPairs]uint16 // indexes in pt.wins
	var cells [pairMaxPairs]set
	var cover [pairMaxPairs]int
	np := 0
	for a := free; !isEmpty(a); a = withoutLowest(a) {
		ca := lowest(a)
		for b := withoutLowest(a); !isEmpty(b); b = withoutLowest(b) {
			cb := lowest(b)
			pi := pt.index[ca][cb] // both cells are in window best
			c := 0
			for wi := range pairWords {
				c += bits.OnesCount64(open[wi] & pt.wins[pi][wi])
			}
			// Coverage first (at most 96 windows), then fewer other
			// windows through the two cells.
			d := 0
			for wi := range pairWords {
				rest := open[wi] &^ pt.wins[pi][wi]
				d += bits.OnesCount64(rest & pt.cellWins[ca][wi])
				d += bits.OnesCount64(rest & pt.cellWins[cb][wi])
			}
			c = c<<8 - d
			j := np
			for j > 0 && cover[j-1] < c {
				pairs[j], cells[j], cover[j] = pairs[j-1], cells[j-1], cover[j-1]
				j--
			}
			pairs[j], cells[j], cover[j] = pi, or(bit(ca), bit(cb)), c
			np++
		}
	}
	for i := range np {
		next := open
		for wi := range pairWords {
			next[wi] &^= pt.wins[pairs[i]][wi]
		}
		s.pairs[lv] = cells[i]
		if s.pairSearch(lv+1, next, or(used, cells[i])) {
			return true
		}
		if s.pairSteps > pairBudget {
			return false
		}
	}
	return false
}

// pairTable holds, for every two cells on a common window, the windows
// (indexes in g.windows, as a bitset) that hold both: what one pair
// covers; and for every cell the windows through it. With it a step of the
// pairing search costs a few ANDs and popcounts per window instead of a
// scan of the window list per pair.
type pairTable struct {
	index    [maxCells][maxCells]uint16 // index[a][b], a < b: the pair's entry in wins
	wins     [][pairWords]uint64
	cellWins [maxCells][pairWords]uint64
}

// newPairTable returns the pair table of g, or nil if g has more windows
// than a bitset holds.
func newPairTable(g *game) *pairTable {
	if len(g.Windows()) > pairWords*64 {
		return nil
	}
	pt := &pairTable{wins: make([][pairWords]uint64, 1)} // entry 0: no window
	for i, w := range g.Windows() {
		for m := w; !isEmpty(m); m = withoutLowest(m) {
			pt.cellWins[lowest(m)][i>>6] |= 1 << uint(i&63)
		}
	}
	for a := range maxCells {
		for b := a + 1; b < maxCells; b++ {
			var both [pairWords]uint64
			any := false
			for i, w := range g.Windows() {
				if has(w, a) && has(w, b) {
					both[i>>6] |= 1 << uint(i&63)
					any = true
				}
			}
			if any {
				pt.index[a][b] = uint16(len(pt.wins))
				pt.wins = append(pt.wins, both)
			}
		}
	}
	return pt
}

// pollMaskPNS sets how often the search polls its context: every 2^12
// nodes. A node reads the table for each of its children, so it costs
// several alpha-beta nodes, and polls come about as often in time as the
// alpha-beta solver's every 2^14.
const pollMaskPNS = 1<<12 - 1

// mid searches the current position (ongoing, the last move made no line)
// until its phi reaches thPhi or its delta thDelta, and returns them; known
// says the table holds the position.
func (s *Solver) mid(thPhi, thDelta uint32, known bool) (uint32, uint32) {
	if s.nodes == s.limit {
		s.abort, s.limited = true, true
		return 1, 1
	}
	s.nodes++
	if s.nodes&pollMaskPNS == 0 && s.ctx.Err() != nil {
		s.abort = true
	}
	if s.abort {
		return 1, 1
	}
	start := s.nodes
	canon, sym := s.canonical()
	phi, delta, n := s.evaluate(known)
	if n == 0 {
		// evaluate set the zone of a position it decided for the
		// defender, fullZone otherwise (and always without zones).
		z := s.zone[s.ply]
		s.tt.store(canon.X, canon.O, s.attX, phi, delta, -1, 1, s.toFrame(z, sym), s.zones && z != fullZone)
		return phi, delta
	}
	g, ply := s.g, s.ply
	moves, cp, cd, seen := &s.moves[ply], &s.phi[ply], &s.delta[ply], &s.seen[ply]
	xToMove := ply&1 == 0
	attMover := s.attX == xToMove
	cz, pruned := &s.czone[ply], &s.pruned[ply]
	for i := range n {
		c, csym := g.ChildCanonical(&s.im, g.NumSymmetries(), int(moves[i]), xToMove)
		var p, d uint32
		var z set
		var zoned bool
		cz[i], pruned[i] = fullZone, false
		if p, d, _, z, zoned, seen[i] = s.tt.probeZone(c.X, c.O, s.attX); seen[i] {
			cp[i], cd[i] = p, d
			if zoned && s.zones {
				cz[i] = s.fromFrame(z, csym)
			}
		}
	}
	if s.zones && attMover {
		s.skipOutside(n)
	}
	best := 0
	for {
		// phi = min delta(c), delta = sum phi(c) (saturating below
		// infinity unless a child's phi is infinite).
		best = 0
		d1, d2 := uint32(proofInf), uint32(proofInf)
		var sum uint64
		inf := false
		for i := range n {
			if d := cd[i]; d < d1 {
				d2, d1, best = d1, d, i
			} else if d < d2 {
				d2 = d
			}
			if cp[i] == proofInf {
				inf = true
			}
			sum += uint64(cp[i])
		}
		phi = d1
		switch {
		case inf:
			delta = proofInf
		case sum >= proofInf:
			delta = proofInf - 1
		default:
			delta = uint32(sum)
		}
		if phi >= thPhi || delta >= thDelta || phi == 0 || delta == 0 {
			break
		}
		// The child's phi may grow by what the parent's delta has left;
		// its delta up to the second best's times 1+1/4 (at least one
		// more), or the parent's phi threshold.
		cth := uint64(thDelta) - uint64(delta) + uint64(cp[best])
		childPhi := uint32(min(cth, proofInf))
		childDelta := uint32(min(uint64(thPhi), uint64(d2)+1+uint64(d2)/4, proofInf))
		c := int(moves[best])
		s.make(c)
		cp[best], cd[best] = s.mid(childPhi, childDelta, seen[best])
		seen[best] = true
		z := s.zone[ply+1]
		s.unmake(c)
		if s.abort {
			return phi, delta
		}
		if s.zones {
			// A child proven for the defender: its zone, and for the
			// attacker to move, the moves it makes needless.
			if attMover && cp[best] == 0 || !attMover && cd[best] == 0 {
				s.czone[ply][best] = z
				if attMover {
					s.skipOutside(n)
				}
			}
		}
	}
	z := fullZone
	if s.zones && (attMover && delta == 0 || !attMover && phi == 0) {
		z = s.nodeZone(n, attMover, best)
	}
	s.zone[ply] = z
	move := int(g.MapCell(sym, int(moves[best])))
	s.tt.store(canon.X, canon.O, s.attX, phi, delta, move, s.nodes-start+1, s.toFrame(z, sym), z != fullZone)
	return phi, delta
}

// pairing returns a pairing of the defender (X if defX) at p, found by the
// pairing search on each image of p in turn, since an image can succeed
// where another fails within the budget: the pairs as sets of two cells in
// p's frame, or false.
func (s *Solver) pairing(p position, defX bool) ([]set, bool) {
	return s.onImages(p, defX, s.pairable, func() []set { return s.pairs[:s.pairLen] })
}

// onImages runs find, a search of the defender's (X if defX) stones and
// the empty cells, on each image of p in turn, and returns what found
// gives once one succeeds, sets of cells mapped back to p's frame.
func (s *Solver) onImages(p position, defX bool, find func(def, empty set) bool, found func() []set) ([]set, bool) {
	g := s.g
	im, n := g.Images(p)
	for sym := range n {
		q := im[sym]
		def := q.O
		if defX {
			def = q.X
		}
		if !find(def, g.Empty(q)) {
			continue
		}
		sets := found()
		out := make([]set, len(sets))
		for i, cells := range sets {
			for m := cells; !isEmpty(m); m = withoutLowest(m) {
				out[i] = or(out[i], bit(int(g.UnmapCell(sym, lowest(m)))))
			}
		}
		return out, true
	}
	return nil, false
}

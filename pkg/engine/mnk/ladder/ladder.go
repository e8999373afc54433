// Package ladder measures where plain game-tree search stops being
// practical on m,n,k-games. Each rung of the ladder solves the empty board
// with one idea more than the rung before, and counts its nodes, the calls
// of its search function, root included. Every rung scores a position
// whose last move completed k in a row -1 for the side to move and a full
// board 0, from inside the call (so terminal positions are nodes: minimax
// on 3x3 visits the 549,946 nodes of the game tree).
//
//   - minimax: negamax over every move in row-major order, no pruning.
//   - alphabeta: negamax over {-1, 0, +1} with the root window (-1, +1),
//     fail-hard, row-major: for each move v = -node(child, -beta, -alpha);
//     if v >= beta return beta; if v > alpha then alpha = v; after the
//     moves return alpha.
//   - ordered: alphabeta with the moves ordered by the number of k-windows
//     through their cell, most first, ties row-major.
//   - tt: ordered plus a transposition table keyed by the exact position,
//     holding the value, whether it is exact, a lower or an upper bound,
//     and the best move, which is tried first.
//   - symmetry: tt keyed by the canonical position under the board's
//     symmetries (the best move kept in the canonical frame).
//   - solver: the exact alpha-beta solver of mnk solve (solve.Solver), with
//     its own pruning, ordering, threat tests and table.
//   - pns: the proof-number solver (pns.Solver): df-pn asking "does X
//     win?" then "does O win?", with its threat rules and pairings. Its
//     nodes are the calls of its search function over both questions (a
//     node reads the table for each of its children, so a pns node costs
//     more than an alpha-beta one); its table entries are the (question,
//     position) pairs it holds.
//   - zones: pns with relevance zones (pns.Solver.SetZones): an attacker's
//     move outside the zone of a refuted sibling needs no search.
//   - matching: zones plus set matching (pns.Solver.SetMatching): where
//     no pairing is found, disjoint blocks of cells whose small
//     Maker-Breaker games the defender wins prove the attacker cannot
//     complete a line.
//
// Node counts are deterministic: the same rung on the same board with the
// same table size and budget counts the same nodes on every machine.
//
// The ladder is a study harness, not an engine that players use. It sits
// beside the engines it measures, pure and without I/O, so that the
// mnk.sweep job kind can run its rungs in a worker; drawing and writing up
// what a sweep finds is left to cmd/analyze.
package ladder

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
)

// Rungs lists the ladder's rungs in order: each adds one idea to the one
// before.
var Rungs = []string{"minimax", "alphabeta", "ordered", "tt", "symmetry", "solver", "pns", "zones", "matching"}

// ErrUnknownRung is the error of a rung not in Rungs.
var ErrUnknownRung = errors.New("unknown rung")

// Limits bound one run of a rung.
type Limits struct {
	// Nodes stops the run after this many nodes (0: no limit).
	Nodes uint64
	// TTBytes is the size of the table of tt, symmetry, solver and pns (0:
	// 64 MB).
	TTBytes int
}

// Result is what one run of a rung found.
type Result struct {
	// Value is the value of the empty board for the first player;
	// meaningless if Stopped.
	Value mnk.Value
	// Nodes counts the calls of the search function, root included.
	Nodes uint64
	// TableEntries is the number of positions the table holds at the end
	// (0 for rungs without one).
	TableEntries uint64
	// Stopped says that the node budget or ctx ended the run first.
	Stopped bool
}

// DefaultTTBytes is the table size of a rung when Limits.TTBytes is 0.
const DefaultTTBytes = 64 << 20

// Run solves g from the empty board with one rung. A run stopped by the
// node budget or by ctx (a deadline) returns Stopped with the nodes reached
// and a nil error. The solver rung takes at most solve.MaxCells cells (an
// error wrapping ErrTooBig); pns takes every board.
func Run(ctx context.Context, g *mnk.Game, rung string, lim Limits) (Result, error) {
	if err := Takes(g, rung); err != nil {
		return Result{}, err
	}
	ttBytes := rungTableBytes(g, lim)
	switch rung {
	case "solver":
		s := solve.New(g, ttBytes)
		return runExactRung(ctx, s, lim.Nodes, s.Table().Entries)
	case "pns", "zones", "matching":
		s := pns.New(g, ttBytes)
		s.SetZones(rung != "pns")
		s.SetMatching(rung == "matching")
		return runExactRung(ctx, s, lim.Nodes, s.Table().Entries)
	}
	r := &rungSearch{g: g, ctx: ctx, limit: lim.Nodes}
	if r.limit == 0 {
		r.limit = ^uint64(0)
	}
	r.n = 0
	for c := range 64 {
		if g.Mask()>>c&1 != 0 {
			r.order[r.n] = int8(c)
			r.n++
		}
	}
	if rung != "minimax" && rung != "alphabeta" {
		// Most windows first; the sort is stable, so ties stay row-major.
		slices.SortStableFunc(r.order[:r.n], func(a, b int8) int {
			return windowsThrough(g, int(b)) - windowsThrough(g, int(a))
		})
	}
	if rung == "tt" || rung == "symmetry" {
		n := 1
		for n*2*rungEntrySize <= ttBytes {
			n *= 2
		}
		r.tt = make([]rungEntry, n)
		r.mask = uint64(n - 1)
		r.sym = rung == "symmetry"
	}
	var v int8
	switch rung {
	case "minimax":
		v = r.minimax(mnk.Position{}, -1, true)
	case "alphabeta", "ordered":
		v = r.alphabeta(mnk.Position{}, -1, true, -1, 1)
	default:
		v = r.ttSearch(mnk.Position{}, -1, true, -1, 1)
	}
	res := Result{Value: mnk.Value(v), Nodes: r.nodes, TableEntries: r.entries, Stopped: r.stop}
	if res.Stopped {
		res.Value = 0
	}
	return res, nil
}

// Takes returns nil if Run can run rung on g, else why not: an
// error wrapping ErrUnknownRung or mnk.ErrTooBig (the
// solver takes at most solve.MaxCells cells).
func Takes(g *mnk.Game, rung string) error {
	switch {
	case !slices.Contains(Rungs, rung):
		return fmt.Errorf("%q: %w (want one of %v)", rung, ErrUnknownRung, Rungs)
	case rung == "solver" && g.Cells() > solve.MaxCells:
		return fmt.Errorf("solver: %s has %d cells, more than %d: %w", g.Spec(), g.Cells(), solve.MaxCells, mnk.ErrTooBig)
	}
	return nil
}

// rungTableBytes is the size of a rung's table: lim.TTBytes (or the
// default), but no more than twice what the run can fill, the nodes of its
// budget or the positions of the board (3^cells), so that a run on a small
// board does not spend its time clearing 64 MB. The size depends on the
// board and the limits only, so node counts stay deterministic.
func rungTableBytes(g *mnk.Game, lim Limits) int {
	ttBytes := lim.TTBytes
	if ttBytes == 0 {
		ttBytes = DefaultTTBytes
	}
	fill := uint64(1)
	for range g.Cells() {
		if fill > 1<<40 {
			break
		}
		fill *= 3
	}
	if lim.Nodes > 0 {
		fill = min(fill, lim.Nodes)
	}
	if need := 2 * fill * rungEntrySize; need < uint64(ttBytes) {
		ttBytes = int(max(need, 1<<10))
	}
	return ttBytes
}

// exactSolver is what the solver and pns rungs run: solve.Solver and pns.Solver.
type exactSolver interface {
	SetNodeLimit(n uint64)
	Solve(ctx context.Context, p mnk.Position) (mnk.Value, error)
	Nodes() uint64
}

// runExactRung runs s from the empty board; entries counts its table's
// positions at the end.
func runExactRung(ctx context.Context, s exactSolver, limit uint64, entries func() uint64) (Result, error) {
	s.SetNodeLimit(limit)
	v, err := s.Solve(ctx, mnk.Position{})
	res := Result{Value: v, Nodes: s.Nodes(), TableEntries: entries()}
	if err != nil {
		if !errors.Is(err, mnk.ErrNodeLimit) && ctx.Err() == nil {
			return Result{}, err
		}
		res.Value, res.Stopped = 0, true
	}
	return res, nil
}

// windowsThrough returns the number of k-windows through cell.
func windowsThrough(g *mnk.Game, cell int) int {
	n := 0
	for _, w := range g.Windows() {
		n += int(w >> uint(cell) & 1)
	}
	return n
}

// rungSearch runs the rungs minimax to symmetry.
type rungSearch struct {
	g     *mnk.Game
	ctx   context.Context
	limit uint64
	nodes uint64
	stop  bool

	order [64]int8 // the cells in the rung's move order
	n     int

	tt      []rungEntry
	mask    uint64
	entries uint64
	sym     bool
}

// rungEntry is a slot of the table of tt and symmetry: the full key, so
// that no collision lends one position's value to another.
type rungEntry struct {
	x, o uint64
	val  int8
	flag uint8 // 0: empty
	move int8  // best move in the key's frame, or -1
}

const (
	rungEntrySize = 24

	exactBound = 1
	lowerBound = 2 // the value is at least val
	upperBound = 3 // the value is at most val
)

// enter counts a node; it reports false, and stops the search, when the
// budget is spent. ctx is polled every 65,536 nodes.
func (r *rungSearch) enter() bool {
	if r.stop {
		return false
	}
	if r.nodes == r.limit {
		r.stop = true
		return false
	}
	r.nodes++
	if r.nodes&0xffff == 0 && r.ctx.Err() != nil {
		r.stop = true
	}
	return true
}

// terminal scores p if the game is over: -1 for the side to move if the
// last move (on cell last, by the other side) completed a line, 0 if the
// board is full.
func (r *rungSearch) terminal(p mnk.Position, last int, xToMove bool) (int8, bool) {
	if last >= 0 {
		mover := p.X
		if xToMove {
			mover = p.O
		}
		if r.g.LineThrough(mover, last) {
			return -1, true
		}
	}
	if r.g.Mask()&^(p.X|p.O) == 0 {
		return 0, true
	}
	return 0, false
}

func play(p mnk.Position, cell int, xToMove bool) mnk.Position {
	if xToMove {
		p.X |= 1 << uint(cell)
	} else {
		p.O |= 1 << uint(cell)
	}
	return p
}

func (r *rungSearch) minimax(p mnk.Position, last int, xToMove bool) int8 {
	if !r.enter() {
		return 0
	}
	if v, ok := r.terminal(p, last, xToMove); ok {
		return v
	}
	best := int8(-2)
	occupied := p.X | p.O
	for _, c := range r.order[:r.n] {
		if occupied>>c&1 != 0 {
			continue
		}
		v := -r.minimax(play(p, int(c), xToMove), int(c), !xToMove)
		if r.stop {
			return 0
		}
		best = max(best, v)
	}
	return best
}

func (r *rungSearch) alphabeta(p mnk.Position, last int, xToMove bool, alpha, beta int8) int8 {
	if !r.enter() {
		return 0
	}
	if v, ok := r.terminal(p, last, xToMove); ok {
		return v
	}
	occupied := p.X | p.O
	for _, c := range r.order[:r.n] {
		if occupied>>c&1 != 0 {
			continue
		}
		v := -r.alphabeta(play(p, int(c), xToMove), int(c), !xToMove, -beta, -alpha)
		if r.stop {
			return 0
		}
		if v >= beta {
			return beta
		}
		if v > alpha {
			alpha = v
		}
	}
	return alpha
}

// slot returns the table slot of key.
func (r *rungSearch) slot(key mnk.Position) *rungEntry {
	h := key.X*0x9e3779b97f4a7c15 ^ key.O*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return &r.tt[h&r.mask]
}

// store records a bound of key's value and its best move (in key's frame,
// -1 if none), intersected with what the slot knows of the same key; else
// it replaces the slot.
func (r *rungSearch) store(key mnk.Position, val int8, flag uint8, move int8) {
	e := r.slot(key)
	if e.flag == 0 {
		r.entries++
	} else if e.x == key.X && e.o == key.O {
		lo, hi := bounds(val, flag)
		olo, ohi := bounds(e.val, e.flag)
		lo, hi = max(lo, olo), min(hi, ohi)
		switch {
		case lo == hi:
			val, flag = lo, exactBound
		case lo > -1:
			val, flag = lo, lowerBound
		default:
			val, flag = hi, upperBound
		}
		if move < 0 {
			move = e.move
		}
	}
	*e = rungEntry{x: key.X, o: key.O, val: val, flag: flag, move: move}
}

// bounds returns the interval of values that a bound allows.
func bounds(val int8, flag uint8) (lo, hi int8) {
	switch flag {
	case exactBound:
		return val, val
	case lowerBound:
		return val, 1
	}
	return -1, val
}

func (r *rungSearch) ttSearch(p mnk.Position, last int, xToMove bool, alpha, beta int8) int8 {
	if !r.enter() {
		return 0
	}
	if v, ok := r.terminal(p, last, xToMove); ok {
		return v
	}
	key, sym := p, 0
	if r.sym {
		key, sym = r.g.CanonicalSym(p)
	}
	first := -1
	if e := r.slot(key); e.flag != 0 && e.x == key.X && e.o == key.O {
		v := e.val
		switch e.flag {
		case exactBound:
			return min(max(v, alpha), beta)
		case lowerBound:
			if v >= beta {
				return beta
			}
			alpha = max(alpha, v)
		case upperBound:
			if v <= alpha {
				return alpha
			}
			beta = min(beta, v)
		}
		if e.move >= 0 {
			first = int(e.move)
			if r.sym {
				first = int(r.g.UnmapCell(sym, first))
			}
		}
	}
	frame := func(c int) int8 {
		if r.sym {
			return r.g.MapCell(sym, c)
		}
		return int8(c)
	}
	alpha0, best := alpha, -1
	occupied := p.X | p.O
	for i := -1; i < r.n; i++ {
		c := first
		if i >= 0 {
			c = int(r.order[i])
			if c == first {
				continue
			}
		}
		if c < 0 || occupied>>c&1 != 0 {
			continue
		}
		v := -r.ttSearch(play(p, c, xToMove), c, !xToMove, -beta, -alpha)
		if r.stop {
			return 0
		}
		if v >= beta {
			r.store(key, beta, lowerBound, frame(c))
			return beta
		}
		if v > alpha {
			alpha, best = v, c
		}
	}
	if alpha > alpha0 {
		r.store(key, alpha, exactBound, frame(best))
	} else {
		r.store(key, alpha, upperBound, -1)
	}
	return alpha
}

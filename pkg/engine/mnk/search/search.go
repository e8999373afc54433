// Package search is the depth-limited search of m,n,k-games, for boards too
// big to solve: iterative deepening alpha-beta with a heuristic over the
// k-windows and exact mate scores (Searcher), and the same on boards of up
// to 19x19 (BigGame, BigSearcher).
package search

import (
	"context"
	"math/bits"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/order"
)

// The depth-limited search is a negamax alpha-beta to a fixed depth with
// iterative deepening, for boards too big to solve. The frontier is scored
// by a heuristic over the k-windows: a window with no enemy stone is worth
// 4^s to a side with s stones on it (so a window one stone from complete is
// worth four of the next best), and the score is the side to move's total
// minus the opponent's. The exact facts of the solver (a line completed at
// once, two enemy threats, a forced block) are applied at every node, and
// a line completed inside the horizon scores Mate minus its distance, so
// forced wins and losses are found and measured in plies.
//
// Each iteration searches the previous iteration's principal variation
// first, then the table's move, then the other moves by the window weights
// of the solver. The table is keyed by the canonical position (full keys)
// and an entry is used for a cutoff only at the depth it was searched to,
// so the score of a search is the same with the table as without it (the
// tests check it); entries of other depths still give their move. The
// table saves most of the nodes of a deep search (BenchmarkSearch885
// against BenchmarkSearch885NoTable). Mate scores are
// stored relative to the entry's position. An entry whose exact score lies
// inside the window is not used to cut either: the search passes through to
// keep the principal variation whole.

// Mate bounds the scores: a line completed N plies from the searched
// position (N = 1: the side to move completes it now) scores Mate - N for
// the side that completes it, and -(Mate - N) for the other. Heuristic
// scores stay far below Mate - 64.
const Mate = 1 << 30

// Iteration is one completed iteration of a Search.
type Iteration struct {
	Depth   int     `json:"depth"`
	Score   int     `json:"score"`
	Move    int     `json:"move"`
	PV      []int   `json:"pv"`
	Nodes   uint64  `json:"nodes"`
	Seconds float64 `json:"seconds"`
	// EBF is the effective branching factor: the nodes of this iteration
	// over those of the previous one (0 for the first).
	EBF float64 `json:"ebf"`
}

// Result is the outcome of a Search: the last completed iteration's
// move, score and principal variation, and all the iterations.
type Result struct {
	Move  int
	Score int
	PV    []int
	Depth int // depth of the last completed iteration
	// Exhaustive: the last completed iteration reached the end of every
	// line (its depth is the number of empty cells; there are no
	// reductions), so Score is exact: a draw if it is not a mate score.
	Exhaustive bool
	Nodes      uint64 // all iterations, the unfinished one included
	Elapsed    time.Duration
	Iterations []Iteration
}

// MatePlies returns N > 0 if Score is a forced win in N plies for the side
// to move, -N for a forced loss in N plies, and 0 otherwise.
func (r Result) MatePlies() int {
	switch {
	case r.Score > Mate-64:
		return Mate - r.Score
	case r.Score < -(Mate - 64):
		return -(Mate + r.Score)
	}
	return 0
}

// Searcher runs depth-limited searches. It is not safe for concurrent use.
type Searcher struct {
	g     *mnk.Game
	k1    int
	tt    []searchEntry
	mask  uint64
	gen   uint8 // entries of other generations are empty (see Clear)
	pos   mnk.Position
	ply   int // plies from the searched position
	nodes uint64

	ctx      context.Context
	deadline time.Time
	abort    bool

	pv     [65][64]int8 // pv[d][d:pvLen[d]]: the line from distance d
	pvLen  [65]int
	prevPV []int
	onPV   [65]bool // the moves to this distance are prevPV's
	moves  [65][64]int8
	scores [65][64]int32
	cs     [64]int32
}

// searchEntry is a slot of the search's table: the full canonical key, the
// score (mate scores relative to this position), its bound, the depth it
// was searched to, the best move in the canonical frame and the generation
// of the table that wrote it.
type searchEntry struct {
	x, o  uint64
	score int32
	depth int8
	bound int8 // 0: empty, else boundLower, boundUpper or boundExact
	move  int8
	gen   uint8
}

// New returns a searcher for g with a transposition table of at
// most ttBytes bytes (a power of two of 24-byte entries); ttBytes < 24
// turns the table off.
func New(g *mnk.Game, ttBytes int) *Searcher {
	s := &Searcher{g: g, k1: g.K - 1}
	if ttBytes >= 24 {
		n := 1
		for n*2*24 <= ttBytes {
			n *= 2
		}
		s.tt = make([]searchEntry, n)
		s.mask = uint64(n - 1)
	}
	return s
}

// Search searches p (valid, not over) by iterative deepening to maxDepth
// plies (0: to the end of the game) or until budget runs out (0: no
// budget), whichever comes first, and returns the result of the last
// completed iteration (always at least depth 1, which is never cut short
// by the budget). It returns ctx's error if ctx is done first.
func (s *Searcher) Search(ctx context.Context, p mnk.Position, maxDepth int, budget time.Duration) (Result, error) {
	s.ctx, s.abort, s.deadline = ctx, false, time.Time{}
	if s.g.Status(p) != mnk.Ongoing {
		return Result{Move: -1}, nil
	}
	empties := bits.OnesCount64(s.g.Empty(p))
	return deepen(ctx, maxDepth, empties, true, budget, &s.nodes, &s.abort, &s.deadline, &s.prevPV,
		func(depth int) (int32, []int) {
			s.pos, s.ply, s.onPV[0] = p, 0, true
			score := s.search(depth, -Mate-1, Mate+1)
			return score, ints(s.pv[0][:s.pvLen[0]])
		})
}

// ints is a principal variation of cells as ints.
func ints[T int8 | int16](line []T) []int {
	out := make([]int, len(line))
	for i, c := range line {
		out[i] = int(c)
	}
	return out
}

// deepen is the iterative deepening of Searcher and BigSearcher: iteration
// d searches the root to depth d (root, which returns the score and the
// principal variation), from 1 to maxDepth (at most empties; 0: empties),
// until the searcher aborts (it sets *abort: ctx is done, or *deadline,
// set to the budget from the start after the first iteration, has passed)
// or a forced result is proven inside the horizon. *prevPV is the last
// iteration's line, which the next one searches first; exhaustive says
// whether a search to empties plies reaches the end of every line.
func deepen(ctx context.Context, maxDepth, empties int, exhaustive bool, budget time.Duration, nodes *uint64, abort *bool,
	deadline *time.Time, prevPV *[]int, root func(depth int) (int32, []int)) (Result, error) {
	start, startNodes := time.Now(), *nodes
	if maxDepth <= 0 || maxDepth > empties {
		maxDepth = empties
	}
	res := Result{Move: -1}
	*prevPV = (*prevPV)[:0]
	for d := 1; d <= maxDepth; d++ {
		if d > 1 && budget > 0 {
			*deadline = start.Add(budget)
		}
		before := *nodes
		t0 := time.Now()
		score, pv := root(d)
		if *abort {
			break
		}
		it := Iteration{Depth: d, Score: int(score), Move: pv[0], PV: pv, Nodes: *nodes - before, Seconds: time.Since(t0).Seconds()}
		if n := len(res.Iterations); n > 0 && res.Iterations[n-1].Nodes > 0 {
			it.EBF = float64(it.Nodes) / float64(res.Iterations[n-1].Nodes)
		}
		res.Iterations = append(res.Iterations, it)
		res.Move, res.Score, res.PV, res.Depth = it.Move, it.Score, it.PV, d
		res.Exhaustive = exhaustive && d == empties
		*prevPV = append((*prevPV)[:0], it.PV...)
		if res.MatePlies() != 0 && abs(res.MatePlies()) <= d {
			break // proven inside the horizon: deeper cannot change it
		}
	}
	res.Nodes = *nodes - startNodes
	res.Elapsed = time.Since(start)
	if *abort && ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Nodes returns the number of positions searched by all calls.
func (s *Searcher) Nodes() uint64 { return s.nodes }

// Clear empties the table, so that the next search is the one a new
// Searcher would make: the same moves, scores and nodes. It starts a new
// generation of entries (the entries of other generations are empty)
// rather than zeroing the table, which for a small search can cost more
// than the search; every 256th call zeroes it.
func (s *Searcher) Clear() {
	s.gen++
	if s.gen == 0 {
		clear(s.tt)
	}
}

func (s *Searcher) search(depth int, alpha, beta int32) int32 {
	s.nodes++
	s.pvLen[s.ply] = s.ply
	if s.nodes&pollMask == 0 && (s.ctx.Err() != nil || !s.deadline.IsZero() && time.Now().After(s.deadline)) {
		s.abort = true
	}
	if s.abort {
		return 0
	}
	g := s.g
	me, them := s.pos.X, s.pos.O
	ply := s.ply
	if (s.pos.Ply())&1 == 1 {
		me, them = them, me
	}
	empty := g.Mask() &^ (me | them)
	if empty == 0 {
		return 0
	}
	var oppThreat uint64
	var eval int32
	for _, w := range g.Windows() {
		a, b := w&me, w&them
		if b == 0 {
			n := bits.OnesCount64(a)
			if n == s.k1 {
				s.pv[ply][ply] = int8(bits.TrailingZeros64(w &^ me))
				s.pvLen[ply] = ply + 1
				return Mate - int32(ply+1)
			}
			eval += 1 << (2 * n)
		}
		if a == 0 {
			n := bits.OnesCount64(b)
			if n == s.k1 {
				oppThreat |= w &^ them
			}
			eval -= 1 << (2 * n)
		}
	}
	if oppThreat&(oppThreat-1) != 0 {
		// Two threats: whatever we play, the opponent completes a line
		// with its next move.
		c := int8(bits.TrailingZeros64(oppThreat))
		s.pv[ply][ply], s.pv[ply][ply+1] = c, int8(bits.TrailingZeros64(oppThreat&^(1<<uint(c))))
		s.pvLen[ply] = ply + 2
		return -(Mate - int32(ply+2))
	}
	if depth == 0 {
		return eval
	}
	var key mnk.Position
	var sym int
	var entry *searchEntry
	ttMove := -1
	if s.tt != nil {
		key, sym = g.CanonicalSym(s.pos)
		entry = &s.tt[hash(key)&s.mask]
		if entry.bound != 0 && entry.gen == s.gen && entry.x == key.X && entry.o == key.O {
			if entry.move >= 0 {
				ttMove = s.inverse(sym, int(entry.move))
			}
			if int(entry.depth) == depth {
				if sc := fromTable(entry.score, ply); cuts(entry.bound, sc, alpha, beta) {
					return sc
				}
			}
		}
	}
	alpha0 := alpha

	moves := &s.moves[ply]
	n := 0
	if oppThreat != 0 {
		moves[0] = int8(bits.TrailingZeros64(oppThreat))
		n = 1
	} else {
		pvMove := -1
		if s.onPV[ply] && ply < len(s.prevPV) {
			pvMove = s.prevPV[ply]
		}
		sc := &s.scores[ply]
		cs := &s.cs
		order.Weights(cs, g.Windows(), me, them, empty, 4, 3)
		for e := empty; e != 0; e &= e - 1 {
			c := int8(bits.TrailingZeros64(e))
			v := cs[c]
			switch int(c) {
			case pvMove:
				v = 1 << 30
			case ttMove:
				v = 1 << 29
			}
			n = order.Insert(moves, sc, n, c, v)
		}
	}

	best, bestMove := int32(-Mate-1), -1
	xToMove := s.pos.XToMove()
	for i := range n {
		c := int(moves[i])
		saved := s.pos
		if xToMove {
			s.pos.X |= 1 << uint(c)
		} else {
			s.pos.O |= 1 << uint(c)
		}
		s.ply++
		s.onPV[ply+1] = s.onPV[ply] && ply < len(s.prevPV) && c == s.prevPV[ply]
		v := -s.search(depth-1, -beta, -alpha)
		s.ply--
		s.pos = saved
		if s.abort {
			return 0
		}
		if v > best {
			best, bestMove = v, c
			if v > alpha {
				alpha = v
				s.pv[ply][ply] = int8(c)
				copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
				s.pvLen[ply] = s.pvLen[ply+1]
				if alpha >= beta {
					break
				}
			}
		}
	}
	if entry != nil {
		// Always replace: the newest entry is the one the next
		// iteration's ordering needs.
		*entry = searchEntry{key.X, key.O, toTable(best, ply), int8(depth), boundOf(best, alpha0, beta), g.MapCell(sym, bestMove), s.gen}
	}
	return best
}

// inverse maps a cell of the canonical frame (symmetry sym of the current
// position) back to the current position's frame.
func (s *Searcher) inverse(sym, cell int) int {
	for c := range 64 {
		if int(s.g.MapCell(sym, c)) == cell {
			return c
		}
	}
	return -1
}

// The bound of a table entry's score (0: an empty entry).
const (
	boundLower int8 = 1 + iota // the score is at least this
	boundUpper                 // at most this
	boundExact
)

// boundOf is the bound of best, the score of a node searched with the
// window (alpha0, beta).
func boundOf(best, alpha0, beta int32) int8 {
	switch {
	case best <= alpha0:
		return boundUpper
	case best >= beta:
		return boundLower
	}
	return boundExact
}

// cuts tells whether a table score sc with its bound settles a node
// searched with the window (alpha, beta).
func cuts(bound int8, sc, alpha, beta int32) bool {
	switch bound {
	case boundLower:
		return sc >= beta
	case boundUpper:
		return sc <= alpha
	case boundExact:
		return sc <= alpha || sc >= beta
	}
	return false
}

// toTable makes a mate score relative to the position at distance ply from
// the searched one; fromTable undoes it.
func toTable(score int32, ply int) int32 {
	switch {
	case score > Mate-64:
		return score + int32(ply)
	case score < -(Mate - 64):
		return score - int32(ply)
	}
	return score
}

func fromTable(score int32, ply int) int32 {
	switch {
	case score > Mate-64:
		return score - int32(ply)
	case score < -(Mate - 64):
		return score + int32(ply)
	}
	return score
}

// pollMask sets how often a search polls its context and its deadline:
// every 2^14 nodes.
const pollMask = 1<<14 - 1

// hash mixes the canonical key for the table index.
func hash(p mnk.Position) uint64 {
	h := p.X*0x9e3779b97f4a7c15 ^ (p.O+0x632be59bd9b4e019)*0xc2b2ae3d27d4eb4f
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// Package oracle knows the exact value and the distance to the end of every
// position of m,n,k-games of up to 16 cells (Oracle): the search behind
// the perfect player.
package oracle

import (
	"context"
	"fmt"
	"math/bits"
	"sync"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// The oracle is the exact search behind the perfect player: for every
// position it meets it knows the value and the distance to the end of the
// game when both sides play perfectly, which the solver (three values,
// alpha-beta, bounds in its table) does not: "perfect" takes the quickest
// win and the slowest loss, so it needs the distance of every move.
//
// It is a plain memoised negamax over distance-to-end scores, with no
// alpha-beta: the player asks for the exact score of every move, and a
// bound would have to be searched again to become one. A position's score,
// for the side to move, is Cells+1-d for a win in d plies, 0 for a draw and
// -(Cells+1-d) for a loss in d plies; higher is better, and a move's score
// for the side that plays it follows from the score of the position it
// leads to by one step (see back). A draw with perfect play fills the
// board (a line ends the game with a win), so its distance is the number of
// empty cells.
//
// Four facts of the window scan settle positions without searching them,
// and exactly, distances included (the solver uses the same ones for
// values): a line completed now wins in 1; two cells where the opponent
// would complete lines lose in 2; one such cell forces the block (every
// other move loses in 2, the block cannot: the opponent then has no line to
// complete); and of the dead cells (on no window free of either side) only
// one is searched, since the games after two of them are the same games
// with the two cells swapped. Positions settled by the first two facts are
// not memoised: the scan that finds them again is cheaper than the memory.
//
// The memo is an open-addressing table of 8-byte slots keyed by the packed
// canonical position (Pack): 1<<63 | key<<8 | score. Boards of up to 16
// cells pack into 32 bits, so a slot holds the whole key and no collision
// can lend one position's score to another.

// MaxCells is the largest board the oracle takes: 16 cells (4x4,
// 2x8, 3x5), whose positions pack into 32 bits.
const MaxCells = 16

// Perfect is a move with its exact value for the side that plays it and
// the number of plies from the position where it is played (the move
// included) to the end of the game, when both sides then play perfectly.
type Perfect struct {
	Cell  int
	Value mnk.Value
	Plies int
}

// Better reports whether m is a better move than n by the perfect player's
// rule: the better value; among wins the quicker, among losses the slower.
// Moves of the same value and distance are equal (neither is better).
func (m Perfect) Better(n Perfect) bool {
	if m.Value != n.Value {
		return m.Value > n.Value
	}
	switch m.Value {
	case mnk.Win:
		return m.Plies < n.Plies
	case mnk.Loss:
		return m.Plies > n.Plies
	}
	return false
}

// Oracle knows the exact value and distance to the end of every position
// of a game of up to MaxCells cells, computed on demand and
// memoised by canonical position for the life of the Oracle. It is safe
// for concurrent use: one Oracle can serve every perfect player of a
// process (a lock serialises the calls; once the memo holds a game, a call
// is a few lookups).
type Oracle struct {
	g  *mnk.Game
	mu sync.Mutex

	slots []uint64 // 0: empty; else 1<<63 | key<<8 | uint8(score)
	used  int
	shift uint // index = hash >> shift

	nodes uint64 // positions searched, all calls
	ctx   context.Context
	abort bool
}

// New returns an oracle for g, or an error wrapping ErrTooBig if g
// has more than MaxCells cells.
func New(g *mnk.Game) (*Oracle, error) {
	if g.Cells() > MaxCells {
		return nil, fmt.Errorf("oracle for %dx%d: %d cells, want at most %d: %w", g.Rows, g.Cols, g.Cells(), MaxCells, mnk.ErrTooBig)
	}
	o := &Oracle{g: g}
	o.slots = make([]uint64, 1<<minSlotBits)
	o.shift = 64 - minSlotBits
	return o, nil
}

// Game returns the oracle's game.
func (o *Oracle) Game() *mnk.Game { return o.g }

// Eval returns the exact value of p (valid) for the side to move and the
// number of plies to the end of the game with perfect play from both
// sides: Loss and 0 if the game is won (by the last mover), Drawn and 0 on
// a full board. It returns ctx's error if ctx is done before the value is
// known; what it has computed to the end stays memoised.
func (o *Oracle) Eval(ctx context.Context, p mnk.Position) (mnk.Value, int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch o.g.Status(p) {
	case mnk.XWin, mnk.OWin:
		return mnk.Loss, 0, nil
	case mnk.Draw:
		return mnk.Drawn, 0, nil
	}
	if err := o.start(ctx); err != nil {
		return 0, 0, err
	}
	cp, _ := o.g.CanonicalSym(p)
	s := o.eval(cp, p.Ply())
	if o.abort {
		return 0, 0, ctx.Err()
	}
	v, d := o.outcome(s, p.Ply())
	return v, d, nil
}

// Moves appends to buf[:0] every legal move of p (valid, not over) in
// row-major order with its value and distance (see Perfect) and returns
// it, with the number of positions searched to find them (0 when the memo
// already knew them all). It returns ctx's error if ctx is done first.
func (o *Oracle) Moves(ctx context.Context, p mnk.Position, buf []Perfect) ([]Perfect, uint64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	buf = buf[:0]
	g := o.g
	if g.Status(p) != mnk.Ongoing {
		return buf, 0, fmt.Errorf("moves of %s: the game is over", g.String(p))
	}
	if err := o.start(ctx); err != nil {
		return buf, 0, err
	}
	n0 := o.nodes
	ply, xToMove := p.Ply(), p.XToMove()
	im, nsym := g.Images(p)
	for e := g.Empty(p); e != 0; e &= e - 1 {
		c := bits.TrailingZeros64(e)
		_, r := g.Place(p, c, xToMove)
		var s int8
		switch r {
		case mnk.XWin, mnk.OWin:
			s = int8(g.Cells())
		case mnk.Draw:
			s = 0
		default:
			q, _ := g.ChildCanonical(&im, nsym, c, xToMove)
			s = back(o.eval(q, ply+1))
			if o.abort {
				return buf[:0], o.nodes - n0, ctx.Err()
			}
		}
		v, d := o.outcome(s, ply)
		buf = append(buf, Perfect{c, v, d})
	}
	return buf, o.nodes - n0, nil
}

// Best returns the perfect move of p (valid, not over): the best value;
// among equally good moves the quickest win and the slowest loss; then the
// first in row-major order. It also returns the number of positions
// searched to find it, and ctx's error if ctx is done first.
func (o *Oracle) Best(ctx context.Context, p mnk.Position) (Perfect, uint64, error) {
	var buf [64]Perfect
	moves, nodes, err := o.Moves(ctx, p, buf[:0])
	if err != nil {
		return Perfect{Cell: -1}, nodes, err
	}
	best := moves[0]
	for _, m := range moves[1:] {
		if m.Better(best) {
			best = m
		}
	}
	return best, nodes, nil
}

// Positions returns the number of positions in the memo.
func (o *Oracle) Positions() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.used
}

// Bytes returns the memory of the memo.
func (o *Oracle) Bytes() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return 8 * len(o.slots)
}

// Nodes returns the number of positions searched by all calls.
func (o *Oracle) Nodes() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.nodes
}

// start prepares a call under ctx, or returns its error if it is done
// already. The context is polled only if it can be done.
func (o *Oracle) start(ctx context.Context) error {
	o.ctx, o.abort = nil, false
	if ctx.Done() != nil {
		o.ctx = ctx
	}
	return ctx.Err()
}

// outcome turns a score at ply into a value and a distance.
func (o *Oracle) outcome(s int8, ply int) (mnk.Value, int) {
	switch {
	case s > 0:
		return mnk.Win, o.g.Cells() + 1 - int(s)
	case s < 0:
		return mnk.Loss, o.g.Cells() + 1 + int(s)
	}
	return mnk.Drawn, o.g.Cells() - ply
}

// back is the score of a move for the side that plays it, from the score s
// of the position it leads to: a win in d plies there is a loss in d+1
// here, a loss in d a win in d+1, a draw a draw.
func back(s int8) int8 {
	switch {
	case s > 0:
		return 1 - s
	case s < 0:
		return -s - 1
	}
	return 0
}

// eval returns the score of the canonical position p at ply, which is
// ongoing (the last move made no line and the board is not full).
func (o *Oracle) eval(p mnk.Position, ply int) int8 {
	g := o.g
	key := g.Pack(p)
	if slot, _ := o.lookup(key); slot != 0 {
		return int8(uint8(slot))
	}
	o.nodes++
	if o.ctx != nil && o.nodes&pollMask == 0 && o.ctx.Err() != nil {
		o.abort = true
	}
	if o.abort {
		return 0
	}
	me, them := p.X, p.O
	xToMove := ply&1 == 0
	if !xToMove {
		me, them = them, me
	}
	empty := g.Mask() &^ (me | them)
	k1 := g.K - 1
	cells := int8(g.Cells())
	var threat, live uint64
	for _, w := range g.Windows() {
		a, b := w&me, w&them
		if b == 0 {
			if bits.OnesCount64(a) == k1 {
				return cells // a line now: a win in 1
			}
			live |= w
		}
		if a == 0 {
			if bits.OnesCount64(b) == k1 {
				threat |= w &^ them
			}
			live |= w
		}
	}
	if threat&(threat-1) != 0 {
		return -(cells - 1) // two lines to block: a loss in 2
	}
	if empty&(empty-1) == 0 {
		return 0 // the last cell, and no line through it: a draw in 1
	}
	moves := empty
	if threat != 0 {
		moves = threat
	} else if dead := empty &^ live; dead != 0 {
		moves = empty&live | dead&-dead
	}
	im, nsym := g.Images(p)
	best := -cells
	for m := moves; m != 0; m &= m - 1 {
		c := bits.TrailingZeros64(m)
		q, _ := g.ChildCanonical(&im, nsym, c, xToMove)
		s := back(o.eval(q, ply+1))
		if o.abort {
			return 0
		}
		if s > best {
			best = s
			if s == cells-2 {
				break // a win in 3: nothing quicker is left
			}
		}
	}
	o.insert(key, best)
	return best
}

// oracleHash mixes a packed key for the table index (the top bits).
func oracleHash(key uint32) uint64 {
	h := uint64(key) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

// lookup returns the slot of key, or 0 and the index of the empty slot
// where it would go.
func (o *Oracle) lookup(key uint32) (uint64, int) {
	want := uint64(key) << 8
	mask := len(o.slots) - 1
	for i := int(oracleHash(key) >> o.shift); ; i = (i + 1) & mask {
		s := o.slots[i]
		if s == 0 {
			return 0, i
		}
		if s&^(1<<63)&^0xff == want {
			return s, i
		}
	}
}

// insert stores the score of key, which is not in the table. (The search
// below key has filled slots since key was looked up, so it is looked up
// again.)
func (o *Oracle) insert(key uint32, s int8) {
	// The load stays at most 3/4: the keys are scattered well by the
	// multiplicative hash, and probes stay short.
	if 4*(o.used+1) > 3*len(o.slots) {
		o.grow()
	}
	_, i := o.lookup(key)
	o.slots[i] = 1<<63 | uint64(key)<<8 | uint64(uint8(s))
	o.used++
}

func (o *Oracle) grow() {
	old := o.slots
	o.slots = make([]uint64, 2*len(old))
	o.shift--
	mask := len(o.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := int(oracleHash(uint32(s>>8)) >> o.shift)
		for o.slots[i] != 0 {
			i = (i + 1) & mask
		}
		o.slots[i] = s
	}
}

// pollMask sets how often the search polls its context: every 2^14 new
// positions.
const pollMask = 1<<14 - 1

// minSlotBits sizes the memo's first table: 2^10 slots.
const minSlotBits = 10

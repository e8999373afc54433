package player

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Exact odds enumerate every choice the random players can make, with the
// positional players' moves, which depend on the position only, memoised
// by position.
//
// The probabilities are integers over a common denominator: a line of
// play from a position with e empty cells has probability 1/(e(e-1)...)
// over the plies of the random players, which divide by distinct numbers
// of empty cells, so its probability times e! is an integer. A position
// with e empty cells stores its chances of an X win and an O win as
// numerators over e! (the draw is the rest): at a random player's turn
// the numerator is the sum of the children's (each over (e-1)!, weighed
// 1/e), at a positional player's it is e times the child's. 16! < 2^45, so
// the numerators of boards of up to 16 cells fit in 48 bits, and an entry
// of the memo, the packed position and both numerators, in 16 bytes.
//
// When both players are random the game is symmetric under the board's
// symmetries and the memo is keyed by canonical position; a positional
// player breaks the symmetry (the perfect player's row-major rule), and
// then the memo is keyed by position, but the positional player's single
// move at its turns prunes the tree instead.

// MaxExactCells is the largest board whose odds Exact computes.
const MaxExactCells = 16

// Odds are the exact probabilities of the results of a game: XWin/Total
// that X wins, OWin/Total that O wins, Draw/Total a draw. Total is e!, for
// the e empty cells of the position the game starts from (the fractions
// are not reduced).
type Odds struct {
	XWin, OWin, Draw uint64
	Total            uint64
	// Positions is the number of positions memoised to compute them.
	Positions int
}

// Of returns the numerator of the probability of r (XWin, OWin or Draw).
func (o Odds) Of(r mnk.Result) uint64 {
	switch r {
	case mnk.XWin:
		return o.XWin
	case mnk.OWin:
		return o.OWin
	case mnk.Draw:
		return o.Draw
	}
	panic(fmt.Sprintf("player: odds of %v", r))
}

// Rat returns the probability of r (XWin, OWin or Draw) as a reduced
// fraction.
func (o Odds) Rat(r mnk.Result) *big.Rat {
	return new(big.Rat).SetFrac(new(big.Int).SetUint64(o.Of(r)), new(big.Int).SetUint64(o.Total))
}

// Float returns the probability of r (XWin, OWin or Draw). Numerator and
// denominator are below 2^53, exact as float64s, so it is the correctly
// rounded quotient.
func (o Odds) Float(r mnk.Result) float64 { return float64(o.Of(r)) / float64(o.Total) }

// Exact returns the exact odds of the game of g from p (valid) between x
// and o when the random players choose uniformly among the empty cells
// and the others play their moves, which must depend on the position only
// (Spec.Positional). It takes boards of up to MaxExactCells cells, and
// returns ctx's error if ctx is done first.
//
// Its memory is the memo's, 16 bytes a position at a load of at most 3/4:
// random against random on 4x4 visits every position up to symmetry
// (docs/benchmarks.md has the figures).
func Exact(ctx context.Context, g *mnk.Game, p mnk.Position, x, o Spec) (Odds, error) {
	if g.Cells() > MaxExactCells {
		return Odds{}, fmt.Errorf("exact odds: boards of up to %d cells, not %dx%d (%d)", MaxExactCells, g.Rows, g.Cols, g.Cells())
	}
	if err := g.Valid(p); err != nil {
		return Odds{}, fmt.Errorf("exact odds: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Odds{}, err
	}
	e := &exact{g: g, ctx: ctx, canonical: x.Kind == Random && o.Kind == Random}
	for i, s := range []Spec{x, o} {
		if s.Kind == Random {
			continue
		}
		if !s.Positional() {
			return Odds{}, fmt.Errorf("exact odds: player %s does not play by the position alone: want random, perfect or engine:depth=D", s)
		}
		pl, err := New(s, g)
		if err != nil {
			return Odds{}, fmt.Errorf("exact odds: %w", err)
		}
		e.players[i] = pl
	}
	e.fact[0] = 1
	for i := 1; i < len(e.fact); i++ {
		e.fact[i] = e.fact[i-1] * uint64(i)
	}
	e.slots = make([][2]uint64, 1<<10)
	e.shift = 64 - 10

	empties := bits.OnesCount64(g.Empty(p))
	odds := Odds{Total: e.fact[empties]}
	switch g.Status(p) {
	case mnk.XWin:
		odds.XWin = odds.Total
	case mnk.OWin:
		odds.OWin = odds.Total
	case mnk.Draw:
		odds.Draw = odds.Total
	default:
		odds.XWin, odds.OWin = e.odds(p)
		if e.err != nil {
			return Odds{}, e.err
		}
		odds.Draw = odds.Total - odds.XWin - odds.OWin
	}
	odds.Positions = e.used
	return odds, nil
}

// exact is the state of one Exact.
type exact struct {
	g         *mnk.Game
	ctx       context.Context
	players   [2]Player // X's and O's; nil: random
	canonical bool      // key the memo by canonical position
	fact      [MaxExactCells + 1]uint64
	nodes     uint64
	err       error

	// The memo: open addressing, a slot [x | keyLo<<48, (o+1) | keyHi<<48]
	// for a position packed as mnk.Game.Pack (keyLo, keyHi its halves) with
	// numerators x and o; an empty slot is all zero.
	slots [][2]uint64
	used  int
	shift uint
}

// odds returns the numerators of X's and O's chances over e! in p, which
// is ongoing with e empty cells. On error it sets e.err and returns 0s.
func (e *exact) odds(p mnk.Position) (uint64, uint64) {
	g := e.g
	key := p
	if e.canonical {
		key, _ = g.Canonical(p)
	}
	k := g.Pack(key)
	if s, _ := e.lookup(k); s[1] != 0 {
		return s[0] &^ (0xffff << 48), s[1]&^(0xffff<<48) - 1
	}
	e.nodes++
	if e.nodes&(1<<12-1) == 0 && e.err == nil {
		e.err = e.ctx.Err()
	}
	if e.err != nil {
		return 0, 0
	}
	empty := g.Empty(p)
	n := bits.OnesCount64(empty)
	var x, o uint64
	if pl := e.players[p.Ply()&1]; pl != nil {
		ch, err := pl.Move(e.ctx, p, nil)
		if err != nil {
			e.err = fmt.Errorf("exact odds: %s: %w", g.String(p), err)
			return 0, 0
		}
		if ch.Cell < 0 || ch.Cell > 63 || empty>>uint(ch.Cell)&1 == 0 {
			e.err = fmt.Errorf("exact odds: %s: the player chose cell %d, not an empty cell", g.String(p), ch.Cell)
			return 0, 0
		}
		x, o = e.child(p, ch.Cell, n)
		x, o = x*uint64(n), o*uint64(n)
	} else {
		for m := empty; m != 0; m &= m - 1 {
			cx, co := e.child(p, bits.TrailingZeros64(m), n)
			x, o = x+cx, o+co
		}
	}
	if e.err != nil {
		return 0, 0
	}
	e.insert(k, x, o)
	return x, o
}

// child returns the numerators over (n-1)! of the position after cell in
// p, which has n empty cells.
func (e *exact) child(p mnk.Position, cell, n int) (uint64, uint64) {
	q, r := e.g.Play(p, cell)
	switch r {
	case mnk.XWin:
		return e.fact[n-1], 0
	case mnk.OWin:
		return 0, e.fact[n-1]
	case mnk.Draw:
		return 0, 0
	}
	return e.odds(q)
}

func exactHash(k uint32) uint64 {
	h := uint64(k) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

// lookup returns the slot of k, or a zero slot and the index of the empty
// slot where k would go.
func (e *exact) lookup(k uint32) ([2]uint64, int) {
	mask := len(e.slots) - 1
	lo, hi := uint64(k&0xffff), uint64(k>>16)
	for i := int(exactHash(k) >> e.shift); ; i = (i + 1) & mask {
		s := e.slots[i]
		if s[1] == 0 {
			return s, i
		}
		if s[0]>>48 == lo && s[1]>>48 == hi {
			return s, i
		}
	}
}

// insert stores the numerators of k, which is not in the memo.
func (e *exact) insert(k uint32, x, o uint64) {
	if 4*(e.used+1) > 3*len(e.slots) {
		old := e.slots
		e.slots = make([][2]uint64, 2*len(old))
		e.shift--
		for _, s := range old {
			if s[1] != 0 {
				_, i := e.lookup(uint32(s[0]>>48 | s[1]>>48<<16))
				e.slots[i] = s
			}
		}
	}
	_, i := e.lookup(k)
	e.slots[i] = [2]uint64{x | uint64(k&0xffff)<<48, (o + 1) | uint64(k>>16)<<48}
	e.used++
}

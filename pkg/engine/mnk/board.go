package mnk

import (
	"fmt"
	"math/bits"
)

// Board is a position with make/unmake for searches: a move stack and the
// Zobrist hashes of all the images of the position under the symmetries,
// updated with one XOR per symmetry and move, so a symmetry-invariant hash
// never needs recomputing.
//
// Board uses make/unmake rather than copy-make: with the eight hashes, the
// move stack and the results it is about 250 bytes, and a copy at every
// node costs more than the undo, and escapes to the heap
// (BenchmarkMakeUnmake). The counters of package count need no hashes or
// stack and use copy-make of the 16-byte Position instead, passed by
// value.
type Board struct {
	g     *Game
	pos   Position
	ply   int
	base  int // ply of the position set by SetPosition
	moves [64]int8
	res   [65]Result // res[ply]: result of the position at ply
	hash  [8]uint64  // hash[s]: Zobrist hash of Transform(pos, s)
}

// NewBoard returns an empty board for g.
func NewBoard(g *Game) *Board { return &Board{g: g} }

// SetPosition replaces the board by p (which should be valid) with an empty
// move stack: Unmake cannot go back past p.
func (b *Board) SetPosition(p Position) {
	b.pos, b.ply = p, p.Ply()
	b.res[b.ply] = b.g.Status(p)
	for s := range b.g.nsym {
		b.hash[s] = zobrist(b.g.Transform(p, s))
	}
	b.base = b.ply
}

// Game returns the game of the board.
func (b *Board) Game() *Game { return b.g }

// Position returns the current position.
func (b *Board) Position() Position { return b.pos }

// Ply returns the number of stones on the board.
func (b *Board) Ply() int { return b.ply }

// Result returns the result of the current position as computed by the
// moves made (Ongoing on the empty board).
func (b *Board) Result() Result { return b.res[b.ply] }

// Make plays cell for the side to move and returns the result of the new
// position (win test through cell only). It panics if cell is not empty; it
// does not check that the game is still going.
func (b *Board) Make(cell int) Result {
	g := b.g
	bit := uint64(1) << uint(cell&63)
	if cell < 0 || cell > 63 || g.Empty(b.pos)&bit == 0 {
		panic(fmt.Sprintf("mnk: make %d: not an empty cell of %s", cell, g.String(b.pos)))
	}
	side := b.ply & 1
	var r Result
	b.pos, r = g.Place(b.pos, cell, side == 0)
	for s := range g.nsym {
		b.hash[s] ^= g.zob[s][side][cell]
	}
	b.moves[b.ply] = int8(cell)
	b.ply++
	b.res[b.ply] = r
	return r
}

// Unmake takes back the last move made. It panics if there is none.
func (b *Board) Unmake() {
	if b.ply <= b.base {
		panic("mnk: unmake with no move to take back")
	}
	b.ply--
	cell := int(b.moves[b.ply])
	side := b.ply & 1
	bit := uint64(1) << uint(cell)
	if side == 0 {
		b.pos.X &^= bit
	} else {
		b.pos.O &^= bit
	}
	for s := range b.g.nsym {
		b.hash[s] ^= b.g.zob[s][side][cell]
	}
}

// Moves appends the empty cells (the legal moves, unless the game is over)
// to buf[:0] in increasing order and returns it. With cap(buf) >= Cells it
// does not allocate.
func (b *Board) Moves(buf []int) []int {
	buf = buf[:0]
	for e := b.g.Empty(b.pos); e != 0; e &= e - 1 {
		buf = append(buf, bits.TrailingZeros64(e))
	}
	return buf
}

// Hash returns Game.Hash of the current position: the Zobrist hash of its
// canonical form, taken from the incrementally updated hashes.
func (b *Board) Hash() uint64 {
	_, s := b.g.CanonicalSym(b.pos)
	return b.hash[s]
}

// SymHash returns the least Zobrist hash over the images of the position:
// also the same for all symmetric positions, and cheaper than Hash, but a
// different number.
func (b *Board) SymHash() uint64 {
	h := b.hash[0]
	for _, x := range b.hash[1:b.g.nsym] {
		h = min(h, x)
	}
	return h
}

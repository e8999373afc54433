package cert

import (
	"fmt"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// rules are the verifier's own rules of the game, written apart from
// package mnk's, which the engines that find the strategies use: the lines
// of k cells come from walking the rows and columns (Lines), a move wins
// when one of them through its cell fills, and the symmetries map cells by
// their row and column. A bug in the engines' rules then cannot make a
// wrong proof verify (TestRules compares the two).
type rules struct {
	rows, cols, k int
	mask          uint64       // the cells of the board
	lines         []uint64     // every line of k cells
	through       [64][]uint64 // the lines through each cell
	nsym          int
	image         [8][64]int8 // image[s][c]: where symmetry s takes cell c, -1 off the board
	pre           [8][64]int8 // pre[s][image[s][c]] = c
}

func newRules(rows, cols, k int) *rules {
	r := &rules{rows: rows, cols: cols, k: k, lines: Lines(rows, cols, k), nsym: 4}
	if rows == cols {
		r.nsym = 8
	}
	for s := range 8 {
		for c := range 64 {
			r.image[s][c], r.pre[s][c] = -1, -1
		}
	}
	for row := range rows {
		for col := range cols {
			c := row*8 + col
			r.mask |= 1 << uint(c)
			for _, w := range r.lines {
				if w>>uint(c)&1 != 0 {
					r.through[c] = append(r.through[c], w)
				}
			}
			for s := range r.nsym {
				// Bit 0 of s flips the rows, bit 1 mirrors the columns,
				// bit 2 transposes (square boards only), in that order.
				tr, tc := row, col
				if s&1 != 0 {
					tr = rows - 1 - tr
				}
				if s&2 != 0 {
					tc = cols - 1 - tc
				}
				if s&4 != 0 {
					tr, tc = tc, tr
				}
				t := tr*8 + tc
				r.image[s][c], r.pre[s][t] = int8(t), int8(c)
			}
		}
	}
	return r
}

// line reports whether stones fill a line.
func (r *rules) line(stones uint64) bool {
	for _, w := range r.lines {
		if stones&w == w {
			return true
		}
	}
	return false
}

// root returns nil if p can be the root of a proof: its stones on the
// board, as many X as O or one more, no line and an empty cell left;
// otherwise what is wrong.
func (r *rules) root(p mnk.Position) error {
	nx, no := bits.OnesCount64(p.X), bits.OnesCount64(p.O)
	switch {
	case p.X&p.O != 0:
		return fmt.Errorf("stones of both sides on the cells %#x", p.X&p.O)
	case (p.X|p.O)&^r.mask != 0:
		return fmt.Errorf("stones outside the %dx%d board", r.rows, r.cols)
	case nx != no && nx != no+1:
		return fmt.Errorf("%d X and %d O stones: want as many X as O or one more", nx, no)
	case r.line(p.X) || r.line(p.O) || (p.X|p.O) == r.mask:
		return fmt.Errorf("the position is over")
	}
	return nil
}

// play puts a stone of the side to move (X if the stones are as many) on
// the empty cell and returns the position and its result: a line through
// the cell wins, else a full board is a draw.
func (r *rules) play(p mnk.Position, cell int) (mnk.Position, mnk.Result) {
	bit := uint64(1) << uint(cell)
	mover, win := &p.X, mnk.XWin
	if bits.OnesCount64(p.X) != bits.OnesCount64(p.O) {
		mover, win = &p.O, mnk.OWin
	}
	*mover |= bit
	for _, w := range r.through[cell] {
		if *mover&w == w {
			return p, win
		}
	}
	if (p.X|p.O)&r.mask == r.mask {
		return p, mnk.Draw
	}
	return p, mnk.Ongoing
}

// transform returns the image of p under symmetry s.
func (r *rules) transform(p mnk.Position, s int) mnk.Position {
	var q mnk.Position
	for x := p.X; x != 0; x &= x - 1 {
		q.X |= 1 << uint(r.image[s][bits.TrailingZeros64(x)])
	}
	for o := p.O; o != 0; o &= o - 1 {
		q.O |= 1 << uint(r.image[s][bits.TrailingZeros64(o)])
	}
	return q
}

// canonical returns the least image of p (comparing X, then O, as unsigned
// integers: the order of mnk.Game.Canonical, which keys the strategies)
// and a symmetry that gives it.
func (r *rules) canonical(p mnk.Position) (mnk.Position, int) {
	best, bs := p, 0
	for s := 1; s < r.nsym; s++ {
		if q := r.transform(p, s); q.X < best.X || q.X == best.X && q.O < best.O {
			best, bs = q, s
		}
	}
	return best, bs
}

// preimage returns the cell that symmetry s takes to cell, or -1 if there
// is none on the board.
func (r *rules) preimage(s, cell int) int {
	if cell < 0 || cell > 63 {
		return -1
	}
	return int(r.pre[s][cell])
}

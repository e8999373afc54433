// Package wide is the board and the rules of m,n,k-games on boards of up
// to 128 cells (9x9, 10x10, 11x11), past the 64-bit bitboards of package
// mnk: a position is two 128-bit sets of cells (Set), and the game offers
// what the proof-number solver of package wide/pns needs (windows,
// symmetries, canonical forms of children, results), with the text forms
// of package mnk.
//
// Cell (r, c) is bit r*Stride+c, where Stride is 8 on boards of up to 8
// columns (the layout of package mnk, so that a position of a board both
// packages take has the same bits in both) and the number of columns on
// wider boards. The results, values and errors are package mnk's.
package wide

import (
	"fmt"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// MaxSide is the largest number of rows or columns a board may have, and
// MaxCells the most bits a board's layout may take (Rows*Stride).
const (
	MaxSide  = 11
	MaxCells = 128
)

// Set is a set of cells: bit i of Lo is cell i, bit i of Hi cell 64+i.
type Set struct{ Lo, Hi uint64 }

// Bit returns the set of one cell.
func Bit(c int) Set {
	if c < 64 {
		return Set{Lo: 1 << uint(c)}
	}
	return Set{Hi: 1 << uint(c-64)}
}

// Has reports whether cell c is in s.
func (s Set) Has(c int) bool {
	if c < 64 {
		return s.Lo>>uint(c)&1 != 0
	}
	return s.Hi>>uint(c-64)&1 != 0
}

// Or, And and AndNot are the union, the intersection and the difference.
func (s Set) Or(t Set) Set     { return Set{s.Lo | t.Lo, s.Hi | t.Hi} }
func (s Set) And(t Set) Set    { return Set{s.Lo & t.Lo, s.Hi & t.Hi} }
func (s Set) AndNot(t Set) Set { return Set{s.Lo &^ t.Lo, s.Hi &^ t.Hi} }

// Empty reports whether s has no cell; Len counts its cells.
func (s Set) Empty() bool { return s.Lo|s.Hi == 0 }
func (s Set) Len() int    { return bits.OnesCount64(s.Lo) + bits.OnesCount64(s.Hi) }

// Lowest returns the lowest cell of s, 128 if it is empty.
func (s Set) Lowest() int {
	if s.Lo != 0 {
		return bits.TrailingZeros64(s.Lo)
	}
	return 64 + bits.TrailingZeros64(s.Hi)
}

// Less orders sets as 128-bit unsigned integers, Hi the high word.
func (s Set) Less(t Set) bool { return s.Hi < t.Hi || s.Hi == t.Hi && s.Lo < t.Lo }

// Position is a pair of sets of cells, one per side.
type Position struct{ X, O Set }

// Ply returns the number of stones on the board.
func (p Position) Ply() int { return p.X.Len() + p.O.Len() }

// XToMove reports whether X is to move (as many X stones as O).
func (p Position) XToMove() bool { return p.X.Len() == p.O.Len() }

// Less orders positions by X, then O: the least image is the canonical
// form.
func (p Position) Less(q Position) bool { return p.X.Less(q.X) || p.X == q.X && p.O.Less(q.O) }

// Game is an m,n,k-game of rows x cols, k in a row wins. Create it with
// New; a Game is immutable and safe for concurrent use.
type Game struct {
	Rows, Cols, K int
	// Stride is the bits of a row: cell (r, c) is bit r*Stride+c.
	Stride int

	mask    Set
	cells   int
	nsym    int
	windows []Set
	// perm[s][c] is the image of cell c under symmetry s, inv its
	// inverse; -1 off the board.
	perm, inv [8][MaxCells]int8
}

// New returns the rows x cols game where k in a row wins; errors match
// mnk.ErrBoardSize or mnk.ErrK.
func New(rows, cols, k int) (*Game, error) {
	if rows < 1 || rows > MaxSide || cols < 1 || cols > MaxSide {
		return nil, &sizeError{fmt.Sprintf("board %dx%d: want 1 <= rows, cols <= %d", rows, cols, MaxSide), mnk.ErrBoardSize}
	}
	if maxk := max(rows, cols); k < 1 || k > maxk {
		return nil, &sizeError{fmt.Sprintf("k %d is out of range for a %dx%d board: want 1 <= k <= %d", k, rows, cols, maxk), mnk.ErrK}
	}
	stride := max(cols, 8)
	if rows*stride > MaxCells {
		return nil, &sizeError{fmt.Sprintf("board %dx%d: more than %d cells in its layout (%d rows of %d)", rows, cols, MaxCells, rows, stride), mnk.ErrBoardSize}
	}
	g := &Game{Rows: rows, Cols: cols, K: k, Stride: stride, cells: rows * cols, nsym: 4}
	if rows == cols {
		g.nsym = 8
	}
	for r := range rows {
		for c := range cols {
			g.mask = g.mask.Or(Bit(g.Cell(r, c)))
		}
	}
	dirs := [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	if k == 1 {
		dirs = dirs[:1] // every direction gives the same one-cell window
	}
	// The windows in package mnk's order: by first cell, then direction.
	for r := range rows {
		for c := range cols {
			for _, d := range dirs {
				er, ec := r+(k-1)*d[0], c+(k-1)*d[1]
				if er < 0 || er >= rows || ec < 0 || ec >= cols {
					continue
				}
				var w Set
				for i := range k {
					w = w.Or(Bit(g.Cell(r+i*d[0], c+i*d[1])))
				}
				g.windows = append(g.windows, w)
			}
		}
	}
	for s := range 8 {
		for c := range MaxCells {
			g.perm[s][c], g.inv[s][c] = -1, -1
		}
	}
	// Symmetries in package mnk's numbering: 0 the identity, 1 the
	// vertical flip (rows reversed), 2 the mirror (columns reversed), 3
	// both; on square boards 4 to 7 are 0 to 3 followed by the transpose.
	for s := range g.nsym {
		for r := range rows {
			for c := range cols {
				tr, tc := r, c
				if s&1 != 0 {
					tr = rows - 1 - tr
				}
				if s&2 != 0 {
					tc = cols - 1 - tc
				}
				if s >= 4 {
					tr, tc = tc, tr
				}
				from, to := g.Cell(r, c), g.Cell(tr, tc)
				g.perm[s][from], g.inv[s][to] = int8(to), int8(from)
			}
		}
	}
	return g, nil
}

// MustNew is like New but panics on an invalid size.
func MustNew(rows, cols, k int) *Game {
	g, err := New(rows, cols, k)
	if err != nil {
		panic(err)
	}
	return g
}

type sizeError struct {
	msg  string
	kind error
}

func (e *sizeError) Error() string { return e.msg }
func (e *sizeError) Unwrap() error { return e.kind }

// Cell returns the bit of the cell in row r and column c (0-based).
func (g *Game) Cell(r, c int) int { return r*g.Stride + c }

// Spec returns "m,n,k", e.g. "9,9,5".
func (g *Game) Spec() string { return fmt.Sprintf("%d,%d,%d", g.Rows, g.Cols, g.K) }

// Cells returns the number of cells, Rows*Cols.
func (g *Game) Cells() int { return g.cells }

// Mask returns the cells of the board.
func (g *Game) Mask() Set { return g.mask }

// Empty returns the empty cells of the board in p.
func (g *Game) Empty(p Position) Set { return g.mask.AndNot(p.X.Or(p.O)) }

// Windows returns the k-windows of the board, each as the set of its cells.
// The slice is the Game's: callers must not modify it.
func (g *Game) Windows() []Set { return g.windows }

// HasLine reports whether stones contain k in a row.
func (g *Game) HasLine(stones Set) bool {
	for _, w := range g.windows {
		if stones.And(w) == w {
			return true
		}
	}
	return false
}

// Play puts a stone of the side to move on cell and returns the new
// position and its result, judged from the whole board. Play panics if
// cell is not an empty cell of the board.
func (g *Game) Play(p Position, cell int) (Position, mnk.Result) {
	if cell < 0 || cell >= MaxCells || !g.Empty(p).Has(cell) {
		panic(fmt.Sprintf("wide: play on cell %d: not an empty cell of the %dx%d board", cell, g.Rows, g.Cols))
	}
	if p.XToMove() {
		p.X = p.X.Or(Bit(cell))
	} else {
		p.O = p.O.Or(Bit(cell))
	}
	return p, g.Status(p)
}

// Status evaluates p: XWin or OWin if that side has a line (the last
// mover's if both have), Draw if the board is full, Ongoing otherwise.
func (g *Game) Status(p Position) mnk.Result {
	xl, ol := g.HasLine(p.X), g.HasLine(p.O)
	switch {
	case xl && ol:
		if p.XToMove() {
			return mnk.OWin
		}
		return mnk.XWin
	case xl:
		return mnk.XWin
	case ol:
		return mnk.OWin
	case g.Empty(p).Empty():
		return mnk.Draw
	}
	return mnk.Ongoing
}

// Valid returns nil if p can arise in a game played from the empty board,
// and otherwise an error wrapping mnk.ErrInvalidPosition that says why.
func (g *Game) Valid(p Position) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s: %w", g.String(p), fmt.Sprintf(format, a...), mnk.ErrInvalidPosition)
	}
	if !p.X.And(p.O).Empty() {
		return bad("X and O share cells")
	}
	if !p.X.Or(p.O).AndNot(g.mask).Empty() {
		return bad("stones outside the %dx%d board", g.Rows, g.Cols)
	}
	nx, no := p.X.Len(), p.O.Len()
	if nx != no && nx != no+1 {
		return bad("%d X and %d O stones: want as many X as O or one more", nx, no)
	}
	last, other, lastName, otherName := p.X, p.O, "X", "O"
	if nx == no {
		last, other, lastName, otherName = p.O, p.X, "O", "X"
	}
	if g.HasLine(other) {
		return bad("%s has a line but %s moved last", otherName, lastName)
	}
	inter, any := g.mask, false
	for _, w := range g.windows {
		if last.And(w) == w {
			inter, any = inter.And(w), true
		}
	}
	if any && inter.And(last).Empty() {
		return bad("%s has lines that no single last move completed", lastName)
	}
	return nil
}

// NumSymmetries returns the number of symmetries of the board: 8 if it is
// square, else 4.
func (g *Game) NumSymmetries() int { return g.nsym }

// MapCell returns the image of cell under symmetry s; UnmapCell the cell
// whose image it is.
func (g *Game) MapCell(s, cell int) int8   { return g.perm[s][cell] }
func (g *Game) UnmapCell(s, cell int) int8 { return g.inv[s][cell] }

// Transform returns the image of p under symmetry s.
func (g *Game) Transform(p Position, s int) Position {
	return Position{g.mapSet(p.X, s), g.mapSet(p.O, s)}
}

func (g *Game) mapSet(x Set, s int) Set {
	var out Set
	for !x.Empty() {
		c := x.Lowest()
		out = out.Or(Bit(int(g.perm[s][c])))
		x = x.AndNot(Bit(c))
	}
	return out
}

// Images returns the images of p under all symmetries, im[s] for
// symmetry s, and their number.
func (g *Game) Images(p Position) (im [8]Position, n int) {
	for s := range g.nsym {
		im[s] = g.Transform(p, s)
	}
	return im, g.nsym
}

// CanonicalSym returns the least image of p and the symmetry that gives
// it.
func (g *Game) CanonicalSym(p Position) (Position, int) {
	im, n := g.Images(p)
	best, bs := im[0], 0
	for s := 1; s < n; s++ {
		if im[s].Less(best) {
			best, bs = im[s], s
		}
	}
	return best, bs
}

// ChildCanonical returns the canonical form of the child of a position
// whose images are im[:n] after a stone of the side to move on cell, and
// the symmetry that gives it, as package mnk's.
func (g *Game) ChildCanonical(im *[8]Position, n, cell int, xToMove bool) (Position, int) {
	var best Position
	bs := 0
	for s := range n {
		q := im[s]
		b := Bit(int(g.perm[s][cell]))
		if xToMove {
			q.X = q.X.Or(b)
		} else {
			q.O = q.O.Or(b)
		}
		if s == 0 || q.Less(best) {
			best, bs = q, s
		}
	}
	return best, bs
}

// String returns p in package mnk's text form: rows of 'X', 'O' and '.',
// top row first, separated by '/'.
func (g *Game) String(p Position) string {
	return mnk.WriteBoard(g.Rows, g.Cols, func(r, c int) int8 {
		switch cell := g.Cell(r, c); {
		case p.X.Has(cell):
			return 1
		case p.O.Has(cell):
			return 2
		}
		return 0
	})
}

// Parse reads a position in the form of String and checks that it is
// valid; errors name the row and column at fault.
func (g *Game) Parse(s string) (Position, error) {
	var p Position
	err := mnk.ReadBoard(s, g.Rows, g.Cols, func(r, c int, side int8) {
		if side == 1 {
			p.X = p.X.Or(Bit(g.Cell(r, c)))
		} else {
			p.O = p.O.Or(Bit(g.Cell(r, c)))
		}
	})
	if err != nil {
		return Position{}, err
	}
	if err := g.Valid(p); err != nil {
		return Position{}, err
	}
	return p, nil
}

// ParseMoves plays "row,col" moves (0-based, separated by spaces) from
// the empty board and returns the position reached; errors name the move.
func (g *Game) ParseMoves(s string) (Position, error) {
	var p Position
	res := mnk.Ongoing
	err := mnk.ReadMoves(s, g.Rows, g.Cols, func(r, c int) error {
		if res != mnk.Ongoing {
			return fmt.Errorf("the game is over (%s): %w", res, mnk.ErrInvalidPosition)
		}
		cell := g.Cell(r, c)
		if !g.Empty(p).Has(cell) {
			return fmt.Errorf("cell is occupied: %w", mnk.ErrInvalidPosition)
		}
		p, res = g.Play(p, cell)
		return nil
	})
	if err != nil {
		return Position{}, err
	}
	return p, nil
}

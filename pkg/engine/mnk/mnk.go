// Package mnk is the board and the rules of m,n,k-games (tic-tac-toe and
// its generalisations up to 8x8 boards): positions, moves and results, the
// symmetries of the board and canonical forms, Zobrist hashes, make and
// unmake (Board), and the text form of boards and move lists. The engines
// live in packages of their own beneath it, one per concept:
//
//   - count: exact counts of the game tree and of the distinct positions;
//   - solve: the exact alpha-beta solver;
//   - pns: the proof-number solver;
//   - wide: boards of up to 128 cells (9x9 to 11x11), and wide/pns, the
//     proof-number solver compiled for them;
//   - cert: certificates that prove a value, and their verifier;
//   - search: depth-limited search, for boards too big to solve, up to
//     19x19;
//   - oracle: the exact value and distance to the end of every position
//     of boards of up to 16 cells, for the perfect player;
//   - minimax: the minimax of the textbooks;
//   - ladder: the study harness, from plain minimax to the solvers.
//
// The engines share what this package exports for their inner loops: the
// k-windows of a board (Windows), the images of a position under the
// symmetries and the canonical form of a child made from them (Images,
// ChildCanonical, CanonicalSym, MapCell, UnmapCell), and a move without
// checks (Place).
//
// A position is a pair of bitboards, one per side. Cell (r, c) is bit r*8+c
// for every board size (the "8-stride layout" of chess engines), so the
// symmetries of the board are a handful of shifts and masks rather than a
// table lookup per stone, and a board never needs re-encoding when its size
// changes.
//
// The package imports only the standard library.
package mnk

import (
	"errors"
	"fmt"
	"math/bits"
)

// MaxSide is the largest number of rows or columns a board may have.
const MaxSide = 8

// ErrBoardSize reports a number of rows or columns outside [1, MaxSide].
var ErrBoardSize = errors.New("board size out of range")

// ErrK reports a line length k outside [1, max(rows, cols)].
var ErrK = errors.New("k out of range")

// ErrInvalidPosition reports a position that cannot arise in play.
var ErrInvalidPosition = errors.New("invalid position")

// ErrTooBig reports a game too large for an exact engine (the solvers, the
// oracle).
var ErrTooBig = errors.New("board too big for exact solving")

// ErrNodeLimit is the error of a search stopped by its node limit (the
// solvers' SetNodeLimit).
var ErrNodeLimit = errors.New("node limit reached")

// Cell returns the bit index of the cell in row r and column c (both
// 0-based): r*8 + c, whatever the board size.
func Cell(r, c int) int { return r*8 + c }

// Position is a board: the stones of X and of O as bitboards in the 8-stride
// layout (see Cell). It is comparable and can be used as a map key. Whose
// turn it is follows from the stone counts: X moves first.
type Position struct{ X, O uint64 }

// Ply returns the number of stones on the board.
func (p Position) Ply() int { return bits.OnesCount64(p.X) + bits.OnesCount64(p.O) }

// XToMove reports whether X is to move, that is whether Ply is even.
func (p Position) XToMove() bool { return bits.OnesCount64(p.X) == bits.OnesCount64(p.O) }

// Result is the state of a game: still going, won by one side, or drawn.
type Result int8

// The results of a position. Ongoing is the zero value.
const (
	Ongoing Result = iota
	XWin
	OWin
	Draw
)

// String returns "ongoing", "X wins", "O wins" or "draw".
func (r Result) String() string {
	switch r {
	case Ongoing:
		return "ongoing"
	case XWin:
		return "X wins"
	case OWin:
		return "O wins"
	case Draw:
		return "draw"
	}
	return fmt.Sprintf("Result(%d)", int8(r))
}

// Value is the game-theoretic value of a position from the point of view of
// the side to move.
type Value int8

// The game-theoretic values.
const (
	Loss  Value = -1
	Drawn Value = 0 // not Draw: that name is the Result
	Win   Value = 1
)

// String returns "loss", "draw" or "win".
func (v Value) String() string {
	switch v {
	case Loss:
		return "loss"
	case Drawn:
		return "draw"
	case Win:
		return "win"
	}
	return fmt.Sprintf("Value(%d)", int8(v))
}

// MoveValue is a legal move and the exact value it leads to, for the side
// that plays it.
type MoveValue struct {
	Cell  int
	Value Value
}

// Game is an m,n,k-game: Rows x Cols board, K in a row wins. Create it with
// New; a Game is immutable and safe for concurrent use.
type Game struct {
	Rows, Cols, K int

	mask  uint64 // valid cells
	cells int
	nsym  int

	// windows holds every k-window (k cells in a row in one of the four
	// directions) as a mask; cellWin[cellOff[c]:cellOff[c+1]] are the
	// windows through cell c, so the win test after a move touches at most
	// 4k masks instead of rescanning the board.
	windows []uint64
	cellWin []uint64
	cellOff [65]int32

	// perm[s][c] is the image of cell c under symmetry s; zob[s][side][c] is
	// the Zobrist key of a stone of side on cell c seen through symmetry s,
	// so Board can keep the hashes of all images up to date with one XOR
	// each.
	perm [8][64]int8
	zob  [8][2][64]uint64
	// inv[s] is perm[s] inverted: inv[s][perm[s][c]] = c, -1 off the board
	// and for symmetries the board does not have.
	inv [8][64]int8
}

// New returns the rows x cols game where k in a row wins.
func New(rows, cols, k int) (*Game, error) {
	if rows < 1 || rows > MaxSide || cols < 1 || cols > MaxSide {
		return nil, &sizeError{fmt.Sprintf("board %dx%d: want 1 <= rows, cols <= %d", rows, cols, MaxSide), ErrBoardSize}
	}
	if maxk := max(rows, cols); k < 1 || k > maxk {
		return nil, &sizeError{fmt.Sprintf("k %d is out of range for a %dx%d board: want 1 <= k <= %d", k, rows, cols, maxk), ErrK}
	}
	g := &Game{Rows: rows, Cols: cols, K: k, cells: rows * cols}
	for r := range rows {
		for c := range cols {
			g.mask |= 1 << Cell(r, c)
		}
	}
	g.nsym = 4
	if rows == cols {
		g.nsym = 8
	}
	g.initWindows()
	g.initSymmetries()
	return g, nil
}

// sizeError is a bad game size: its message says what is allowed, and it
// matches ErrBoardSize or ErrK with errors.Is.
type sizeError struct {
	msg  string
	kind error
}

func (e *sizeError) Error() string { return e.msg }

func (e *sizeError) Unwrap() error { return e.kind }

// MustNew is like New but panics on an invalid size; for tests and fixed
// games such as MustNew(3, 3, 3).
func MustNew(rows, cols, k int) *Game {
	g, err := New(rows, cols, k)
	if err != nil {
		panic(err)
	}
	return g
}

func (g *Game) initWindows() {
	dirs := [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	if g.K == 1 {
		dirs = dirs[:1] // every direction gives the same one-cell window
	}
	for r := range g.Rows {
		for c := range g.Cols {
			for _, d := range dirs {
				er, ec := r+(g.K-1)*d[0], c+(g.K-1)*d[1]
				if er < 0 || er >= g.Rows || ec < 0 || ec >= g.Cols {
					continue
				}
				var w uint64
				for i := range g.K {
					w |= 1 << Cell(r+i*d[0], c+i*d[1])
				}
				g.windows = append(g.windows, w)
			}
		}
	}
	for cell := range 64 {
		g.cellOff[cell] = int32(len(g.cellWin))
		for _, w := range g.windows {
			if w>>cell&1 != 0 {
				g.cellWin = append(g.cellWin, w)
			}
		}
	}
	g.cellOff[64] = int32(len(g.cellWin))
}

// Spec returns "m,n,k", e.g. "3,3,3".
func (g *Game) Spec() string { return fmt.Sprintf("%d,%d,%d", g.Rows, g.Cols, g.K) }

// Cells returns the number of cells, Rows*Cols.
func (g *Game) Cells() int { return g.cells }

// Mask returns the bits of the cells of the board.
func (g *Game) Mask() uint64 { return g.mask }

// Empty returns the empty cells of the board in p.
func (g *Game) Empty(p Position) uint64 { return g.mask &^ (p.X | p.O) }

// Windows returns the k-windows of the board (k cells in a row, a column
// or a diagonal: the possible lines), each as the mask of its cells. The
// slice is the Game's: callers must not modify it.
func (g *Game) Windows() []uint64 { return g.windows }

// LineThrough reports whether stones contain k in a row through cell. It
// tests only the precomputed windows through cell (at most 4k), which is
// what a win test after a move needs.
func (g *Game) LineThrough(stones uint64, cell int) bool {
	for _, w := range g.cellWin[g.cellOff[cell]:g.cellOff[cell+1]] {
		if stones&w == w {
			return true
		}
	}
	return false
}

// HasLine reports whether stones contain k in a row anywhere (a full scan).
func (g *Game) HasLine(stones uint64) bool {
	for _, w := range g.windows {
		if stones&w == w {
			return true
		}
	}
	return false
}

// Play puts a stone of the side to move on cell and returns the new
// position and its result, judged from that move alone: a line through cell
// wins, otherwise a full board is a draw. Play panics if cell is not an
// empty cell of the board; it does not check that p is still going.
func (g *Game) Play(p Position, cell int) (Position, Result) {
	bit := uint64(1) << uint(cell&63)
	if cell < 0 || cell > 63 || g.Empty(p)&bit == 0 {
		panic(fmt.Sprintf("mnk: play on cell %d: not an empty cell of the %dx%d board", cell, g.Rows, g.Cols))
	}
	return g.Place(p, cell, p.XToMove())
}

// Place is Play without the checks, for callers that know the side to move.
func (g *Game) Place(p Position, cell int, xToMove bool) (Position, Result) {
	bit := uint64(1) << uint(cell)
	if xToMove {
		p.X |= bit
		if g.LineThrough(p.X, cell) {
			return p, XWin
		}
	} else {
		p.O |= bit
		if g.LineThrough(p.O, cell) {
			return p, OWin
		}
	}
	if (p.X|p.O)&g.mask == g.mask {
		return p, Draw
	}
	return p, Ongoing
}

// Status evaluates p from scratch: XWin or OWin if that side has a line,
// Draw if the board is full, Ongoing otherwise. It assumes p is valid (see
// Valid); if both sides have lines it reports the last mover's.
func (g *Game) Status(p Position) Result {
	xl, ol := g.HasLine(p.X), g.HasLine(p.O)
	switch {
	case xl && ol:
		if p.XToMove() {
			return OWin
		}
		return XWin
	case xl:
		return XWin
	case ol:
		return OWin
	case (p.X|p.O)&g.mask == g.mask:
		return Draw
	}
	return Ongoing
}

// Completed returns the intersection of the windows filled by stones and
// whether there is any.
func (g *Game) Completed(stones uint64) (uint64, bool) {
	inter, any := ^uint64(0), false
	for _, w := range g.windows {
		if stones&w == w {
			inter &= w
			any = true
		}
	}
	return inter, any
}

// Valid returns nil if p can arise in a game played from the empty board,
// and otherwise an error wrapping ErrInvalidPosition that says why.
func (g *Game) Valid(p Position) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s: %w", g.String(p), fmt.Sprintf(format, a...), ErrInvalidPosition)
	}
	if p.X&p.O != 0 {
		return bad("X and O share cells %#x", p.X&p.O)
	}
	if out := (p.X | p.O) &^ g.mask; out != 0 {
		return bad("stones outside the %dx%d board (bits %#x)", g.Rows, g.Cols, out)
	}
	nx, no := bits.OnesCount64(p.X), bits.OnesCount64(p.O)
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
	if inter, any := g.Completed(last); any && inter&last == 0 {
		return bad("%s has lines that no single last move completed", lastName)
	}
	return nil
}

// Pack returns p in 32 bits for a board of up to 16 cells: X's stones in
// the low 16 bits and O's in the high 16, cell (r, c) at bit r*Cols+c. It
// is one-to-one on the positions of the board, so a packed position is a
// full key. It panics on a board of more than 16 cells.
func (g *Game) Pack(p Position) uint32 {
	if g.cells > 16 {
		panic(fmt.Sprintf("mnk: pack a %dx%d position: more than 16 cells", g.Rows, g.Cols))
	}
	row := uint64(1)<<uint(g.Cols) - 1
	var x, o uint64
	for r := range g.Rows {
		x |= p.X >> uint(8*r) & row << uint(r*g.Cols)
		o |= p.O >> uint(8*r) & row << uint(r*g.Cols)
	}
	return uint32(x | o<<16)
}

// Package levels counts the game tree of an m,n,k-game level by level: the
// positions of each ply, up to symmetry, each with the number of move
// sequences that reach it, partitioned into shards by a hash of the stones
// of the player who just moved. Expanding one shard of ply p gives
// children that belong to every shard of ply p+1; each goes, as a sorted
// run in a piece, to the shard that owns it, where the pieces of all the
// shards of ply p are merged before that shard is expanded in turn. Work
// goes to the data, level by level (transposition-driven scheduling:
// Romein, Plaat, Bal and Schaeffer, AAAI 1999), and no ply ever has to fit
// in one process: a shard's children spill to disk past a memory budget.
// Because a move changes the stones of one player only, every parent of a
// child is in the same shard, so a task adds up each of its children's
// numbers whole, and a child travels once (see moverShift).
//
// The package knows nothing of NATS: a Store moves the pieces (the job kind
// mnk.levels puts them in the cluster's object store; Local runs a whole
// count in one process over a map, for tests).
//
// It shares no code with the tree counter of package count: it has its own
// board layout (row-major, up to MaxCells cells on any shape, 2x12 as well
// as 5x5), its own lines and its own symmetries.
package levels

import (
	"fmt"
	"math/bits"
)

// MaxCells is the most cells a board may have: a position's two stone sets
// are 25-bit fields of one 64-bit key.
const MaxCells = 25

// A key holds, from bit 0: log2 of the position's orbit (2 bits: 1, 2, 4
// or 8 images), a flag for a full board, a flag for a win, the stones of
// the player to move (25 bits) and those of the player who just moved (25
// bits), 54 bits in all: X's stones sit low at even plies and high at odd
// ones. The flags are functions of the position (every image and every
// duplicate of a position has the same), so that keys with flags sort and
// compare as positions do.
//
// The stones of the player who just moved are the key's top bits, so the
// canonical key of a position (its smallest image) holds the smallest
// image of that player's stones, and keys sort by it first. That is what
// makes the count local: a move changes only the stones of the player to
// move, so every parent of a child has, up to symmetry, the same stones of
// the other player, the child's top bits. Parents with the same top bits
// are one group: they are neighbours in a sorted shard, they make children
// no other group makes, and their shard is a hash of those bits alone
// (ShardOf), so that the task that expands a group makes every record of
// each of its children (see expander).
const (
	orbitShift = 0
	flagFull   = 1 << 2 // the board is full without a line: a draw
	flagWin    = 1 << 3 // the player who just moved has k in a row
	moverShift = 4      // the stones of the player to move
	movedShift = moverShift + 25
	stoneMask  = (1<<50 - 1) << moverShift
)

// Board is the geometry of a rows x cols board with k in a row: its cells,
// lines and symmetries.
type Board struct {
	Rows, Cols, K int
	cells         int
	full          uint32 // every cell
	nsym          int    // distinct symmetries (as permutations of cells)
	perm          [8][MaxCells]uint8
	// tab[s][i][v] is the image under symmetry s of the stones v in cells
	// 7i to 7i+6: a set of stones maps in four lookups.
	tab [8][4][128]uint32
	// cellImg[c][s] is the image of cell c under symmetry s, as a bit.
	cellImg [MaxCells][8]uint32
	// orbitLog[n] is log2 of the orbit of a position that n of the
	// symmetries map to its canonical image.
	orbitLog [9]uint8
	// lines[c] are the windows of k cells in a row that hold cell c.
	lines [MaxCells][]uint32
}

// NewBoard returns the board, or an error naming what is out of range.
func NewBoard(rows, cols, k int) (*Board, error) {
	if rows < 1 || cols < 1 || rows*cols > MaxCells {
		return nil, fmt.Errorf("board %dx%d: the level count takes boards of 1 to %d cells", rows, cols, MaxCells)
	}
	if maxk := max(rows, cols); k < 1 || k > maxk {
		return nil, fmt.Errorf("k %d is out of range for a %dx%d board: want 1 <= k <= %d", k, rows, cols, maxk)
	}
	b := &Board{Rows: rows, Cols: cols, K: k, cells: rows * cols}
	b.full = 1<<b.cells - 1
	b.initLines()
	b.initSymmetries()
	return b, nil
}

// Cells returns the number of cells.
func (b *Board) Cells() int { return b.cells }

// Symmetries returns the number of distinct symmetries of the board: 8 for
// a square, 4 for a rectangle, 2 for a single row or column of more than
// one cell, 1 for one cell.
func (b *Board) Symmetries() int { return b.nsym }

func (b *Board) initLines() {
	dirs := [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	for r := range b.Rows {
		for c := range b.Cols {
			for _, d := range dirs {
				er, ec := r+(b.K-1)*d[0], c+(b.K-1)*d[1]
				if er < 0 || er >= b.Rows || ec < 0 || ec >= b.Cols {
					continue
				}
				if b.K == 1 && d != dirs[0] {
					continue // a single cell is one window, not four
				}
				var w uint32
				for i := range b.K {
					w |= 1 << ((r+i*d[0])*b.Cols + c + i*d[1])
				}
				for cell := range b.cells {
					if w&(1<<cell) != 0 {
						b.lines[cell] = append(b.lines[cell], w)
					}
				}
			}
		}
	}
}

// initSymmetries keeps the symmetries of the square that map the board
// onto itself (the transposing ones only for a square), each once as a
// permutation of the cells.
func (b *Board) initSymmetries() {
	R, C := b.Rows, b.Cols
	seen := map[[MaxCells]uint8]bool{}
	for s := range 8 {
		if s&4 != 0 && R != C {
			continue
		}
		var p [MaxCells]uint8
		for r := range R {
			for c := range C {
				nr, nc := r, c
				if s&1 != 0 {
					nr = R - 1 - nr
				}
				if s&2 != 0 {
					nc = C - 1 - nc
				}
				if s&4 != 0 {
					nr, nc = nc, nr
				}
				p[r*C+c] = uint8(nr*C + nc)
			}
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		n := b.nsym
		b.perm[n] = p
		for i := range 4 {
			for v := range 128 {
				var img uint32
				for j := range 7 {
					if cell := 7*i + j; v&(1<<j) != 0 && cell < b.cells {
						img |= 1 << p[cell]
					}
				}
				b.tab[n][i][v] = img
			}
		}
		b.nsym++
	}
	for c := range b.cells {
		for s := range b.nsym {
			b.cellImg[c][s] = 1 << b.perm[s][c]
		}
	}
	for same := 1; same <= b.nsym; same++ {
		if b.nsym%same == 0 {
			b.orbitLog[same] = uint8(bits.TrailingZeros(uint(b.nsym / same)))
		}
	}
}

// image maps the stones x under symmetry s.
func (b *Board) image(x uint32, s int) uint32 {
	t := &b.tab[s]
	return t[0][x&127] | t[1][x>>7&127] | t[2][x>>14&127] | t[3][x>>21&127]
}

// lineThrough tells whether stones hold k in a row through cell.
func (b *Board) lineThrough(stones uint32, cell int) bool {
	for _, w := range b.lines[cell] {
		if stones&w == w {
			return true
		}
	}
	return false
}

// Key is a position and its flags (see moverShift).
type Key uint64

// pack makes the key of the stones of the player to move and of the
// player who just moved (no flags).
func pack(mover, moved uint32) uint64 {
	return uint64(mover)<<moverShift | uint64(moved)<<movedShift
}

// Stones returns the stones of the player to move and of the player who
// just moved.
func (k Key) Stones() (mover, moved uint32) {
	return uint32(k>>moverShift) & (1<<25 - 1), uint32(k>>movedShift) & (1<<25 - 1)
}

// moved returns the stones of the player who just moved: the group of
// the key's position (see moverShift).
func (k Key) moved() uint32 { return uint32(k>>movedShift) & (1<<25 - 1) }

// Orbit returns the number of positions equal to k's up to symmetry.
func (k Key) Orbit() int { return 1 << (k >> orbitShift & 3) }

// Canonical returns the key of the position where the player to move has
// the stones mover and the other player moved, up to symmetry: its
// smallest image under the board's symmetries, with the size of its orbit
// and no other flag.
func (b *Board) Canonical(mover, moved uint32) Key {
	var imMover, imMoved [8]uint32
	for s := range b.nsym {
		imMover[s], imMoved[s] = b.image(mover, s), b.image(moved, s)
	}
	return b.canon(&imMover, &imMoved)
}

// canon is Canonical of the position whose images are imMover (the
// player to move) and imMoved. The smallest key is found without a branch
// on the keys, which are in no order a predictor could learn.
func (b *Board) canon(imMover, imMoved *[8]uint32) Key {
	var keys [8]uint64
	best := pack(imMover[0], imMoved[0])
	keys[0] = best
	for s := 1; s < b.nsym; s++ {
		k := pack(imMover[s], imMoved[s])
		keys[s] = k
		best = min(best, k)
	}
	same := 0
	for _, k := range keys[:b.nsym] {
		if k == best {
			same++
		}
	}
	return Key(best | uint64(b.orbitLog[same])<<orbitShift)
}

// String draws the position of key k at ply, rows separated by '/'.
func (b *Board) String(k Key, ply int) string {
	x, o := k.Stones()
	if ply%2 == 1 {
		x, o = o, x
	}
	s := make([]byte, 0, b.cells+b.Rows)
	for r := range b.Rows {
		if r > 0 {
			s = append(s, '/')
		}
		for c := range b.Cols {
			bit := uint32(1) << (r*b.Cols + c)
			switch {
			case x&bit != 0:
				s = append(s, 'X')
			case o&bit != 0:
				s = append(s, 'O')
			default:
				s = append(s, '.')
			}
		}
	}
	return string(s)
}

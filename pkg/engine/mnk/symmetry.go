package mnk

import "math/bits"

// The symmetries of the board are computed on the bitboards directly, with
// the tricks of chess programming (chessprogramming.org, "Flipping Mirroring
// and Rotating"): in the 8-stride layout a row is a byte, so
//
//   - a vertical flip (row r -> rows-1-r) is a byte swap, bits.ReverseBytes64,
//     which puts row r at 7-r, then a right shift by 8*(8-rows);
//   - a horizontal mirror (column c -> cols-1-c) reverses the bits of every
//     byte with three delta swaps, which puts column c at 7-c, then shifts right
//     by 8-cols (the low 8-cols bits of every byte are empty, so nothing
//     crosses into the next row);
//   - a transpose of a square board is the a1-h8 diagonal flip, three
//     delta swaps.
//
// Symmetry s applies the vertical flip if bit 0 of s is set, then the
// mirror if bit 1 is set, then the transpose if bit 2 is set (square boards
// only). All 8 (or 4) images cost about 20 instructions per bitboard, against
// a table lookup per stone for the cell-permutation alternative.

func flipV(x uint64, shift uint) uint64 { return bits.ReverseBytes64(x) >> shift }

func mirrorH(x uint64, shift uint) uint64 {
	const k1, k2, k4 = 0x5555555555555555, 0x3333333333333333, 0x0f0f0f0f0f0f0f0f
	x = x>>1&k1 | x&k1<<1
	x = x>>2&k2 | x&k2<<2
	x = x>>4&k4 | x&k4<<4
	return x >> shift
}

func transpose(x uint64) uint64 {
	const k1, k2, k4 = 0x5500550055005500, 0x3333000033330000, 0x0f0f0f0f00000000
	t := k4 & (x ^ x<<28)
	x ^= t ^ t>>28
	t = k2 & (x ^ x<<14)
	x ^= t ^ t>>14
	t = k1 & (x ^ x<<7)
	x ^= t ^ t>>7
	return x
}

// transform1 applies symmetry s to one bitboard.
func (g *Game) transform1(x uint64, s int) uint64 {
	if s&1 != 0 {
		x = flipV(x, uint(64-8*g.Rows))
	}
	if s&2 != 0 {
		x = mirrorH(x, uint(8-g.Cols))
	}
	if s&4 != 0 {
		x = transpose(x)
	}
	return x
}

// NumSymmetries returns the number of symmetries of the board: 8 for a
// square board, 4 for a rectangle.
func (g *Game) NumSymmetries() int { return g.nsym }

// Transform returns the image of p under symmetry s, 0 <= s <
// NumSymmetries(); 0 is the identity. Bit 0 of s flips the rows, bit 1
// mirrors the columns, bit 2 transposes (applied in that order).
func (g *Game) Transform(p Position, s int) Position {
	if s < 0 || s >= g.nsym {
		panic("mnk: symmetry index out of range")
	}
	return Position{g.transform1(p.X, s), g.transform1(p.O, s)}
}

// MapCell returns the image of cell under symmetry s (see Transform), -1
// off the board.
func (g *Game) MapCell(s, cell int) int8 { return g.perm[s][cell] }

// UnmapCell returns the cell whose image under symmetry s is cell (the
// inverse of MapCell), -1 off the board and for the symmetries the board
// does not have.
func (g *Game) UnmapCell(s, cell int) int8 { return g.inv[s][cell] }

// less orders positions by X, then O, as unsigned integers.
func less(a, b Position) bool { return a.X < b.X || a.X == b.X && a.O < b.O }

// Images returns the images of p under all symmetries, im[s] for symmetry s.
func (g *Game) Images(p Position) (im [8]Position, n int) {
	vs, hs := uint(64-8*g.Rows), uint(8-g.Cols)
	im[0] = p
	im[1] = Position{flipV(p.X, vs), flipV(p.O, vs)}
	im[2] = Position{mirrorH(p.X, hs), mirrorH(p.O, hs)}
	im[3] = Position{flipV(im[2].X, vs), flipV(im[2].O, vs)}
	if g.nsym == 4 {
		return im, 4
	}
	for s := range 4 {
		im[s+4] = Position{transpose(im[s].X), transpose(im[s].O)}
	}
	return im, 8
}

// CanonicalSym returns the least image of p (see Canonical) and the
// symmetry that gives it (one of them, if several do).
func (g *Game) CanonicalSym(p Position) (Position, int) {
	im, n := g.Images(p)
	best, bs := im[0], 0
	for s := 1; s < n; s++ {
		if less(im[s], best) {
			best, bs = im[s], s
		}
	}
	return best, bs
}

// ChildCanonical returns the canonical form of the child of a position
// whose images are im[:n] after a stone of the side to move on cell, and
// the symmetry that gives it (the canonical child is the child's image
// under it). The children of one node share the node's images, so each
// child costs one table lookup and OR per symmetry instead of the shifts
// and swaps of a full transform (BenchmarkCounter444 in package count
// measures the difference).
func (g *Game) ChildCanonical(im *[8]Position, n, cell int, xToMove bool) (Position, int) {
	var best Position
	bs := 0
	for s := range n {
		q := im[s]
		bit := uint64(1) << uint(g.perm[s][cell])
		if xToMove {
			q.X |= bit
		} else {
			q.O |= bit
		}
		if s == 0 || less(q, best) {
			best, bs = q, s
		}
	}
	return best, bs
}

// Canonical returns the least image of p under the symmetries of the board
// (comparing X, then O, as unsigned integers) and the size of p's orbit, the
// number of distinct images.
func (g *Game) Canonical(p Position) (Position, int) {
	im, n := g.Images(p)
	best := im[0]
	for s := 1; s < n; s++ {
		if less(im[s], best) {
			best = im[s]
		}
	}
	// The images equal to best are as many as the stabiliser of p; the
	// orbit is the group divided by the stabiliser.
	same := 0
	for s := range n {
		if im[s] == best {
			same++
		}
	}
	return best, n / same
}

// IsCanonical reports whether p is its own canonical form.
func (g *Game) IsCanonical(p Position) bool {
	c, _ := g.CanonicalSym(p)
	return c == p
}

// zobristKeys are the base keys, Zobrist[side][cell] with side 0 for X and
// 1 for O, fixed by a seed so that hashes are the same in every process
// (the runtime may persist them).
var zobristKeys = func() (k [2][64]uint64) {
	s := uint64(0x6d6e6b2d776f7072) // "mnk-wopr"
	for side := range 2 {
		for c := range 64 {
			// splitmix64
			s += 0x9e3779b97f4a7c15
			z := s
			z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			k[side][c] = z ^ z>>31
		}
	}
	return k
}()

func (g *Game) initSymmetries() {
	for s := range 8 {
		for c := range 64 {
			g.perm[s][c], g.inv[s][c] = -1, -1
		}
	}
	for s := range 8 {
		for c := range 64 {
			if s >= g.nsym || g.mask>>c&1 == 0 {
				continue
			}
			t := bits.TrailingZeros64(g.transform1(1<<c, s))
			g.perm[s][c] = int8(t)
			g.inv[s][t] = int8(c)
			g.zob[s][0][c] = zobristKeys[0][t]
			g.zob[s][1][c] = zobristKeys[1][t]
		}
	}
}

// zobrist returns the plain Zobrist hash of p.
func zobrist(p Position) uint64 {
	var h uint64
	for x := p.X; x != 0; x &= x - 1 {
		h ^= zobristKeys[0][bits.TrailingZeros64(x)]
	}
	for o := p.O; o != 0; o &= o - 1 {
		h ^= zobristKeys[1][bits.TrailingZeros64(o)]
	}
	return h
}

// Hash returns the Zobrist hash of the canonical form of p, the same for all
// symmetric positions. The keys are fixed, so hashes are stable across
// processes. A hash is for indexing: exact counts must compare positions.
func (g *Game) Hash(p Position) uint64 {
	c, _ := g.CanonicalSym(p)
	return zobrist(c)
}

package sudoku

import "math/bits"

// The fast solver keeps, for each digit and each band (three rows), the
// cells of the band where the digit may still go, as 27 bits (bit 9*r+c
// for row r of the band and column c). This is the bit-parallel band
// representation of JCZSolve and jsolve, rewritten here from the published
// description:
//
//   - Within a band a digit occupies one cell in each of the three rows and
//     in each of the three boxes, so its rows map to its boxes by a
//     permutation. From the 9 "mini-row" presence bits of a band word, one
//     table lookup gives the union of the mini-rows that belong to some
//     permutation still possible (complexMask). That one AND does pointing
//     and claiming (locked candidates) inside the band, finds box hidden
//     singles (the box's row is forced, and with it the row's other boxes
//     are cleared) and detects a digit that no longer fits the band.
//   - A row of a band word reduced to one bit is a row hidden single.
//   - Placing a digit clears the cell in the 8 other digits' words of the
//     band (one AND each), its row, box and column in its own band word,
//     and its column in the two other band words of the digit. Only words
//     marked in a todo set, and actually changed, are propagated again.
//   - Naked singles and empty cells come from counting, over the 9 digit
//     words of a band, which cells have at least one and at least two
//     candidates (two ORs and an AND per digit).
//   - Once those are exhausted, for each digit whose words changed: the
//     same permutation argument per stack (columns to bands, on the 9
//     mini-column presence bits) and column hidden singles. Without this
//     pass royle17 needs 14.5 guesses a puzzle instead of 1.1 and solves at
//     half the speed; the stack permutation alone halves the guesses (2.34
//     a puzzle without it, 1.28 with) and is worth 15% of the speed.
//   - A guess is made on a cell with two candidates, in the band with the
//     most empty cells (6% faster than the first such cell in row-major
//     order), else on the first cell with fewest candidates. The first
//     branches get a copy of the state (copy-make: 280 bytes, cheaper than
//     undoing the propagation); the last, the only possibility left,
//     continues in the parent's state.
//
// The simpler candidate-mask solver (plain_test.go) is about 35 times
// slower on royle17 and is kept as the reference of the differential
// tests. Words are indexed 3*d+b, and arrays have 32 entries so that masked
// indexes need no bounds checks (6% faster than checked indexes); a
// band-major layout was 10% slower. Speeds per corpus, and how these
// choices were measured: docs/benchmarks.md.

const (
	bandBits = 0x7FFFFFF // the 27 cells of a band
	rowBits  = 0x1FF     // the 9 cells of a row
)

// state is one node of the search.
type state struct {
	f        [32]uint32 // f[3*d+b]: band b's cells where digit d+1 may go (27-31 unused)
	prev     [32]uint32 // f as last propagated (a word that differs needs work)
	unsolved [4]uint32  // band b's cells not yet filled (3 unused)
	todo     uint32     // bit i: f[i] may have changed since it was propagated
	colDirty uint32     // bit d: digit d's words changed since its column singles were sought
}

var (
	// shrink[v]: bit x set if the 9-bit row v has a cell in box x (mini-row x).
	shrink [512]uint8
	// complexMask[p]: for the mini-row presence p of a band word (bit 3r+x:
	// row r has a candidate in box x), the union of the mini-rows of the
	// row-to-box permutations allowed by p; 0 if there is none.
	complexMask [512]uint32
	// allowed9[p]: for the presence p of a digit's mini-columns in a
	// stack (bit 3*b+j: band b has a candidate in the stack's column j),
	// the mini-columns of the band-to-column permutations allowed by p.
	allowed9 [512]uint32
	// bandPeers[pos]: a band word with the row, box and column of pos
	// cleared, pos itself kept.
	bandPeers [32]uint32
	// colMask[c]: column c in a band word.
	colMask [9]uint32
	// otherBands[b]: the two other bands.
	otherBands = [3][2]int{{1, 2}, {0, 2}, {0, 1}}
	// bandWords[b]: the todo bits of the 9 digit words of band b.
	bandWords = [3]uint32{0x1249249, 0x1249249 << 1, 0x1249249 << 2}
	// placeTodo[i]: the words that placing digit d in band b may change,
	// for i = 3*d+b: the band's 9 words and the digit's other two.
	placeTodo [32]uint32
	// sameDigit[i]: the digit's words in the two other bands.
	sameDigit [32][2]uint8
	// colOf[pos]: the column of band cell pos.
	colOf [32]uint8
	// bandOf[i]: the band of word i.
	bandOf [32]uint8
)

func init() {
	for v := range 512 {
		for x := range 3 {
			if v&(7<<(3*x)) != 0 {
				shrink[v] |= 1 << x
			}
		}
	}
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for p := range 512 {
		var m uint32
		for _, pi := range perms {
			ok := true
			for r, x := range pi {
				if p&(1<<(3*r+x)) == 0 {
					ok = false
				}
			}
			if ok {
				for r, x := range pi {
					m |= 7 << (9*r + 3*x)
				}
			}
		}
		complexMask[p] = m
		for r := range 3 {
			for x := range 3 {
				if m&(1<<(9*r+3*x)) != 0 {
					allowed9[p] |= 1 << (3*r + x)
				}
			}
		}
	}
	for c := range 9 {
		colMask[c] = 1<<c | 1<<(9+c) | 1<<(18+c)
	}
	for i := range 27 {
		d, b := i/3, i%3
		o := otherBands[b]
		sameDigit[i] = [2]uint8{uint8(3*d + o[0]), uint8(3*d + o[1])}
		placeTodo[i] = bandWords[b] | 1<<(3*d+o[0]) | 1<<(3*d+o[1])
		bandOf[i] = uint8(b)
	}
	for pos := range 27 {
		colOf[pos] = uint8(pos % 9)
	}
	for pos := range 27 {
		r, c := pos/9, pos%9
		m := uint32(rowBits) << (9 * r)
		for rr := range 3 {
			m |= 7 << (9*rr + c/3*3)
		}
		m |= colMask[c]
		bandPeers[pos] = bandBits&^m | 1<<pos
	}
}

// place fills cell bit of band b with digit d (0-based), given as its word
// i = 3*d+b. The caller knows that d is a candidate of the cell.
func (st *state) place(i int, bit uint32) {
	i &= 31
	b := int(bandOf[i])
	pos := bits.TrailingZeros32(bit) & 31
	st.unsolved[b&3] &^= bit
	own := st.f[i] & bandPeers[pos&31]
	for j := b; j < 27; j += 3 {
		st.f[j] &^= bit
	}
	st.f[i] = own
	c := colMask[colOf[pos]]
	o := &sameDigit[i]
	st.f[o[0]&31] &^= c
	st.f[o[1]&31] &^= c
	st.todo |= placeTodo[i]
}

// updateBand propagates a changed band word i = 3*d+b: the permutation
// mask, then row hidden singles. It returns false on a contradiction.
func (st *state) updateBand(i int) bool {
	i &= 31
	w := st.f[i]
	p := uint32(shrink[w&rowBits]) | uint32(shrink[w>>9&rowBits])<<3 | uint32(shrink[w>>18&rowBits])<<6
	w &= complexMask[p&511]
	if w == 0 {
		return false
	}
	st.f[i], st.prev[i] = w, w
	st.colDirty |= 1 << (i / 3)
	u := st.unsolved[bandOf[i]&3]
	if x := w & rowBits; x&(x-1) == 0 && x&u != 0 {
		st.place(i, x)
	}
	if x := w & (rowBits << 9); x&(x-1) == 0 && x&u != 0 {
		st.place(i, x)
	}
	if x := w & (rowBits << 18); x&(x-1) == 0 && x&u != 0 {
		st.place(i, x)
	}
	return true
}

// nakedSingles fills the cells with one candidate left. It returns whether
// it filled any, and false for ok on a contradiction (a cell with none).
func (st *state) nakedSingles() (progress, ok bool) {
	for b := range 3 {
		u := st.unsolved[b]
		if u == 0 {
			continue
		}
		var ones, twos uint32
		for i := b; i < 27; i += 3 {
			x := st.f[i]
			twos |= ones & x
			ones |= x
		}
		if u&^ones != 0 {
			return false, false
		}
		for s := u &^ twos; s != 0; s &= s - 1 {
			bit := s & -s
			d := 0
			for d < 9 && st.f[3*d+b]&bit == 0 {
				d++
			}
			if d == 9 {
				return false, false // emptied by an earlier single of this loop
			}
			st.place(3*d+b, bit)
			progress = true
		}
	}
	return progress, true
}

// columnSingles fills the cells that are the only place of a digit in
// their column, and fails if a digit has no place left in some column.
func (st *state) columnSingles() (progress, ok bool) {
	for ; st.colDirty != 0; st.colDirty &= st.colDirty - 1 {
		d := bits.TrailingZeros32(st.colDirty)
		var any, multi [3]uint32
		for b := range 3 {
			w := st.f[3*d+b]
			r0, r1, r2 := w&rowBits, w>>9&rowBits, w>>18
			any[b] = r0 | r1 | r2
			multi[b] = r0&r1 | r0&r2 | r1&r2
		}
		if any[0]|any[1]|any[2] != rowBits {
			return false, false
		}
		// In each stack the digit's columns map to its bands by a
		// permutation too: a mini-column (band, column) outside every
		// permutation still possible is cleared (locked candidates
		// between columns and boxes, which the band words cannot see).
		var clear [3]uint32
		for sh := 0; sh < 9; sh += 3 {
			p := any[0]>>sh&7 | (any[1]>>sh&7)<<3 | (any[2]>>sh&7)<<6
			a := allowed9[p]
			if a == 0 {
				return false, false
			}
			if x := p &^ a; x != 0 {
				clear[0] |= (x & 7) << sh
				clear[1] |= (x >> 3 & 7) << sh
				clear[2] |= (x >> 6 & 7) << sh
			}
		}
		for b, cols := range clear {
			if cols == 0 {
				continue
			}
			w := st.f[3*d+b] &^ (cols | cols<<9 | cols<<18)
			st.f[3*d+b] = w
			st.todo |= 1 << (3*d + b)
			progress = true
			r0, r1, r2 := w&rowBits, w>>9&rowBits, w>>18
			any[b] = r0 | r1 | r2
			multi[b] = r0&r1 | r0&r2 | r1&r2
		}
		for b := range 3 {
			o := otherBands[b]
			one := any[b] &^ multi[b] &^ any[o[0]] &^ any[o[1]]
			for ; one != 0; one &= one - 1 {
				c := bits.TrailingZeros32(one)
				bit := st.f[3*d+b] & colMask[c]
				if bit == 0 {
					return false, false // cleared by a placement of this loop
				}
				if bit&st.unsolved[b] != 0 {
					st.place(3*d+b, bit)
					progress = true
				}
			}
		}
	}
	return progress, true
}

// propagate runs the band updates, naked singles and column singles to a
// fixed point. It returns false on a contradiction.
func (st *state) propagate() bool {
	for {
		for st.todo != 0 {
			i := bits.TrailingZeros32(st.todo)
			st.todo &= st.todo - 1
			if st.f[i] != st.prev[i] && !st.updateBand(i) {
				return false
			}
		}
		if invariants {
			st.checkInvariants("after the band updates")
		}
		if st.unsolved[0]|st.unsolved[1]|st.unsolved[2] == 0 {
			return true
		}
		progress, ok := st.nakedSingles()
		if !ok {
			return false
		}
		if progress {
			continue
		}
		progress, ok = st.columnSingles()
		if !ok {
			return false
		}
		if !progress {
			return true
		}
	}
}

// grid writes the filled cells of st into g.
func (st *state) grid(g *Grid) {
	for d := range 9 {
		for b := range 3 {
			for w := st.f[3*d+b] &^ st.unsolved[b]; w != 0; w &= w - 1 {
				g[27*b+bits.TrailingZeros32(w)] = uint8(d + 1)
			}
		}
	}
}

// guessCell picks the cell to branch on: the first cell with two
// candidates, else the first with fewest. It returns the band and the bit.
func (st *state) guessCell() (b int, bit uint32) {
	bestB, bestBit, bestU := -1, uint32(0), -1
	for b := range 3 {
		u := st.unsolved[b]
		if u == 0 {
			continue
		}
		var ones, twos, threes uint32
		for i := b; i < 27; i += 3 {
			x := st.f[i]
			threes |= twos & x
			twos |= ones & x
			ones |= x
		}
		if biv := u & twos &^ threes; biv != 0 {
			if n := bits.OnesCount32(u); n > bestU {
				bestB, bestBit, bestU = b, biv&-biv, n
			}
		}
	}
	if bestB >= 0 {
		return bestB, bestBit
	}
	best, bestN := -1, 10
	for b := range 3 {
		for u := st.unsolved[b]; u != 0; u &= u - 1 {
			bit := u & -u
			n := 0
			for i := b; i < 27; i += 3 {
				if st.f[i]&bit != 0 {
					n++
				}
			}
			if n < bestN {
				best, bestN = 27*b+bits.TrailingZeros32(bit), n
			}
		}
	}
	return best / 27, 1 << (best % 27)
}

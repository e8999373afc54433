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
//   - On amd64 with BMI2 propagate (band updates, naked singles and
//     column singles, below) runs in assembly (bandasm_amd64.s), whose
//     band updates mark in todo only the words a placement changed:
//     testing every marked word against its last propagated value was a
//     mispredicted branch on half of them, and in Go, marking exactly cost
//     more than it saved. With AVX-512 its column pass takes every digit
//     at once (colVector), with AVX2 digits 0-7 (colVector2). Where PEXT
//     and PDEP are microcoded (AMD before Zen 3) the same assembly runs
//     without them (propagateAsmNoPEXT).
//   - Naked singles and empty cells come from counting, over the 9 digit
//     words of a band, which cells have at least one and at least two
//     candidates (two ORs and an AND per digit).
//   - Once those are exhausted, for each digit whose words changed: the
//     same permutation argument per stack (columns to bands, on the 9
//     mini-column presence bits) and column hidden singles. Without this
//     pass royle17 needs 14.5 guesses a puzzle instead of 1.1 and solves at
//     half the speed; the stack permutation alone halves the guesses (2.34
//     a puzzle without it, 1.28 with) and is worth 15% of the speed.
//   - Once those are exhausted too, triads (tdoku's name): the three cells
//     of a mini-row or mini-column hold exactly three digits, which locks
//     digits into an intersection where only three can go, clears an
//     intersection that three digits are locked into, and fails on an
//     intersection with fewer than three digits or more than three locked
//     in (see triads). Their scan, a pure function of the 27 words, has an
//     AVX-512 version chosen at run time (triads_amd64.s).
//   - A guess is made as tdoku makes it: on the band or stack not yet
//     fixed whose digits have the fewest permutations left in all, on its
//     digit with the fewest (two when there is one), one branch per
//     permutation, so that the search treats columns as it treats rows.
//     The triads are what make this branching work: without them, digits
//     restricted to the same mini-rows overfill an intersection unnoticed
//     until cells run out, and the empty grid takes minutes. Together,
//     against a guess on a cell with two candidates in the band with the
//     most empty cells and no triads, they cut the guesses a puzzle on
//     royle17 from 1.09 to 0.57, on top1465 from 15.7 to 9.0, on
//     forum-hardest-1905-11plus from 115 to 61: about tdoku's own counts.
//     The first branches get a copy of the state (copy-make: 280 bytes,
//     cheaper than undoing the propagation); the last, the only
//     possibility left, continues in the parent's state.
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
	// colAt[pos]: the column of band cell pos, in a band word.
	colAt [32]uint32
	// bandOf[i]: the band of word i.
	bandOf [32]uint8
	// lockedRow[p]: the mini-rows of presence p (as complexMask's index)
	// that are alone in their row: the digit is locked into them.
	lockedRow [512]uint16
	// miniRowCells[3*r+x]: the cells of row r in box x, in a band word.
	miniRowCells [9]uint32
	// miniRowLock[3*r+x]: a band word without row r outside box x and box
	// x outside row r (a digit locked into that mini-row).
	miniRowLock [9]uint32
	// boxCols[c]: the three columns of column c's box, in a band word.
	boxCols [9]uint32
	// permsBits[k]: the k-th row-to-box permutation of a band as mini-row
	// presence bits (bit 3r+x: row r in box x); the same bits read as
	// band-to-column presence (bit 3b+j) are the permutations of a stack.
	permsBits [6]uint16
	// permCells[k]: the cells of permsBits[k] in a band word.
	permCells [6]uint32
	// restrictClear[kind][idx][k][b]: what keeping a digit to
	// permutation k of band idx (kind 0) or stack idx (kind 1) clears in
	// its band b word: in the band, the cells off the permutation; in
	// each band, the stack's columns but the one the permutation gives
	// it. restrictTodo[kind][idx]: the words changed, for digit 0.
	restrictClear [2][3][6][3]uint32
	restrictTodo  [2][3]uint32
	// permCount[p]: how many of the six permutations presence p allows.
	permCount [512]uint8
	// permList[p]: the permutations presence p allows, for the branches
	// of a guess: their count in bits 0-2, then their indexes into
	// permsBits, three bits each from bit 3.
	permList [512]uint32
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
	for k, pi := range perms {
		for r, x := range pi {
			permsBits[k] |= 1 << (3*r + x)
			permCells[k] |= 7 << (9*r + 3*x)
		}
	}
	for p := range 512 {
		for k, m := range permsBits {
			if p&int(m) == int(m) {
				permList[p] |= uint32(k) << (3 + 3*permCount[p])
				permCount[p]++
			}
		}
		permList[p] |= uint32(permCount[p])
	}
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
	for c := range 9 {
		boxCols[c] = colMask[c/3*3] | colMask[c/3*3+1] | colMask[c/3*3+2]
	}
	for idx := range 3 {
		restrictTodo[0][idx], restrictTodo[1][idx] = 1<<idx, 7
		for k, m := range permsBits {
			restrictClear[0][idx][k][idx] = bandBits &^ permCells[k]
			for b := range 3 {
				j := bits.TrailingZeros16(m >> (3 * b) & 7)
				restrictClear[1][idx][k][b] = boxCols[3*idx] &^ colMask[3*idx+j]
			}
		}
	}
	for p := range 512 {
		for r := range 3 {
			if x := p >> (3 * r) & 7; x&(x-1) == 0 {
				lockedRow[p] |= uint16(x << (3 * r))
			}
		}
	}
	for r := range 3 {
		for x := range 3 {
			cells := uint32(7) << (9*r + 3*x)
			row := uint32(rowBits) << (9 * r)
			box := uint32(7<<(3*x)) * (1 | 1<<9 | 1<<18)
			miniRowCells[3*r+x] = cells
			miniRowLock[3*r+x] = bandBits&^(row|box) | cells
		}
	}
	for i := range 27 {
		d, b := i/3, i%3
		o := otherBands[b]
		sameDigit[i] = [2]uint8{uint8(3*d + o[0]), uint8(3*d + o[1])}
		placeTodo[i] = bandWords[b] | 1<<(3*d+o[0]) | 1<<(3*d+o[1])
		bandOf[i] = uint8(b)
	}
	for pos := range 27 {
		colAt[pos] = colMask[pos%9]
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
	// The band's nine words, written out: as a loop, its exit was
	// mispredicted on most placements.
	f := &st.f
	f[b&31] &^= bit
	f[(b+3)&31] &^= bit
	f[(b+6)&31] &^= bit
	f[(b+9)&31] &^= bit
	f[(b+12)&31] &^= bit
	f[(b+15)&31] &^= bit
	f[(b+18)&31] &^= bit
	f[(b+21)&31] &^= bit
	f[(b+24)&31] &^= bit
	f[i] = own
	c := colAt[pos&31]
	o := &sameDigit[i]
	st.f[o[0]&31] &^= c
	st.f[o[1]&31] &^= c
	st.todo |= placeTodo[i]
}

// placeSingles fills the cells singles of word i = 3*d+b with digit d, as
// place would one by one: singles are rows of the word reduced to one cell
// by the band update (at most one a row, in three boxes and three columns,
// the word having passed complexMask), so the clears commute and the word
// keeps its cells. The band assembly does the same (bandasm_propagate.h,
// place): a word's singles cost one sweep of the band instead of one each.
func (st *state) placeSingles(i int, singles uint32) {
	i &= 31
	b := int(bandOf[i])
	st.unsolved[b&3] &^= singles
	f := &st.f
	own := f[i]
	f[b&31] &^= singles
	f[(b+3)&31] &^= singles
	f[(b+6)&31] &^= singles
	f[(b+9)&31] &^= singles
	f[(b+12)&31] &^= singles
	f[(b+15)&31] &^= singles
	f[(b+18)&31] &^= singles
	f[(b+21)&31] &^= singles
	f[(b+24)&31] &^= singles
	// The cells' columns in the digit's other two words: each column c
	// of a cell, times 1 + 2^9 + 2^18.
	c := ((singles | singles>>9 | singles>>18) & rowBits) * 0x40201
	o := &sameDigit[i]
	f[o[0]&31] &^= c
	f[o[1]&31] &^= c
	f[i] = own
	st.todo |= placeTodo[i]
}

// rowSingles returns the rows of band word w reduced to one cell,
// gathered without a branch per row (the compiler makes these
// conditional moves): three unpredictable branches cost more than the
// few extra instructions. propagate's band update (a word i = 3*d+b that
// changed: the permutation mask, then these row hidden singles) places
// those not yet filled.
func rowSingles(w uint32) uint32 {
	var singles uint32
	if x := w & rowBits; x&(x-1) == 0 {
		singles = x
	}
	if x := w & (rowBits << 9); x&(x-1) == 0 {
		singles |= x
	}
	if x := w & (rowBits << 18); x&(x-1) == 0 {
		singles |= x
	}
	return singles
}

// nakedSingles fills the cells with one candidate left. It returns whether
// it filled any, and false for ok on a contradiction (a cell with none).
func (st *state) nakedSingles() (progress, ok bool) {
	for b := range 3 {
		u := st.unsolved[b]
		if u == 0 {
			continue
		}
		f := &st.f
		ones, twos := f[b&31], uint32(0)
		twos, ones = twos|ones&f[(b+3)&31], ones|f[(b+3)&31]
		twos, ones = twos|ones&f[(b+6)&31], ones|f[(b+6)&31]
		twos, ones = twos|ones&f[(b+9)&31], ones|f[(b+9)&31]
		twos, ones = twos|ones&f[(b+12)&31], ones|f[(b+12)&31]
		twos, ones = twos|ones&f[(b+15)&31], ones|f[(b+15)&31]
		twos, ones = twos|ones&f[(b+18)&31], ones|f[(b+18)&31]
		twos, ones = twos|ones&f[(b+21)&31], ones|f[(b+21)&31]
		twos, ones = twos|ones&f[(b+24)&31], ones|f[(b+24)&31]
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
//
// Written out band by band with constant shifts: as loops over the bands,
// with the bands' column sets in arrays, it took a third more instructions.
func (st *state) columnSingles() (progress, ok bool) {
	for ; st.colDirty != 0; st.colDirty &= st.colDirty - 1 {
		d := bits.TrailingZeros32(st.colDirty)
		i0, i1, i2 := (3*d)&31, (3*d+1)&31, (3*d+2)&31
		w0, w1, w2 := st.f[i0], st.f[i1], st.f[i2]
		a0 := (w0 | w0>>9 | w0>>18) & rowBits // the band's columns with a place
		a1 := (w1 | w1>>9 | w1>>18) & rowBits
		a2 := (w2 | w2>>9 | w2>>18) & rowBits
		if a0|a1|a2 != rowBits {
			return false, false
		}
		// In each stack the digit's columns map to its bands by a
		// permutation too: a mini-column (band, column) outside every
		// permutation still possible is cleared (locked candidates
		// between columns and boxes, which the band words cannot see).
		q0 := a0&7 | a1&7<<3 | a2&7<<6
		q1 := a0>>3&7 | a1>>3&7<<3 | a2>>3&7<<6
		q2 := a0>>6&7 | a1>>6&7<<3 | a2>>6&7<<6
		k0, k1, k2 := allowed9[q0], allowed9[q1], allowed9[q2]
		if k0 == 0 || k1 == 0 || k2 == 0 {
			return false, false
		}
		if x0, x1, x2 := q0&^k0, q1&^k1, q2&^k2; x0|x1|x2 != 0 {
			c0 := x0&7 | (x1&7)<<3 | (x2&7)<<6 // columns to clear, band by band
			c1 := x0>>3&7 | (x1>>3&7)<<3 | (x2>>3&7)<<6
			c2 := x0>>6 | (x1>>6)<<3 | (x2>>6)<<6
			w0 &^= c0 * (1 | 1<<9 | 1<<18)
			w1 &^= c1 * (1 | 1<<9 | 1<<18)
			w2 &^= c2 * (1 | 1<<9 | 1<<18)
			st.f[i0], st.f[i1], st.f[i2] = w0, w1, w2
			st.todo |= 7 << i0
			progress = true
			a1, a2 = a1&^c1, a2&^c2 // a0 is not read again
		}
		// Columns with one place in all (counted over the nine rows),
		// leaving out those the digit already fills.
		ones, twos := w0&rowBits, uint32(0)
		twos, ones = twos|ones&(w0>>9), ones|w0>>9
		twos, ones = twos|ones&(w0>>18), ones|w0>>18
		twos, ones = twos|ones&(w1), ones|w1
		twos, ones = twos|ones&(w1>>9), ones|w1>>9
		twos, ones = twos|ones&(w1>>18), ones|w1>>18
		twos, ones = twos|ones&(w2), ones|w2
		twos, ones = twos|ones&(w2>>9), ones|w2>>9
		twos, ones = twos|ones&(w2>>18), ones|w2>>18
		filled := w0&^st.unsolved[0] | w1&^st.unsolved[1] | w2&^st.unsolved[2]
		one := (ones &^ twos &^ (filled | filled>>9 | filled>>18)) & rowBits
		for ; one != 0; one &= one - 1 {
			c := bits.TrailingZeros32(one) & 31
			b := 0
			if a1>>c&1 != 0 {
				b = 1
			} else if a2>>c&1 != 0 {
				b = 2
			}
			i := (3*d + b) & 31
			bit := st.f[i] & colAt[c]
			if bit == 0 {
				return false, false // cleared by a placement of this loop
			}
			if bit&st.unsolved[b&3] != 0 {
				st.place(i, bit)
				progress = true
			}
		}
	}
	return progress, true
}

// propagate runs the band updates, naked singles and column singles to a
// fixed point (the search then runs the triads, and propagates again if
// they cleared anything). It returns false on a contradiction.
func (st *state) propagate() bool {
	if useBandAsm {
		var ok bool
		if useBandNoPEXT {
			ok = propagateAsmNoPEXT(st)
		} else {
			ok = propagateAsm(st)
		}
		if invariants && ok {
			st.checkInvariants("after propagate")
		}
		return ok
	}
	for {
		for st.todo != 0 {
			i := bits.TrailingZeros32(st.todo) & 31
			st.todo &= st.todo - 1
			if st.f[i] == st.prev[i] {
				continue
			}
			// The band update, written in: as a call it was not inlined, and
			// the pure Go path was 4% slower on top1465 and plb-top50k.
			w := st.f[i]
			p := uint32(shrink[w&rowBits]) | uint32(shrink[w>>9&rowBits])<<3 | uint32(shrink[w>>18&rowBits])<<6
			w &= complexMask[p&511]
			if w == 0 {
				return false
			}
			st.f[i], st.prev[i] = w, w
			st.colDirty |= 1 << (i / 3)
			if singles := rowSingles(w) & st.unsolved[bandOf[i]&3]; singles != 0 {
				st.placeSingles(i, singles)
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

// triads applies the cardinality of intersections (tdoku's triads): the
// three cells of a mini-row (a row within a box) or a mini-column hold
// exactly three digits. So a mini-row where only three digits can go holds
// all three, each then locked there (cleared from the rest of its row and
// box); and a mini-row that three digits are each locked into holds
// nothing else. The same for mini-columns, with columns and boxes. Fewer
// than three digits, or more than three locked in, is a contradiction.
//
// Mini-rows are indexed 9*b+3*r+x (band b, row r of the band, box x of the
// band) and mini-columns 9*b+c (band b, column c), so that each digit's
// presence in the 27 mini-rows, and in the 27 mini-columns, is one word,
// and counting digits per intersection is bit-sliced over 9 words.
//
// The digits' presence in the mini-rows and mini-columns stays in tr for
// choose, when the triads clear nothing.
func (st *state) triads(tr *triadView) (progress, ok bool) {
	var s triadSums
	if !triadScan(&st.f, tr, &s) {
		return false, false
	}
	rowP, colP, rowF, colF := &tr.rowP, &tr.colP, &s.rowF, &s.colF
	// The intersections with exactly three digits present, three locked in.
	rowAll, rowLocked, colAll, colLocked := s.rowAll, s.rowLocked, s.colAll, s.colLocked
	// Only the digits with something to clear: on most calls, none.
	for work := s.work; work != 0; work &= work - 1 {
		d := bits.TrailingZeros32(work)
		// Digits newly locked into a mini-row: clear the rest of its row and box.
		for x := rowP[d] & rowAll &^ rowF[d]; x != 0; x &= x - 1 {
			t := bits.TrailingZeros32(x)
			b, m := t/9, t%9
			i := 3*d + b
			st.f[i&31] &= miniRowLock[m]
			st.todo |= 1 << i
		}
		// Digits not locked into a mini-row that three others are locked into.
		for x := rowP[d] & rowLocked &^ rowF[d]; x != 0; x &= x - 1 {
			t := bits.TrailingZeros32(x)
			b, m := t/9, t%9
			i := 3*d + b
			st.f[i&31] &^= miniRowCells[m]
			st.todo |= 1 << i
		}
		for x := colP[d] & colAll &^ colF[d]; x != 0; x &= x - 1 {
			t := bits.TrailingZeros32(x)
			b, c := t/9, t%9
			i := 3*d + b
			o := &sameDigit[i]
			st.f[o[0]&31] &^= colMask[c]
			st.f[o[1]&31] &^= colMask[c]
			st.f[i&31] &^= boxCols[c] &^ colMask[c]
			st.todo |= 1<<i | 1<<o[0] | 1<<o[1]
		}
		for x := colP[d] & colLocked &^ colF[d]; x != 0; x &= x - 1 {
			t := bits.TrailingZeros32(x)
			b, c := t/9, t%9
			i := 3*d + b
			st.f[i&31] &^= colMask[c]
			st.todo |= 1 << i
		}
	}
	st.colDirty |= s.work
	return s.work != 0, true
}

// miniRows returns the mini-row presence of band word w (bit 3r+x: row r
// has a candidate in box x) and its column presence (bit c: column c has
// a candidate).
func miniRows(w uint32) (p, cols uint32) {
	r0, r1, r2 := w&rowBits, w>>9&rowBits, w>>18&rowBits
	return uint32(shrink[r0]) | uint32(shrink[r1])<<3 | uint32(shrink[r2])<<6, r0 | r1 | r2
}

// solution writes the grid of st, which has no empty cell, into g: each
// word then holds one cell in each row of its band, three bits found
// without a loop. With AVX-512, solutionAVX512 writes it in two stores;
// with AVX2, solutionAVX2 in three.
func (st *state) solution(g *Grid) {
	if useSolutionAsm {
		solutionAVX512(&st.f, g)
		return
	}
	if useSolutionAVX2 {
		solutionAVX2(&st.f, g)
		return
	}
	for d := range 9 {
		v := uint8(d + 1)
		w0, w1, w2 := st.f[(3*d)&31], st.f[(3*d+1)&31], st.f[(3*d+2)&31]
		g[bits.TrailingZeros32(w0&rowBits)] = v
		g[9+bits.TrailingZeros32(w0>>9&rowBits)] = v
		g[18+bits.TrailingZeros32(w0>>18&rowBits)] = v
		g[27+bits.TrailingZeros32(w1&rowBits)] = v
		g[36+bits.TrailingZeros32(w1>>9&rowBits)] = v
		g[45+bits.TrailingZeros32(w1>>18&rowBits)] = v
		g[54+bits.TrailingZeros32(w2&rowBits)] = v
		g[63+bits.TrailingZeros32(w2>>9&rowBits)] = v
		g[72+bits.TrailingZeros32(w2>>18&rowBits)] = v
	}
}

// triadView is the presence of each digit in the 27 mini-rows and the 27
// mini-columns, and the permutations left in each band and stack, as
// triads computes them.
type triadView struct {
	rowP, colP [9]uint32
	perms      [2][3]uint8 // [0][b]: band b's permutations, all digits; [1][s]: stack s's
	// best[4*kind+idx]: the key of choose's digit in band idx (kind 0)
	// or stack idx (kind 1), m<<4 | d for the digit d with the fewest
	// permutations m >= 2 (the first of them), 7<<4 if none has two.
	best [8]uint8
}

// presence returns digit d's presence in band idx (kind 0: bit 3r+x, row
// r in box x) or in stack idx (kind 1: bit 3b+j, band b in the stack's
// column j): the same permutations read both.
func (tr *triadView) presence(kind, idx, d int) uint16 {
	if kind == 0 {
		return uint16(tr.rowP[d] >> (9 * idx) & 511)
	}
	c := tr.colP[d] >> (3 * idx)
	return uint16(c&7 | c>>9&7<<3 | c>>18&7<<6)
}

// choose picks what to branch on as tdoku does: among the bands and stacks
// not yet fixed, the one whose digits have the fewest permutations left
// in all, and in it the digit with the fewest (two if possible), which
// the scan of triads found for each band and stack (best). It
// returns kind 0 for band idx or 1 for stack idx, and the digit d; ok is
// false if every band and stack is fixed, which a propagated state with
// empty cells never is: a digit fixed in a band and in a stack is a row
// hidden single in each box.
func (tr *triadView) choose() (kind, idx, d int, ok bool) {
	// The band or stack: the least of the keys count-10<<3 | 2i+kind,
	// taken without branches (comparing the counts was mispredicted
	// about once a guess); a fixed one (a count of 9) wraps round above
	// all the others, and ties go to the first in order.
	n := &tr.perms
	best := (uint64(n[0][0]) - 10) << 3
	for j := uint64(1); j < 6; j++ {
		key := (uint64(n[j&1][j>>1])-10)<<3 | j
		_, less := bits.Sub64(key, best, 0)
		best ^= (best ^ key) & -less
	}
	if best >= 1<<32 {
		return 0, 0, 0, false
	}
	kind, idx = int(best&1), int(best>>1&3)
	return kind, idx, int(tr.best[(4*kind+idx)&7] & 15), true
}

// restrict keeps digit d to permutation k in band idx (kind 0) or stack
// idx (kind 1), for propagate to take on from there. The cells to clear
// in the digit's three words come from a table, without a branch on the
// kind (mispredicted on about half the guesses).
func (st *state) restrict(kind, idx, d, k int) {
	c := &restrictClear[kind&1][idx%3][k%6]
	st.f[(3*d)&31] &^= c[0]
	st.f[(3*d+1)&31] &^= c[1]
	st.f[(3*d+2)&31] &^= c[2]
	st.todo |= restrictTodo[kind&1][idx%3] << (3 * d)
	st.colDirty |= 1 << d
}

package sudoku

import "encoding/binary"

// triadSums is what the scan of triads computes besides the triadView:
// the digits locked into each mini-row and mini-column, and the
// intersections that have exactly three digits present (rowAll, colAll)
// or three digits locked in (rowLocked, colLocked), in the indexing of
// triadView (mini-row 9*b+3*r+x, mini-column 9*b+c).
type triadSums struct {
	rowF, colF                           [9]uint32 // [d]: digit d's locked mini-rows, mini-columns
	rowAll, rowLocked, colAll, colLocked uint32
	// work: bit d if digit d has something for the triads to clear, a
	// mini-row or mini-column in rowAll|rowLocked or colAll|colLocked
	// that it is present in but not locked into.
	work uint32
}

// triadScan is the scan of triads: from the band words f, it fills tr and
// s and returns false if some intersection has fewer than three digits
// present or more than three locked in. It runs an assembly version
// where the build has one and the CPU has what it needs (triads_amd64.s:
// AVX-512, else AVX2), else triadScanGo.
func triadScan(f *[32]uint32, tr *triadView, s *triadSums) bool {
	if triadHook != nil {
		triadHook(*f)
	}
	if useTriadAsm {
		return triadScanAVX512(f, tr, s)
	}
	if useTriadAVX2 {
		return triadScanAVX2(f, tr, s)
	}
	return triadScanGo(f, tr, s)
}

// digitKeys are choose's keys of digit d, of permutations m (a byte a band
// or stack, as tr.best): each byte m<<4 | d, or 7<<4 | d where m < 2.
func digitKeys(m uint64, d int) uint64 {
	const ones, high = 0x01010101_01010101, 0x80808080_80808080
	few := ((m|high)-2*ones)&high ^ high // high bit of each byte where m < 2
	few = few >> 7 * 0xff                // 0xff there
	return (m<<4&^few | 0x70*ones&few) | uint64(d)*ones
}

// minBytes is the bytewise least of a and b (bytes below 0x80).
func minBytes(a, b uint64) uint64 {
	const ones, high = 0x01010101_01010101, 0x80808080_80808080
	less := ((a|high)-b)&high ^ high // where a < b
	less = less >> 7 * 0xff
	return a&less | b&^less
}

// triadHook, set by tests, sees every state that reaches triadScan (a
// copy: the arguments must not escape, or the scan would allocate).
var triadHook func(f [32]uint32)

// triadScanGo is the portable triadScan.
func triadScanGo(f *[32]uint32, tr *triadView, s *triadSums) bool {
	rowP, colP := &tr.rowP, &tr.colP
	rowF, colF := &s.rowF, &s.colF
	// Bit-sliced counts, mini-rows in the low half and mini-columns in
	// the high half of each word (fewer registers: with sixteen 32-bit
	// counters the loop spilled to memory): p1..p4 the intersections
	// with at least n digits present, f1..f4 with at least n locked in.
	var p1, p2, p3, p4, f1, f2, f3, f4 uint64
	var perms uint64 // permutations left: byte b band b, byte 4+s stack s
	keys := uint64(0x70707070_70707070)
	for d := range 9 {
		// Written out band by band with constant shifts: as loops over
		// the bands and stacks this pass took twice the instructions.
		b0, a0 := miniRows(f[(3*d)&31])
		b1, a1 := miniRows(f[(3*d+1)&31])
		b2, a2 := miniRows(f[(3*d+2)&31])
		rp := b0 | b1<<9 | b2<<18
		rf := uint32(lockedRow[b0&511]) | uint32(lockedRow[b1&511])<<9 | uint32(lockedRow[b2&511])<<18
		cp := a0 | a1<<9 | a2<<18
		cf := a0&^a1&^a2 | (a1&^a0&^a2)<<9 | (a2&^a0&^a1)<<18
		m := uint64(permCount[b0&511]) | uint64(permCount[b1&511])<<8 | uint64(permCount[b2&511])<<16 |
			uint64(permCount[a0&7|a1&7<<3|a2&7<<6])<<32 |
			uint64(permCount[a0>>3&7|a1>>3&7<<3|a2>>3&7<<6])<<40 |
			uint64(permCount[a0>>6&7|a1>>6&7<<3|a2>>6&7<<6])<<48
		perms += m
		keys = minBytes(keys, digitKeys(m, d))
		rowP[d], rowF[d], colP[d], colF[d] = rp, rf, cp, cf
	}
	// Counted in a second pass: in the first, the counters made the
	// loop run out of registers.
	for d := range 9 {
		p := uint64(rowP[d]) | uint64(colP[d])<<32
		f := uint64(rowF[d]) | uint64(colF[d])<<32
		p4 |= p3 & p
		p3 |= p2 & p
		p2 |= p1 & p
		p1 |= p
		f4 |= f3 & f
		f3 |= f2 & f
		f2 |= f1 & f
		f1 |= f
	}
	for k := range 3 {
		tr.perms[0][k] = uint8(perms >> (8 * k))
		tr.perms[1][k] = uint8(perms >> (8 * (k + 4)))
	}
	binary.LittleEndian.PutUint64(tr.best[:], keys)
	s.rowAll, s.rowLocked = uint32(p3)&^uint32(p4), uint32(f3)
	s.colAll, s.colLocked = uint32(p3>>32)&^uint32(p4>>32), uint32(f3>>32)
	rows, cols := s.rowAll|s.rowLocked, s.colAll|s.colLocked
	s.work = 0
	for d := range 9 {
		if rowP[d]&rows&^rowF[d]|colP[d]&cols&^colF[d] != 0 {
			s.work |= 1 << d
		}
	}
	return p3 == bandBits|bandBits<<32 && f4 == 0
}

package nineboard

import "fmt"

// check recomputes what Make and Unmake maintain incrementally (the hash,
// the full and won boards) and panics on a difference. Called only with the
// invariants build tag.
func (b *Board) check() {
	h := zobristNext[b.next+1]
	if b.side == O {
		h ^= zobristSide
	}
	var full uint16
	var won [2]uint16
	for bd := range 9 {
		for p := range 2 {
			for c := range 9 {
				if b.cells[p][bd]>>c&1 != 0 {
					h ^= zobristCell[p][bd*9+c]
				}
			}
		}
		if b.cells[X][bd]&b.cells[O][bd] != 0 {
			panic(fmt.Sprintf("nineboard: board %d has a cell of both sides", bd+1))
		}
		xs, os := b.cells[X][bd], b.cells[O][bd]
		switch {
		case b.variant == Ultimate && hasLine[xs]:
			won[X] |= 1 << bd
		case b.variant == Ultimate && hasLine[os]:
			won[O] |= 1 << bd
		case xs|os == full9:
			full |= 1 << bd
		}
	}
	if h != b.hash || full != b.full || won != b.won {
		panic(fmt.Sprintf("nineboard: %s: hash %x full %09b won %09b, recomputed %x %09b %09b", b, b.hash, b.full, b.won, h, full, won))
	}
}

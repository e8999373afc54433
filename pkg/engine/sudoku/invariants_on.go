//go:build invariants

package sudoku

import (
	"fmt"
	"math/bits"
)

// invariants turns on the self-checks of the band state (build tag
// invariants): go test -tags invariants ./pkg/engine/sudoku.
const invariants = true

// checkInvariants panics if st is not a consistent propagated state: every
// word within its band, every filled cell held by exactly one digit's word,
// and no candidate left in the row, column or box of a filled cell with
// the same digit (so the filled cells never conflict).
func (st *state) checkInvariants(where string) {
	fail := func(format string, args ...any) {
		var g Grid
		st.grid(&g)
		panic(fmt.Sprintf("sudoku: invariant broken %s: %s (filled cells %s)", where, fmt.Sprintf(format, args...), g))
	}
	for i := range 27 {
		if st.f[i]&^bandBits != 0 {
			fail("word %d has bits outside its band", i)
		}
	}
	for cell := range 81 {
		b, bit := cell/27, uint32(1)<<(cell%27)
		if st.unsolved[b]&bit != 0 {
			continue
		}
		d := -1
		for dd := range 9 {
			if st.f[3*dd+b]&bit != 0 {
				if d >= 0 {
					fail("filled cell %s held by digits %d and %d", cellName(cell), d+1, dd+1)
				}
				d = dd
			}
		}
		if d < 0 {
			fail("filled cell %s held by no digit", cellName(cell))
		}
		for _, p := range peers[cell] {
			pb, pbit := int(p)/27, uint32(1)<<(int(p)%27)
			if st.f[3*d+pb]&pbit != 0 {
				fail("digit %d at %s is still a candidate of its peer %s", d+1, cellName(cell), cellName(int(p)))
			}
		}
	}
}

// grid writes the filled cells of st into g (the failures' messages
// show partial states).
func (st *state) grid(g *Grid) {
	for d := range 9 {
		for b := range 3 {
			for w := st.f[3*d+b] &^ st.unsolved[b]; w != 0; w &= w - 1 {
				g[27*b+bits.TrailingZeros32(w)] = uint8(d + 1)
			}
		}
	}
}

// Package sudoku is wopr's Sudoku engine: parsing (one puzzle per line or
// the 9-row grid layout), a conflict test for the givens, an independent
// solution checker, an exact solver that counts solutions up to a limit
// (limit 2 answers "unique?") with a guess count as the difficulty figure,
// and the plain search strategies that `analyze sudoku compare` measures.
// It does no I/O beyond reading puzzles from an io.Reader.
package sudoku

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Grid is a Sudoku grid in row-major order: cell 9*row+column holds 0 for
// an empty cell or a digit 1 to 9.
type Grid [81]uint8

// String returns the grid as one line of 81 characters, '.' for an empty
// cell. ParseLine reads it back.
func (g Grid) String() string {
	var b [81]byte
	return string(g.Append(b[:0]))
}

// cellChars maps a cell to its character: '.' for empty, a digit, and '.'
// for anything else.
var cellChars = [256]byte{'.', '1', '2', '3', '4', '5', '6', '7', '8', '9'}

func init() {
	for v := 10; v < 256; v++ {
		cellChars[v] = '.'
	}
}

// Append appends the grid's 81 characters, as String writes them, to b.
func (g *Grid) Append(b []byte) []byte {
	n := len(b)
	b = slices.Grow(b, 81)[:n+81]
	for i, v := range g {
		b[n+i] = cellChars[v]
	}
	return b
}

// Format returns the grid in the 9-row layout with '|' and '-' between
// boxes, as Parse accepts it.
func (g Grid) Format() string {
	var sb strings.Builder
	for r := range 9 {
		if r == 3 || r == 6 {
			sb.WriteString("------+-------+------\n")
		}
		for c := range 9 {
			if c == 3 || c == 6 {
				sb.WriteString("| ")
			}
			v := g[9*r+c]
			if v >= 1 && v <= 9 {
				sb.WriteByte('0' + v)
			} else {
				sb.WriteByte('.')
			}
			if c < 8 {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Clues returns the number of filled cells. It counts eight cells at a
// time: the top bit of every nonzero byte, set without a carry between
// bytes. A loop over the cells costs about 70 ns a puzzle, a quarter of
// what a corpus worker adds to the engine per puzzle.
func (g *Grid) Clues() int {
	n := int(uint(g[80])+255) >> 8 // 1 if filled, without a branch
	for i := 0; i < 80; i += 8 {
		x := binary.LittleEndian.Uint64(g[i:])
		n += bits.OnesCount64((x&lows + lows | x) & highs)
	}
	return n
}

// units[u] lists the cells of unit u: rows 0-8, columns 9-17, boxes 18-26.
var units [27][9]uint8

func init() {
	for i := range 9 {
		for j := range 9 {
			units[i][j] = uint8(9*i + j)
			units[9+i][j] = uint8(9*j + i)
			units[18+i][j] = uint8(27*(i/3) + 3*(i%3) + 9*(j/3) + j%3)
		}
	}
}

// boxOf returns the box (0-8, row-major) of cell i.
func boxOf(i int) int { return i/27*3 + i%9/3 }

// unitName names unit u for messages: "row 3", "column 7", "box 4" (1-based;
// boxes numbered row-major).
func unitName(u int) string {
	switch {
	case u < 9:
		return fmt.Sprintf("row %d", u+1)
	case u < 18:
		return fmt.Sprintf("column %d", u-8)
	}
	return fmt.Sprintf("box %d", u-17)
}

// cellName names a cell for messages: "r3c7" (1-based).
func cellName(i int) string { return fmt.Sprintf("r%dc%d", i/9+1, i%9+1) }

// Conflict returns nil if no digit appears twice in a row, column or box of
// g, else the first such conflict (rows first, then columns, then boxes),
// e.g. "row 3 has two 5s (r3c2, r3c8)". A cell value outside 0..9 is also
// reported.
func (g Grid) Conflict() error {
	if g.consistent() {
		return nil
	}
	for i, v := range g {
		if v > 9 {
			return fmt.Errorf("cell %s holds %d, not a digit", cellName(i), v)
		}
	}
	for u := range units {
		var at [10]int // cell of each digit in the unit, plus one
		for _, c := range units[u] {
			v := g[c]
			if v == 0 {
				continue
			}
			if at[v] != 0 {
				return fmt.Errorf("%s has two %ds (%s, %s)", unitName(u), v, cellName(at[v]-1), cellName(int(c)))
			}
			at[v] = int(c) + 1
		}
	}
	return nil
}

// deadEnd says why a puzzle whose givens do not conflict has no solution,
// found by a search with this many guesses: the first empty cell that no
// digit can fill, else the first digit a row, column or box has no place
// for (from the givens alone), else what the search found.
func (g Grid) deadEnd(guesses int) string {
	var w walker // the plain strategies' digit masks per row, column and box
	for i, v := range g {
		if v != 0 {
			w.set(i, v)
		}
	}
	for i, v := range g {
		if v == 0 && w.free(i) == 0 {
			return cellName(i) + " has no candidate"
		}
	}
	for u := range units {
		var seen uint16 // digits placed in the unit or that an empty cell of it can take
		for _, c := range units[u] {
			if g[c] != 0 {
				seen |= 1 << (g[c] - 1)
			} else {
				seen |= w.free(int(c))
			}
		}
		if missing := 0x1FF &^ seen; missing != 0 {
			return fmt.Sprintf("%s has no place for a %d", unitName(u), bits.TrailingZeros16(missing)+1)
		}
	}
	if guesses == 0 {
		return "filling the forced cells leads to a contradiction"
	}
	return fmt.Sprintf("every branch of a search with %d guesses fails", guesses)
}

// consistent is the fast path of Conflict, one pass with a digit mask per
// unit; Conflict's unit-by-unit loop, which names the first conflict and
// costs several times more, runs only when it returns false.
func (g *Grid) consistent() bool {
	var row, col, box [9]uint16
	for i, v := range g {
		if v == 0 {
			continue
		}
		if v > 9 {
			return false
		}
		m := uint16(1) << v
		u := &cellUnits[i]
		r, c, b := u[0], u[1], u[2]
		if (row[r]|col[c]|box[b])&m != 0 {
			return false
		}
		row[r] |= m
		col[c] |= m
		box[b] |= m
	}
	return true
}

// cellUnits[i]: the row, column and box of cell i (each 0-8).
var cellUnits [81][3]uint8

func init() {
	for i := range cellUnits {
		cellUnits[i] = [3]uint8{uint8(i / 9), uint8(i % 9), uint8(boxOf(i))}
	}
}

// Check reports whether solution is a solution of puzzle: complete, every
// row, column and box a permutation of 1-9, and every given of puzzle kept.
// It is deliberately simple and shares nothing with the solvers, so that
// it can vouch for their answers. Its test runs as checkFast, or with
// AVX-512 as checkAVX512 and with AVX2 as checkAVX2 (solution_amd64.s),
// which TestCheckAsm holds to checkFast.
func Check(puzzle, solution Grid) error { return check(&puzzle, &solution) }

// check is Check on the grids in place (Classify's: passing them by value
// copied 162 bytes a puzzle, 2% of a hard corpus's time).
func check(puzzle, solution *Grid) error {
	switch {
	case useSolutionAsm:
		if checkAVX512(puzzle, solution) {
			return nil
		}
	case useSolutionAVX2:
		if checkAVX2(puzzle, solution) {
			return nil
		}
	default:
		if checkFast(puzzle, solution) {
			return nil
		}
	}
	for i, v := range solution {
		if v < 1 || v > 9 {
			return fmt.Errorf("cell %s is not filled", cellName(i))
		}
		if p := puzzle[i]; p != 0 && p != v {
			return fmt.Errorf("cell %s is %d, the given is %d", cellName(i), v, p)
		}
	}
	if err := solution.Conflict(); err != nil {
		return err
	}
	return fmt.Errorf("sudoku: Check disagrees with itself on %s", *solution) // unreachable
}

// checkFast is Check's one-pass test: every cell a digit that keeps the
// given, and all 27 units full. Check explains a failure the slow way.
//
// It runs once or twice a puzzle beside a solver that takes a few
// microseconds, so it is written for speed. The givens and the range of
// the cells (0-9) are tested eight cells at a time. Then each cell's digit
// v becomes the bit 1<<v in a 16-bit lane of a word (laneBit), four cells a
// word, and the words of a row, of a band and of the grid are ORed and
// folded: a unit is full when its cells' bits are exactly bits 1 to 9 (a 0
// sets bit 0).
func checkFast(puzzle, solution *Grid) bool {
	const (
		low7, high = 0x7F7F7F7F7F7F7F7F, 0x8080808080808080
		// A byte of 0-127 plus over9 has its high bit set when it is 10
		// or more (and never carries into the next byte).
		over9 = 0x7676767676767676
		full  = 0x3FE // bits 1-9
	)
	nonzero := func(x uint64) uint64 { return ((x & low7) + low7 | x) & high }
	var bad uint64
	for i := 0; i < 80; i += 8 {
		p := binary.LittleEndian.Uint64(puzzle[i:])
		s := binary.LittleEndian.Uint64(solution[i:])
		bad |= nonzero(p)&nonzero(p^s) | ((s&low7)+over9|s)&high
	}
	if p, s := puzzle[80], solution[80]; bad != 0 || s > 9 || p != 0 && p != s {
		return false
	}
	// From here every cell is 0-9, so v&15 is v.
	var colA, colB, colC, units uint64
	for band := 0; band < 81; band += 27 {
		var bandA, bandB, bandC uint64
		for r := band; r < band+27; r += 9 {
			g := (*[9]uint8)(solution[r : r+9])
			a := laneBit[0][g[0]&15] | laneBit[1][g[1]&15] | laneBit[2][g[2]&15] | laneBit[3][g[3]&15]
			b := laneBit[0][g[4]&15] | laneBit[1][g[5]&15] | laneBit[2][g[6]&15] | laneBit[3][g[7]&15]
			c := laneBit[0][g[8]&15]
			bandA, bandB, bandC = bandA|a, bandB|b, bandC|c
			row := a | b
			row |= row >> 32
			row |= row >> 16
			units |= (row|c)&0xFFFF ^ full
		}
		colA, colB, colC = colA|bandA, colB|bandB, colC|bandC
		box0 := bandA | bandA>>16 | bandA>>32 // cells 0-2: lanes 0-2 of bandA
		box1 := bandA>>48 | bandB | bandB>>16 // cells 3-5
		box2 := bandB>>32 | bandB>>48 | bandC // cells 6-8
		units |= (box0&0xFFFF ^ full) | (box1&0xFFFF ^ full) | (box2&0xFFFF ^ full)
	}
	const fullLanes = full * 0x0001000100010001
	return units == 0 && colA == fullLanes && colB == fullLanes && colC == full
}

// laneBit[k][v]: the bit 1<<v in lane k (bits 16k to 16k+15) of a word,
// for a cell value v of 0-15.
var laneBit [4][16]uint64

func init() {
	for k := range laneBit {
		for v := range laneBit[k] {
			laneBit[k][v] = 1 << (16*k + v)
		}
	}
}

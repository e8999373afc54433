package pns

import (
	"encoding/binary"
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/order"
)

// The solver's source (pns.go, zones.go, matching.go, persist.go) is
// written against the names of this file: the board's game and position
// types, a set of cells, and the operations on sets. Here a set is a
// 64-bit word, the boards of package mnk; package wide/pns compiles the
// same files (copied by go generate) against sets of 128 cells, for boards
// such as 9x9. Each operation is a leaf the compiler inlines, so the
// solver on 64-bit words runs the code it ran when it used the operators.

type (
	game     = mnk.Game
	position = mnk.Position
	set      = uint64
)

// maxCells is the most cells of a board, and the size of the per-cell
// arrays; maxSide the longest side, and so the longest line.
const (
	maxCells = 64
	maxSide  = mnk.MaxSide
)

// noCells is the empty set; fullZone, the set of every cell, is the zone
// that knows nothing (zones.go).
const (
	noCells  set = 0
	fullZone set = ^uint64(0)
)

func and(a, b set) set        { return a & b }
func or(a, b set) set         { return a | b }
func andNot(a, b set) set     { return a &^ b }
func isEmpty(a set) bool      { return a == 0 }
func atMostOne(a set) bool    { return a&(a-1) == 0 }
func ones(a set) int          { return bits.OnesCount64(a) }
func lowest(a set) int        { return bits.TrailingZeros64(a) }
func lowestSet(a set) set     { return a & -a }
func withoutLowest(a set) set { return a & (a - 1) }
func bit(c int) set           { return 1 << uint(c) }
func has(a set, c int) bool   { return a>>uint(c)&1 != 0 }

// less orders positions as the game's canonical form does: by X, then O.
func less(a, b position) bool { return a.X < b.X || a.X == b.X && a.O < b.O }

// packNumbers and unpackNumbers keep proof and disproof numbers in an
// entry's set-sized word.
func packNumbers(phi, delta uint32) set        { return uint64(phi)<<32 | uint64(delta) }
func unpackNumbers(pd set) (phi, delta uint32) { return uint32(pd >> 32), uint32(pd) }

// hashPosition mixes a position into the table's bucket hash.
func hashPosition(x, o set) uint64 { return x*0x9e3779b97f4a7c15 ^ o*0xc2b2ae3d27d4eb4f }

// weights and insert are the move order of package order.
func weights(cs *[maxCells]int32, windows []set, me, them, empty set, attack, defence int32) {
	order.Weights(cs, windows, me, them, empty, attack, defence)
}

func insert(moves *[maxCells]int8, sc *[maxCells]int32, n int, c int8, v int32) int {
	return order.Insert(moves, sc, n, c, v)
}

// tableMagic starts a saved table (persist.go): version 1, entries of four
// little-endian 64-bit words, x, o, pd and meta.
const tableMagic = "wopr pns table 1"

// appendSet appends a set to a saved table's entry, setBytes bytes, and
// readSet reads it back and returns the rest.
const setBytes = 8

func appendSet(p []byte, a set) []byte { return binary.LittleEndian.AppendUint64(p, a) }
func readSet(p []byte) (set, []byte)   { return binary.LittleEndian.Uint64(p), p[8:] }

package pns

import (
	"encoding/binary"

	"github.com/woprlabs/wopr/pkg/engine/mnk/wide"
)

// The names the solver's source is written against (see package mnk/pns,
// set.go), for the 128-bit sets of package wide.

type (
	game     = wide.Game
	position = wide.Position
	set      = wide.Set
)

const (
	maxCells = wide.MaxCells
	maxSide  = wide.MaxSide
)

// noCells is the empty set; fullZone, the set of every cell, the zone that
// knows nothing.
var (
	noCells  set
	fullZone = set{Lo: ^uint64(0), Hi: ^uint64(0)}
)

// Package wide's operations, and those it lacks.
func and(a, b set) set    { return a.And(b) }
func or(a, b set) set     { return a.Or(b) }
func andNot(a, b set) set { return a.AndNot(b) }
func isEmpty(a set) bool  { return a.Empty() }
func ones(a set) int      { return a.Len() }
func lowest(a set) int    { return a.Lowest() }
func atMostOne(a set) bool {
	return a.Lo&(a.Lo-1)|a.Hi&(a.Hi-1) == 0 && (a.Lo == 0 || a.Hi == 0)
}

func lowestSet(a set) set {
	if a.Lo != 0 {
		return set{Lo: a.Lo & -a.Lo}
	}
	return set{Hi: a.Hi & -a.Hi}
}

func withoutLowest(a set) set {
	if a.Lo != 0 {
		return set{Lo: a.Lo & (a.Lo - 1), Hi: a.Hi}
	}
	return set{Hi: a.Hi & (a.Hi - 1)}
}

func bit(c int) set { return wide.Bit(c) }

func has(a set, c int) bool { return a.Has(c) }

func less(a, b position) bool { return a.Less(b) }

func packNumbers(phi, delta uint32) set        { return set{Lo: uint64(phi)<<32 | uint64(delta)} }
func unpackNumbers(pd set) (phi, delta uint32) { return uint32(pd.Lo >> 32), uint32(pd.Lo) }

func hashPosition(x, o set) uint64 {
	return x.Lo*0x9e3779b97f4a7c15 ^ o.Lo*0xc2b2ae3d27d4eb4f ^ x.Hi*0xd6e8feb86659fd93 ^ o.Hi*0xa0761d6478bd642f
}

// weights and insert are package mnk/internal/order's, on 128 cells.
func weights(cs *[maxCells]int32, windows []set, me, them, empty set, attack, defence int32) {
	for e := empty; !isEmpty(e); e = withoutLowest(e) {
		cs[lowest(e)] = 0
	}
	for _, w := range windows {
		a, b := and(w, me), and(w, them)
		var wt int32
		if isEmpty(b) {
			wt = attack << (2 * ones(a))
		}
		if isEmpty(a) {
			wt += defence << (2 * ones(b))
		}
		if wt == 0 {
			continue
		}
		for e := and(w, empty); !isEmpty(e); e = withoutLowest(e) {
			cs[lowest(e)] += wt
		}
	}
}

func insert(moves *[maxCells]int8, sc *[maxCells]int32, n int, c int8, v int32) int {
	j := n
	for j > 0 && sc[j-1] < v {
		moves[j], sc[j] = moves[j-1], sc[j-1]
		j--
	}
	moves[j], sc[j] = c, v
	return n + 1
}

// tableMagic starts a saved table (persist.go): version 1, entries of seven
// little-endian 64-bit words, x, o and pd low word first, then meta.
const tableMagic = "wopr wide-pns table 1"

// setBytes is the bytes of a set in a saved table.
const setBytes = 16

func appendSet(p []byte, a set) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(p, a.Lo), a.Hi)
}

func readSet(p []byte) (set, []byte) {
	return set{Lo: binary.LittleEndian.Uint64(p), Hi: binary.LittleEndian.Uint64(p[8:])}, p[16:]
}

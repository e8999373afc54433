package cert

import (
	"math/bits"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Zones. A strategy that does not lose (of the defender, against the
// attacker) need not answer every move of the attacker: Verify computes,
// from the strategy and by its own rules, a zone of each position it
// checks, and a move of the attacker outside the zone of a move it has
// already followed there needs no play of its own. The rule, as the
// verifier uses it (pns's solver uses the same, pkg/engine/mnk/pns/zones.go):
//
// A zone of a position P from which the strategy keeps the attacker from
// completing a line is a set Z of P's empty cells such that it still does
// from P+S, for every set S of extra attacker stones on empty cells outside
// Z, the same side to move. Then, with the attacker to move at Q:
//
//   - a move b outside the zone Z_a of a followed move a is answered as
//     well: Q+b is Q+a without the stone on a, with one on b outside Z_a,
//     and a stone the attacker lacks never helps it (the defender plays
//     as if it were there, and where the attacker plays on a, the defender
//     has a move to spare, which never hurts it);
//   - the union of the followed moves' cells and zones is a zone of Q,
//     since every move of Q+S is followed (S outside its zone) or outside
//     a followed move's zone.
//
// The defender to move at Q, playing r: the zone of Q+r and r. At the
// leaves, each rule keeps its zone true whatever the attacker has outside
// it:
//
//   - the defender has completed a line (WonZone): an empty cell of every
//     line free of its stones, else extra stones might have completed one
//     of them before;
//   - a full board: nothing (no empty cell);
//   - the attacker cannot complete a line any more (Hopeless,
//     HopelessZone): the empty cells of the lines free of the defender's
//     stones, which extra stones elsewhere do not fill (they only take
//     moves away);
//   - a pairing: its pairs (every line of the attacker still holds one).
//
// A certificate written with zones skips those moves: its strategies hold
// no positions below them (pns.NewCertificate writes such certificates).

// WonZone returns the zone of a position where the defender, whose stones
// are def, has completed a line: for each line free of def with no cell
// in the zone yet, its empty cell on the most such lines (the lowest of
// those), so that one cell serves many lines. A line free of def without
// an empty cell would be the attacker's, completed: it adds nothing (such a
// position never arises).
func WonZone(lines []uint64, def, empty uint64) uint64 {
	if wonZoneEmpty {
		return 0
	}
	var on [64]uint8
	for _, w := range lines {
		if w&def == 0 {
			for e := w & empty; e != 0; e &= e - 1 {
				on[bits.TrailingZeros64(e)]++
			}
		}
	}
	var z uint64
	for _, w := range lines {
		e := w & empty
		if w&def != 0 || e&z != 0 || e == 0 {
			continue
		}
		best, most := 0, -1
		for c := e; c != 0; c &= c - 1 {
			if i := bits.TrailingZeros64(c); int(on[i]) > most {
				best, most = i, int(on[i])
			}
		}
		z |= 1 << uint(best)
	}
	return z
}

// HopelessZone returns the zone of a position where the attacker can no
// longer complete a line (Hopeless) against the defender's stones def: the
// empty cells of the lines free of def.
func HopelessZone(lines []uint64, def, empty uint64) uint64 {
	var z uint64
	for _, w := range lines {
		if w&def == 0 {
			z |= w & empty
		}
	}
	return z
}

// unmap returns the cells that symmetry s takes to the cells z (a zone of
// a canonical position, given in the frame of the position it is the
// image of).
func (r *rules) unmap(s int, z uint64) uint64 {
	if s == 0 {
		return z
	}
	var out uint64
	for ; z != 0; z &= z - 1 {
		out |= 1 << uint(r.pre[s][bits.TrailingZeros64(z)])
	}
	return out
}

// Knobs for the tests. onSkip, if set, is called with each move of the
// other side that Verify does not follow (the position, canonical, the
// cell, and whether the strategy is X's). wonZoneEmpty makes WonZone
// empty: wrong, for the test that shows the rule is needed.
var (
	onSkip       func(p mnk.Position, cell int, x bool)
	wonZoneEmpty = false
)

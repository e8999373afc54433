package pns

// Relevance zones (Solver.SetZones) let a proof that the attacker does not
// win from one position stand for positions that differ from it off a set
// of cells. The rule, as this solver uses it:
//
// A zone of a position P proven for the defender (the attacker does not
// win from P, the same side to move) is a set Z of P's empty cells such
// that the attacker does not win from P+S either, for every set S of extra
// attacker stones on empty cells outside Z. Two facts make zones useful:
//
//   - An extra stone never helps its owner's opponent, and a missing one
//     never helps its owner: an attacker who wins from P without a stone
//     on a wins from P with one (the strategy that pretends it is not there,
//     playing anywhere when it would play on a). So if the attacker, to move
//     at Q, does not win after a, with zone Z_a, it does not win after any
//     move b outside Z_a: Q+b is Q+a without the stone on a and with one on
//     b outside Z_a. Such moves b need no search of their own.
//   - Zones compose up the tree. Attacker to move at Q, every move refuted
//     (searched, with zone Z_a, or skipped as above): Z_Q, the union of the
//     searched moves' cells and zones, is a zone of Q, since a move c of
//     Q+S is either searched ((Q+c)+S, S outside Z_c) or outside some Z_a
//     ((Q+a) less a, plus S and c, all outside Z_a). Defender to move at Q,
//     refuting with r: Z_r plus r is a zone of Q (the same reply r, then
//     (Q+r)+S).
//
// At the leaves, where the rules decide, the zone must keep each rule true
// whatever the attacker has outside it (zoneFor in evaluate):
//   - a pairing: its pairs (every window of the attacker still holds one
//     whole, and the defender answers on it);
//   - a matching (matching.go): its blocks' cells (every block's game
//     is unchanged);
//   - every window of the attacker needing more stones than it has moves
//     left (or none): the empty cells of those windows (stones elsewhere do
//     not fill them, and only take moves away);
//   - a full board: nothing;
//   - the defender completing a line at once: that cell, and an empty cell
//     of every window free of the defender (else stones outside might have
//     completed one already);
//   - the defender with two threats, the attacker to move; the defender
//     making two at once; the attacker forced to block the defender's one
//     threat: the cells of the threats, and two empty cells of every
//     window free of the defender, so that the attacker, with one move
//     before the defender completes, cannot complete a line of its own.
//
// The last rule belongs to a node, not a leaf: the attacker's other moves
// lose to the completion, which no search checked. A zone the solver does
// not know (a position proven before zones, or by a solver without them)
// is every cell (fullZone): sound, and no move is skipped by it.

// fullZone (set.go) is the zone of every cell: nothing is known.

// SetZones turns relevance zones on or off (off by default). On, a search
// skips the attacker's moves outside the zone of a refuted sibling; the
// answers are the same (TestZonesAgree), the nodes fewer where the proofs
// are local. Solvers that share a table may differ: a zone a solver does
// not know is every cell.
func (s *Solver) SetZones(on bool) { s.zones = on }

// sides returns the attacker's and the defender's stones at the current
// position.
func (s *Solver) sides() (att, def set) {
	if s.attX {
		return s.pos.X, s.pos.O
	}
	return s.pos.O, s.pos.X
}

// liveZone returns the empty cells of the windows free of the defender's
// stones.
func (s *Solver) liveZone() set {
	_, def := s.sides()
	empty := s.g.Empty(s.pos)
	var z set
	for _, w := range s.g.Windows() {
		if isEmpty(and(w, def)) {
			z = or(z, and(w, empty))
		}
	}
	return z
}

// hitZone returns z with, for every window free of the defender's stones,
// empty cells of it added until it holds need of them (or all it has): of
// a window's cells, the one on the most such windows first, so that one
// cell serves many windows and the zone stays small.
func (s *Solver) hitZone(z set, need int) set {
	_, def := s.sides()
	empty := s.g.Empty(s.pos)
	z = and(z, empty)
	var on [maxCells]uint8
	for _, w := range s.g.Windows() {
		if isEmpty(and(w, def)) {
			for e := and(w, empty); !isEmpty(e); e = withoutLowest(e) {
				on[lowest(e)]++
			}
		}
	}
	for _, w := range s.g.Windows() {
		if !isEmpty(and(w, def)) {
			continue
		}
		e := and(w, empty)
		for ones(and(e, z)) < need && !isEmpty(andNot(e, z)) {
			if hitLowest {
				z = or(z, lowestSet(andNot(e, z)))
				continue
			}
			best, most := 0, -1
			for c := andNot(e, z); !isEmpty(c); c = withoutLowest(c) {
				if i := lowest(c); int(on[i]) > most {
					best, most = i, int(on[i])
				}
			}
			z = or(z, bit(best))
		}
	}
	return z
}

// toFrame maps a zone by symmetry sym (canonical frame from the position's),
// and fromFrame back; fullZone stays full.
func (s *Solver) toFrame(z set, sym int) set   { return s.mapZone(z, sym, false) }
func (s *Solver) fromFrame(z set, sym int) set { return s.mapZone(z, sym, true) }

func (s *Solver) mapZone(z set, sym int, back bool) set {
	if z == fullZone || sym == 0 {
		return z
	}
	var out set
	for ; !isEmpty(z); z = withoutLowest(z) {
		c := lowest(z)
		if back {
			out = or(out, bit(int(s.g.UnmapCell(sym, c))))
		} else {
			out = or(out, bit(int(s.g.MapCell(sym, c))))
		}
	}
	return out
}

// skipOutside marks proven for the defender, without search, the moves of
// the attacker to move at the current position (n of them, in s.moves)
// that lie outside the zone of a move already refuted: each such position
// is a refuted one with a stone moved outside its zone (see above).
func (s *Solver) skipOutside(n int) {
	ply := s.ply
	moves, cp, cd := &s.moves[ply], &s.phi[ply], &s.delta[ply]
	cz, pruned := &s.czone[ply], &s.pruned[ply]
	keep := fullZone
	for i := range n {
		if cp[i] == 0 && !pruned[i] {
			keep = and(keep, cz[i])
		}
	}
	if keep == fullZone {
		return
	}
	for i := range n {
		if cp[i] != 0 && !has(keep, int(moves[i])) {
			cp[i], cd[i], pruned[i] = wonPhi, wonDelta, true
		}
	}
}

// nodeZone returns the zone of the current position, proven for the
// defender by its n children: the attacker to move, the cells and zones of
// the moves refuted by search (not those skipped), and if it could only
// block, two empty cells of each of its windows; the defender to move, the
// cell and zone of its refuting move best.
func (s *Solver) nodeZone(n int, attMover bool, best int) set {
	ply := s.ply
	moves, cz := &s.moves[ply], &s.czone[ply]
	if !attMover {
		if cz[best] == fullZone {
			return fullZone
		}
		return or(cz[best], bit(int(moves[best])))
	}
	var z set
	for i := range n {
		if s.pruned[ply][i] {
			continue
		}
		if cz[i] == fullZone {
			return fullZone
		}
		z = or(z, or(cz[i], bit(int(moves[i]))))
	}
	if s.forced[ply] && !dropForcedCells {
		z = s.hitZone(z, 2)
	}
	return z
}

// Knobs for the tests. dropForcedCells leaves out the cells the forced
// block's zone must hold (the windows' two empty cells): wrong, for the
// test that shows a position where they must not be left out
// (TestZoneNearMiss). hitLowest makes hitZone take a window's lowest cell
// rather than its busiest: as sound, larger zones, the order in which that
// position was found.
var (
	dropForcedCells = false
	hitLowest       = false
)

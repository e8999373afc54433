package mnk

import (
	"math/bits"
	"testing"
)

// This file holds the reference implementations the tests compare the
// engine with. They share nothing with the engine but the Position type and
// Cell: lines are found by walking coordinates, symmetries by mapping
// coordinates, and trees are counted by plain enumeration.

// ref is a naive m,n,k-game.
type ref struct{ m, n, k int }

func (r ref) inside(row, col int) bool { return row >= 0 && row < r.m && col >= 0 && col < r.n }

func set(x uint64, row, col int) bool { return x>>Cell(row, col)&1 != 0 }

// lineThrough walks the four directions from (row, col) and counts the run.
func (r ref) lineThrough(stones uint64, row, col int) bool {
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		run := 1
		for i := 1; r.inside(row+i*d[0], col+i*d[1]) && set(stones, row+i*d[0], col+i*d[1]); i++ {
			run++
		}
		for i := 1; r.inside(row-i*d[0], col-i*d[1]) && set(stones, row-i*d[0], col-i*d[1]); i++ {
			run++
		}
		if run >= r.k {
			return true
		}
	}
	return false
}

func (r ref) hasLine(stones uint64) bool {
	for row := range r.m {
		for col := range r.n {
			if set(stones, row, col) && r.lineThrough(stones, row, col) {
				return true
			}
		}
	}
	return false
}

func (r ref) cells() int { return r.m * r.n }

// play puts the side to move's stone at (row, col) and returns the result.
func (r ref) play(p Position, row, col int) (Position, Result) {
	bit := uint64(1) << Cell(row, col)
	if bits.OnesCount64(p.X) == bits.OnesCount64(p.O) {
		p.X |= bit
		if r.lineThrough(p.X, row, col) {
			return p, XWin
		}
	} else {
		p.O |= bit
		if r.lineThrough(p.O, row, col) {
			return p, OWin
		}
	}
	if bits.OnesCount64(p.X|p.O) == r.cells() {
		return p, Draw
	}
	return p, Ongoing
}

// moves returns the empty cells as (row, col) pairs, in an array so that
// the enumerations do not allocate per node.
func (r ref) moves(p Position) (ms moveList) {
	for row := range r.m {
		for col := range r.n {
			if !set(p.X|p.O, row, col) {
				ms.m[ms.n] = [2]int{row, col}
				ms.n++
			}
		}
	}
	return ms
}

type moveList struct {
	m [64][2]int
	n int
}

func (ms moveList) list() [][2]int { return ms.m[:ms.n] }

func (r ref) nsym() int {
	if r.m == r.n {
		return 8
	}
	return 4
}

// mapCell applies symmetry s to (row, col): bit 0 flips the rows, bit 1
// mirrors the columns, bit 2 transposes.
func (r ref) mapCell(s, row, col int) (int, int) {
	if s&1 != 0 {
		row = r.m - 1 - row
	}
	if s&2 != 0 {
		col = r.n - 1 - col
	}
	if s&4 != 0 {
		row, col = col, row
	}
	return row, col
}

func (r ref) transform(p Position, s int) Position {
	var q Position
	for row := range r.m {
		for col := range r.n {
			tr, tc := r.mapCell(s, row, col)
			if set(p.X, row, col) {
				q.X |= 1 << Cell(tr, tc)
			}
			if set(p.O, row, col) {
				q.O |= 1 << Cell(tr, tc)
			}
		}
	}
	return q
}

func (r ref) canonical(p Position) (Position, int) {
	var seen [8]Position
	n := 0
	best := p
	for s := range r.nsym() {
		q := r.transform(p, s)
		if q.X < best.X || q.X == best.X && q.O < best.O {
			best = q
		}
		i := 0
		for i < n && seen[i] != q {
			i++
		}
		if i == n {
			seen[n] = q
			n++
		}
	}
	return best, n
}

// refCounts are the figures every reference method and the engine agree on.
type refCounts struct {
	Nodes, Draws, CanonicalGames  uint64
	Wins                          [65]uint64
	Value                         Value
	Positions, Canonical          uint64
	Terminal, CanonicalTerminal   [4]uint64
	ByPly                         [65]uint64
	hasValue, hasCG, hasPositions bool
}

// dfs enumerates every path below p (no memo) and returns p's value.
func (r ref) dfs(p Position, ply int, res Result, c *refCounts) Value {
	c.Nodes++
	switch res {
	case XWin, OWin:
		c.Wins[ply]++
		return Loss
	case Draw:
		c.Draws++
		return Drawn
	}
	best := Loss
	for _, m := range r.moves(p).list() {
		q, qr := r.play(p, m[0], m[1])
		best = max(best, -r.dfs(q, ply+1, qr, c))
	}
	return best
}

// canonicalGames counts canonical-DAG paths from p without memo: each
// distinct child orbit is one edge.
func (r ref) canonicalGames(p Position, res Result) uint64 {
	if res != Ongoing {
		return 1
	}
	kids := map[Position]Result{}
	for _, m := range r.moves(p).list() {
		q, qr := r.play(p, m[0], m[1])
		cq, _ := r.canonical(q)
		kids[cq] = qr
	}
	var n uint64
	for q, qr := range kids {
		n += r.canonicalGames(q, qr)
	}
	return n
}

type fwdEntry struct {
	n   uint64
	res Result
}

// forward counts layer by layer from the empty board: a map from position
// to the number of paths reaching it gives nodes, games and positions; the
// same over canonical forms, with one edge per distinct child orbit, gives
// the canonical games and orbits.
func (r ref) forward() refCounts {
	var c refCounts
	layer := map[Position]fwdEntry{{}: {1, Ongoing}}
	for ply := 0; len(layer) > 0; ply++ {
		next := make(map[Position]fwdEntry, 2*len(layer))
		for p, e := range layer {
			c.Nodes += e.n
			c.Positions++
			c.ByPly[ply]++
			switch e.res {
			case XWin, OWin:
				c.Wins[ply] += e.n
				c.Terminal[e.res]++
				continue
			case Draw:
				c.Draws += e.n
				c.Terminal[Draw]++
				continue
			}
			for _, m := range r.moves(p).list() {
				q, qr := r.play(p, m[0], m[1])
				ne := next[q]
				next[q] = fwdEntry{ne.n + e.n, qr}
			}
		}
		layer = next
	}
	layer = map[Position]fwdEntry{{}: {1, Ongoing}}
	for len(layer) > 0 {
		next := make(map[Position]fwdEntry, 2*len(layer))
		for p, e := range layer {
			c.Canonical++
			if e.res != Ongoing {
				c.CanonicalGames += e.n
				c.CanonicalTerminal[e.res]++
				continue
			}
			kids := map[Position]Result{}
			for _, m := range r.moves(p).list() {
				q, qr := r.play(p, m[0], m[1])
				cq, _ := r.canonical(q)
				kids[cq] = qr
			}
			for q, qr := range kids {
				ne := next[q]
				next[q] = fwdEntry{ne.n + e.n, qr}
			}
		}
		layer = next
	}
	c.hasCG, c.hasPositions = true, true
	return c
}

// value is a memoised negamax that stops at the first winning move.
func (r ref) value(p Position, res Result, memo map[Position]Value) Value {
	switch res {
	case XWin, OWin:
		return Loss
	case Draw:
		return Drawn
	}
	if v, ok := memo[p]; ok {
		return v
	}
	best := Loss
	for _, m := range r.moves(p).list() {
		q, qr := r.play(p, m[0], m[1])
		best = max(best, -r.value(q, qr, memo))
		if best == Win {
			break
		}
	}
	memo[p] = best
	return best
}

// engineCounts gathers the same figures from the engine.
func engineCounts(g *Game, p Position) refCounts {
	s := NewCounter(g).Count(p)
	pc := g.CountPositions(p)
	return refCounts{
		Nodes: s.Nodes, Draws: s.Draws, CanonicalGames: s.CanonicalGames, Wins: s.Wins, Value: s.Value,
		Positions: pc.Positions, Canonical: pc.Canonical, Terminal: pc.Terminal,
		CanonicalTerminal: pc.CanonicalTerminal, ByPly: pc.ByPly,
		hasValue: true, hasCG: true, hasPositions: true,
	}
}

// compareCounts reports every figure present in both got and want that
// differs.
func compareCounts(t *testing.T, name string, got, want refCounts) {
	t.Helper()
	if got.Nodes != want.Nodes {
		t.Errorf("%s: nodes = %d, want %d", name, got.Nodes, want.Nodes)
	}
	if got.Draws != want.Draws {
		t.Errorf("%s: draws = %d, want %d", name, got.Draws, want.Draws)
	}
	if got.Wins != want.Wins {
		t.Errorf("%s: wins by ply = %v, want %v", name, trim(got.Wins[:]), trim(want.Wins[:]))
	}
	if got.hasValue && want.hasValue && got.Value != want.Value {
		t.Errorf("%s: value = %v, want %v", name, got.Value, want.Value)
	}
	if got.hasCG && want.hasCG && got.CanonicalGames != want.CanonicalGames {
		t.Errorf("%s: canonical games = %d, want %d", name, got.CanonicalGames, want.CanonicalGames)
	}
	if got.hasPositions && want.hasPositions {
		if got.Positions != want.Positions || got.Canonical != want.Canonical {
			t.Errorf("%s: positions, canonical = %d, %d, want %d, %d", name, got.Positions, got.Canonical, want.Positions, want.Canonical)
		}
		if got.Terminal != want.Terminal || got.CanonicalTerminal != want.CanonicalTerminal {
			t.Errorf("%s: terminal, canonical terminal = %v, %v, want %v, %v", name, got.Terminal, got.CanonicalTerminal, want.Terminal, want.CanonicalTerminal)
		}
		if got.ByPly != want.ByPly {
			t.Errorf("%s: positions by ply = %v, want %v", name, trim(got.ByPly[:]), trim(want.ByPly[:]))
		}
	}
}

// trim drops trailing zeros, for readable messages.
func trim(a []uint64) []uint64 {
	for len(a) > 0 && a[len(a)-1] == 0 {
		a = a[:len(a)-1]
	}
	return a
}

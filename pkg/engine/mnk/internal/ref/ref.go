// Package ref is a naive m,n,k-game and the plain counts and searches
// built on it, the references that the engines' tests compare them with.
// They share nothing with the engines but the Position type and Cell:
// lines are found by walking coordinates, symmetries by mapping
// coordinates, and trees are counted by plain enumeration. The helpers
// that make test positions (RandomGame, AllPositions, SplitPositions)
// play by package mnk's rules. Only tests import it.
package ref

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// Game is a naive m,n,k-game: M rows, N columns, K in a row wins.
type Game struct{ M, N, K int }

// New returns the m,n,k-game.
func New(m, n, k int) Game { return Game{M: m, N: n, K: k} }

// Games returns the games of a list such as "3,3,3 4,4,4"; it panics on a
// malformed one, which is a test's typo.
func Games(specs string) []Game {
	var gs []Game
	for _, s := range strings.Fields(specs) {
		var g Game
		if _, err := fmt.Sscanf(s, "%d,%d,%d", &g.M, &g.N, &g.K); err != nil {
			panic(fmt.Sprintf("ref: game %q: want m,n,k", s))
		}
		gs = append(gs, g)
	}
	return gs
}

func (r Game) inside(row, col int) bool { return row >= 0 && row < r.M && col >= 0 && col < r.N }

// Has reports whether the stones x hold the cell (row, col).
func Has(x uint64, row, col int) bool { return x>>mnk.Cell(row, col)&1 != 0 }

// LineThrough reports whether stones hold K in a row through (row, col):
// it walks the four directions from the cell and counts the run.
func (r Game) LineThrough(stones uint64, row, col int) bool {
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		run := 1
		for i := 1; r.inside(row+i*d[0], col+i*d[1]) && Has(stones, row+i*d[0], col+i*d[1]); i++ {
			run++
		}
		for i := 1; r.inside(row-i*d[0], col-i*d[1]) && Has(stones, row-i*d[0], col-i*d[1]); i++ {
			run++
		}
		if run >= r.K {
			return true
		}
	}
	return false
}

// HasLine reports whether stones hold K in a row anywhere.
func (r Game) HasLine(stones uint64) bool {
	for row := range r.M {
		for col := range r.N {
			if Has(stones, row, col) && r.LineThrough(stones, row, col) {
				return true
			}
		}
	}
	return false
}

// Cells returns the number of cells, M*N.
func (r Game) Cells() int { return r.M * r.N }

// Play puts the side to move's stone at (row, col) and returns the result.
func (r Game) Play(p mnk.Position, row, col int) (mnk.Position, mnk.Result) {
	bit := uint64(1) << mnk.Cell(row, col)
	if bits.OnesCount64(p.X) == bits.OnesCount64(p.O) {
		p.X |= bit
		if r.LineThrough(p.X, row, col) {
			return p, mnk.XWin
		}
	} else {
		p.O |= bit
		if r.LineThrough(p.O, row, col) {
			return p, mnk.OWin
		}
	}
	if bits.OnesCount64(p.X|p.O) == r.Cells() {
		return p, mnk.Draw
	}
	return p, mnk.Ongoing
}

// Moves returns the empty cells as (row, col) pairs, in an array so that
// the enumerations do not allocate per node.
func (r Game) Moves(p mnk.Position) (ms MoveList) {
	for row := range r.M {
		for col := range r.N {
			if !Has(p.X|p.O, row, col) {
				ms.m[ms.n] = [2]int{row, col}
				ms.n++
			}
		}
	}
	return ms
}

// MoveList is a list of cells as (row, col) pairs.
type MoveList struct {
	m [64][2]int
	n int
}

// List returns the cells of the list.
func (ms MoveList) List() [][2]int { return ms.m[:ms.n] }

// NumSymmetries returns the number of symmetries of the board: 8 for a
// square, 4 for a rectangle.
func (r Game) NumSymmetries() int {
	if r.M == r.N {
		return 8
	}
	return 4
}

// mapCell applies symmetry s to (row, col): bit 0 flips the rows, bit 1
// mirrors the columns, bit 2 transposes.
func (r Game) mapCell(s, row, col int) (int, int) {
	if s&1 != 0 {
		row = r.M - 1 - row
	}
	if s&2 != 0 {
		col = r.N - 1 - col
	}
	if s&4 != 0 {
		row, col = col, row
	}
	return row, col
}

// Transform returns the image of p under symmetry s, cell by cell (see
// mapCell).
func (r Game) Transform(p mnk.Position, s int) mnk.Position {
	var q mnk.Position
	for row := range r.M {
		for col := range r.N {
			tr, tc := r.mapCell(s, row, col)
			if Has(p.X, row, col) {
				q.X |= 1 << mnk.Cell(tr, tc)
			}
			if Has(p.O, row, col) {
				q.O |= 1 << mnk.Cell(tr, tc)
			}
		}
	}
	return q
}

// Canonical returns the least image of p (X, then O, as unsigned
// integers) and the number of its distinct images.
func (r Game) Canonical(p mnk.Position) (mnk.Position, int) {
	var seen [8]mnk.Position
	n := 0
	best := p
	for s := range r.NumSymmetries() {
		q := r.Transform(p, s)
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

// Counts are the figures every reference method and the engine agree on.
type Counts struct {
	Nodes, Draws, CanonicalGames  uint64
	Wins                          [65]uint64
	Value                         mnk.Value
	Positions, Canonical          uint64
	Terminal, CanonicalTerminal   [4]uint64
	ByPly                         [65]uint64
	HasValue, HasCG, HasPositions bool
}

// DFS enumerates every path below p (no memo) and returns p's value.
func (r Game) DFS(p mnk.Position, ply int, res mnk.Result, c *Counts) mnk.Value {
	c.Nodes++
	switch res {
	case mnk.XWin, mnk.OWin:
		c.Wins[ply]++
		return mnk.Loss
	case mnk.Draw:
		c.Draws++
		return mnk.Drawn
	}
	best := mnk.Loss
	for _, m := range r.Moves(p).List() {
		q, qr := r.Play(p, m[0], m[1])
		best = max(best, -r.DFS(q, ply+1, qr, c))
	}
	return best
}

// CanonicalGames counts canonical-DAG paths from p without memo: each
// distinct child orbit is one edge.
func (r Game) CanonicalGames(p mnk.Position, res mnk.Result) uint64 {
	if res != mnk.Ongoing {
		return 1
	}
	kids := map[mnk.Position]mnk.Result{}
	for _, m := range r.Moves(p).List() {
		q, qr := r.Play(p, m[0], m[1])
		cq, _ := r.Canonical(q)
		kids[cq] = qr
	}
	var n uint64
	for q, qr := range kids {
		n += r.CanonicalGames(q, qr)
	}
	return n
}

type fwdEntry struct {
	n   uint64
	res mnk.Result
}

// Forward counts layer by layer from the empty board: a map from position
// to the number of paths reaching it gives nodes, games and positions; the
// same over canonical forms, with one edge per distinct child orbit, gives
// the canonical games and orbits.
func (r Game) Forward() Counts {
	var c Counts
	layer := map[mnk.Position]fwdEntry{{}: {1, mnk.Ongoing}}
	for ply := 0; len(layer) > 0; ply++ {
		next := make(map[mnk.Position]fwdEntry, 2*len(layer))
		for p, e := range layer {
			c.Nodes += e.n
			c.Positions++
			c.ByPly[ply]++
			switch e.res {
			case mnk.XWin, mnk.OWin:
				c.Wins[ply] += e.n
				c.Terminal[e.res]++
				continue
			case mnk.Draw:
				c.Draws += e.n
				c.Terminal[mnk.Draw]++
				continue
			}
			for _, m := range r.Moves(p).List() {
				q, qr := r.Play(p, m[0], m[1])
				ne := next[q]
				next[q] = fwdEntry{ne.n + e.n, qr}
			}
		}
		layer = next
	}
	layer = map[mnk.Position]fwdEntry{{}: {1, mnk.Ongoing}}
	for len(layer) > 0 {
		next := make(map[mnk.Position]fwdEntry, 2*len(layer))
		for p, e := range layer {
			c.Canonical++
			if e.res != mnk.Ongoing {
				c.CanonicalGames += e.n
				c.CanonicalTerminal[e.res]++
				continue
			}
			kids := map[mnk.Position]mnk.Result{}
			for _, m := range r.Moves(p).List() {
				q, qr := r.Play(p, m[0], m[1])
				cq, _ := r.Canonical(q)
				kids[cq] = qr
			}
			for q, qr := range kids {
				ne := next[q]
				next[q] = fwdEntry{ne.n + e.n, qr}
			}
		}
		layer = next
	}
	c.HasCG, c.HasPositions = true, true
	return c
}

// Value is a memoised negamax that stops at the first winning move.
func (r Game) Value(p mnk.Position, res mnk.Result, memo map[mnk.Position]mnk.Value) mnk.Value {
	switch res {
	case mnk.XWin, mnk.OWin:
		return mnk.Loss
	case mnk.Draw:
		return mnk.Drawn
	}
	if v, ok := memo[p]; ok {
		return v
	}
	best := mnk.Loss
	for _, m := range r.Moves(p).List() {
		q, qr := r.Play(p, m[0], m[1])
		best = max(best, -r.Value(q, qr, memo))
		if best == mnk.Win {
			break
		}
	}
	memo[p] = best
	return best
}

// SmallGames are all boards up to 3x3 with every k, and a few wider ones.
func SmallGames() []Game {
	var rs []Game
	for m := 1; m <= 3; m++ {
		for n := 1; n <= 3; n++ {
			for k := 1; k <= max(m, n); k++ {
				rs = append(rs, Game{M: m, N: n, K: k})
			}
		}
	}
	return append(rs, Games("2,4,2 2,4,3 4,2,4 1,6,3 5,1,2")...)
}

// Name returns the game as "m,n,k".
func Name(r Game) string { return fmt.Sprintf("%d,%d,%d", r.M, r.N, r.K) }

// RandomGame plays n random moves (fewer if the game ends) and returns the
// position and its result.
func RandomGame(g *mnk.Game, rng *rand.Rand, n int) (mnk.Position, mnk.Result) {
	var p mnk.Position
	res := mnk.Ongoing
	for range n {
		if res != mnk.Ongoing {
			break
		}
		var ms []int
		for e := g.Empty(p); e != 0; e &= e - 1 {
			ms = append(ms, bits.TrailingZeros64(e))
		}
		p, res = g.Play(p, ms[rng.IntN(len(ms))])
	}
	return p, res
}

// AllPositions returns every position reachable from the empty board of g
// (all images, not only canonical forms).
func AllPositions(g *mnk.Game) []mnk.Position {
	seen := map[mnk.Position]bool{{}: true}
	layer := []mnk.Position{{}}
	all := []mnk.Position{{}}
	for len(layer) > 0 {
		var next []mnk.Position
		for _, p := range layer {
			if g.Status(p) != mnk.Ongoing {
				continue
			}
			for e := g.Empty(p); e != 0; e &= e - 1 {
				q, _ := g.Play(p, bits.TrailingZeros64(e))
				if !seen[q] {
					seen[q] = true
					next = append(next, q)
				}
			}
		}
		all = append(all, next...)
		layer = next
	}
	return all
}

// SolveFunc is the Solve method of a solver.
type SolveFunc = func(context.Context, mnk.Position) (mnk.Value, error)

// CheckSharedTable solves the positions after two moves of 4,5,4 (4,4,4
// with -short) with a reference solver, then on four goroutines with
// solvers of one shared table (shared(g) makes them), each in an order of
// its own, and checks every value.
func CheckSharedTable(t *testing.T, ref func(g *mnk.Game) SolveFunc, shared func(g *mnk.Game) func() SolveFunc) {
	t.Helper()
	g := mnk.MustNew(4, 5, 4)
	if testing.Short() {
		g = mnk.MustNew(4, 4, 4)
	}
	roots := SplitPositions(g, 2)
	want := make([]mnk.Value, len(roots))
	solve := ref(g)
	for i, p := range roots {
		v, err := solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v
	}
	newSolver := shared(g)
	const goroutines = 4
	var wg sync.WaitGroup
	for w := range goroutines {
		solve := newSolver()
		wg.Go(func() {
			for j := range roots {
				i := (j + w*len(roots)/goroutines) % len(roots)
				if w%2 == 1 {
					i = len(roots) - 1 - i
				}
				if v, err := solve(context.Background(), roots[i]); err != nil || v != want[i] {
					t.Errorf("goroutine %d: %s: value %v (%v), want %v", w, g.String(roots[i]), v, err, want[i])
				}
			}
		})
	}
	wg.Wait()
}

// SplitPositions returns the canonical, unfinished positions at ply depth
// of g, in a fixed order: the roots of a count job's tasks.
func SplitPositions(g *mnk.Game, depth int) []mnk.Position {
	layer := []mnk.Position{{}}
	for range depth {
		seen := map[mnk.Position]bool{}
		var next []mnk.Position
		for _, p := range layer {
			for e := g.Empty(p); e != 0; e &= e - 1 {
				q, r := g.Play(p, bits.TrailingZeros64(e))
				q, _ = g.Canonical(q)
				if r == mnk.Ongoing && !seen[q] {
					seen[q] = true
					next = append(next, q)
				}
			}
		}
		layer = next
	}
	slices.SortFunc(layer, func(a, b mnk.Position) int {
		if c := cmp.Compare(a.X, b.X); c != 0 {
			return c
		}
		return cmp.Compare(a.O, b.O)
	})
	return layer
}

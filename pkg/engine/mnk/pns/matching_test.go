package pns

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// naiveBreakerWins is the Maker-Breaker game by definition, for the tests:
// Maker moves first, on any free cell or not at all; Breaker answers on
// any free cell; Maker wins when it holds every cell of an edge.
func naiveBreakerWins(edges []uint8, maker, breaker, all uint8) bool {
	free := all &^ (maker | breaker)
	for m := free; m != 0; m &= m - 1 {
		mk := maker | m&-m
		for _, e := range edges {
			if e&^mk == 0 && e&breaker == 0 {
				return false
			}
		}
		rest := free &^ (m & -m)
		if rest == 0 {
			continue
		}
		won := false
		for r := rest; r != 0 && !won; r &= r - 1 {
			won = naiveBreakerWins(edges, mk, breaker|r&-r, all)
		}
		if !won {
			return false
		}
	}
	return true
}

// testGame is the blockGame of breakerWins: its table is large to make.
var testGame = new(blockGame)

// breakerWins reports whether Breaker, moving second, wins the
// Maker-Breaker game on the cells free (at most eight, as bits) with the
// hyperedges edges, by blockGame.
func breakerWins(edges []uint8, free uint8) bool {
	testGame.reset(free)
	for _, e := range edges {
		if e&^free != 0 || e == 0 || !testGame.add(e) {
			return false
		}
	}
	return true
}

// pairsCover reports whether disjoint pairs of the cells all exist such
// that every edge holds both cells of one of them.
func pairsCover(edges []uint8, all uint8) bool {
	if len(edges) == 0 {
		return true
	}
	e := edges[0]
	for a := e & all; a != 0; a &= a - 1 {
		for b := a & (a - 1); b != 0; b &= b - 1 {
			p := a&-a | b&-b
			var rest []uint8
			for _, f := range edges[1:] {
				if f&p != p {
					rest = append(rest, f)
				}
			}
			if pairsCover(rest, all&^p) {
				return true
			}
		}
	}
	return false
}

// TestBreakerWins holds breakerWins to the game's definition on every
// hypergraph of up to four cells and on random ones of five to seven, and
// checks the two facts the matching rests on: a Breaker win on four cells
// or fewer is a pairing, and five cells a to e with edges {a,b}, {a,c,d},
// {b,c,e} are a Breaker win that no pairing covers.
func TestBreakerWins(t *testing.T) {
	for cells := 1; cells <= 4; cells++ {
		all := uint8(1<<cells - 1)
		subsets := []uint8{}
		for e := uint8(1); e <= all; e++ {
			subsets = append(subsets, e)
		}
		for h := 0; h < 1<<len(subsets); h++ {
			var edges []uint8
			for i, e := range subsets {
				if h>>i&1 != 0 {
					edges = append(edges, e)
				}
			}
			if len(edges) > maxBlockEdges {
				continue
			}
			got, want := breakerWins(edges, all), naiveBreakerWins(edges, 0, 0, all)
			if got != want {
				t.Fatalf("%d cells, edges %b: breakerWins %v, want %v", cells, edges, got, want)
			}
			if got && !pairsCover(edges, all) {
				t.Fatalf("%d cells, edges %b: a Breaker win without a pairing", cells, edges)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 2018))
	wins := 0
	for range 3000 {
		cells := 5 + rng.IntN(3)
		all := uint8(1<<cells - 1)
		edges := make([]uint8, 1+rng.IntN(6))
		for i := range edges {
			for bits.OnesCount8(edges[i]) < 2 {
				edges[i] = uint8(rng.IntN(int(all) + 1))
			}
		}
		got, want := breakerWins(edges, all), naiveBreakerWins(edges, 0, 0, all)
		if got != want {
			t.Fatalf("%d cells, edges %b: breakerWins %v, want %v", cells, edges, got, want)
		}
		if got {
			wins++
		}
	}
	if wins == 0 {
		t.Fatal("no random hypergraph was a Breaker win: the comparison tested one side only")
	}
	const a, b, c, d, e = 1, 2, 4, 8, 16
	five := []uint8{a | b, a | c | d, b | c | e}
	if !breakerWins(five, 31) || pairsCover(five, 31) {
		t.Fatalf("five cells %b: Breaker wins %v (want true), a pairing covers it %v (want false)",
			five, breakerWins(five, 31), pairsCover(five, 31))
	}
}

// checkMatching checks, from the definition, the matching the solver
// found for the defender def: disjoint blocks of empty cells, and an
// assignment of every window free of def to a block holding two of its
// empty cells or more, such that each block's game, with the traces of
// the windows given to it, is a Breaker win (naiveBreakerWins). The
// assignment is searched for here, not taken from the solver.
func checkMatching(t *testing.T, g *mnk.Game, p mnk.Position, def uint64, blocks []uint64) {
	t.Helper()
	empty := g.Empty(p)
	var seen uint64
	for _, b := range blocks {
		if b&seen != 0 || b&^empty != 0 || bits.OnesCount64(b) > 8 {
			t.Fatalf("%s at %s: block %x overlaps another or is not empty cells", g.Spec(), g.String(p), b)
		}
		seen |= b
	}
	local := func(b, w uint64) uint8 {
		var l uint8
		i := 0
		for c := b; c != 0; c &= c - 1 {
			if w&(c&-c) != 0 {
				l |= 1 << uint(i)
			}
			i++
		}
		return l
	}
	var open []uint64
	for _, w := range g.Windows() {
		if w&def == 0 {
			open = append(open, w&empty)
		}
	}
	edges := make([][]uint8, len(blocks))
	var assign func(i int) bool
	assign = func(i int) bool {
		if i == len(open) {
			return true
		}
		for j, b := range blocks {
			tr := local(b, open[i])
			if bits.OnesCount8(tr) < 2 {
				continue
			}
			all := uint8(1<<uint(bits.OnesCount64(b)) - 1)
			if !naiveBreakerWins(append(edges[j], tr), 0, 0, all) {
				continue
			}
			edges[j] = append(edges[j], tr)
			if assign(i + 1) {
				return true
			}
			edges[j] = edges[j][:len(edges[j])-1]
		}
		return false
	}
	if !assign(0) {
		t.Fatalf("%s at %s: no assignment of the windows to the blocks %x", g.Spec(), g.String(p), blocks)
	}
}

// TestMatchingSound: wherever the matching search claims a matching on
// random positions (the attacker to move, no pairing found), the blocks
// check out from the definition and the plain solver finds that the
// attacker does not win. The claims are counted, so that the test cannot
// pass by claiming nothing.
func TestMatchingSound(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2018, 885))
	boards := []struct{ m, n, k, positions, minPly, maxPly int }{
		{4, 4, 4, 400, 0, 8}, {4, 5, 4, 400, 2, 10}, {5, 5, 4, 400, 2, 12}, {6, 6, 5, 300, 4, 16},
		{7, 7, 5, 200, 6, 20}, {8, 8, 5, 200, 8, 24},
	}
	claims := 0
	for _, b := range boards {
		g := mnk.MustNew(b.m, b.n, b.k)
		s, plain := New(g, 1<<20), New(g, 16<<20)
		s.SetMatching(true)
		found := 0
		for i := 0; i < b.positions; {
			p, ok := randomPosition(g, rng, b.minPly+rng.IntN(b.maxPly-b.minPly+1))
			if !ok {
				continue
			}
			i++
			// The attacker is the side to move.
			def := p.O
			if !p.XToMove() {
				def = p.X
			}
			empty := g.Empty(p)
			if s.pairable(def, empty) || !s.matchable(def, empty) {
				continue
			}
			found++
			checkMatching(t, g, p, def, s.blocks[:s.blockLen])
			plain.Clear()
			plain.SetNodeLimit(plain.Nodes() + 2_000_000)
			win, err := plain.Prove(ctx, p, p.XToMove())
			if err != nil {
				t.Fatalf("%s at %s: %v", g.Spec(), g.String(p), err)
			}
			if win {
				t.Fatalf("%s at %s: a matching %x, but the side to move wins", g.Spec(), g.String(p), s.blocks[:s.blockLen])
			}
		}
		t.Logf("%s: %d of %d positions have a matching and no pairing", g.Spec(), found, b.positions)
		claims += found
	}
	if claims == 0 {
		t.Fatal("no matching was found where no pairing was: the test checked nothing")
	}
}

// TestMatchingAgree: with set matching (and relevance zones) the solver
// answers both questions as the plain one does on random positions of
// boards where matchings are found (TestMatchingSound checks each matching
// found), and the nodes are compared.
func TestMatchingAgree(t *testing.T) {
	race.SkipSerial(t)
	rng := rand.New(rand.NewPCG(454, 554))
	boards := []struct{ m, n, k, positions, minPly, maxPly int }{
		{4, 4, 4, 300, 0, 8}, {4, 5, 4, 300, 0, 10}, {5, 5, 4, 200, 2, 12}, {6, 5, 4, 100, 4, 14},
		{7, 7, 5, 30, 6, 18},
	}
	if testing.Short() {
		boards = boards[:3]
	}
	for _, b := range boards {
		g := mnk.MustNew(b.m, b.n, b.k)
		matched := New(g, 16<<20)
		matched.SetZones(true)
		matched.SetMatching(true)
		plainNodes, matchedNodes := agree(t, rng, g, b.positions, b.minPly, b.maxPly, matched, "zones and matching")
		t.Logf("%s: %d positions, both questions: %d nodes plain, %d with zones and matching", g.Spec(), b.positions, plainNodes, matchedNodes)
	}
}

// TestFirstMoveValuesAgree: on the boards where the plain solver finishes
// (up to 7x7, and 8x8 with k = 4), the solver with relevance zones and set
// matching gives every first move (up to symmetry) the value the plain one
// gives.
func TestFirstMoveValuesAgree(t *testing.T) {
	race.SkipSerial(t)
	ctx := context.Background()
	boards := [][3]int{{5, 5, 4}, {6, 5, 4}, {6, 6, 5}, {7, 7, 4}, {7, 7, 5}, {8, 8, 4}}
	if testing.Short() {
		boards = boards[:3]
	}
	for _, b := range boards {
		g := mnk.MustNew(b[0], b[1], b[2])
		plain, both := New(g, 64<<20), New(g, 64<<20)
		both.SetZones(true)
		both.SetMatching(true)
		seen := map[mnk.Position]bool{}
		for c := range 64 {
			if g.Mask()>>c&1 == 0 {
				continue
			}
			child, _ := g.Play(mnk.Position{}, c)
			key, _ := g.CanonicalSym(child)
			if seen[key] {
				continue
			}
			seen[key] = true
			want, err1 := plain.Solve(ctx, child)
			got, err2 := both.Solve(ctx, child)
			if err1 != nil || err2 != nil || got != want {
				t.Fatalf("%s after %s: with zones and matching %v (%v), plain %v (%v)", g.Spec(), g.String(child), got, err2, want, err1)
			}
		}
		t.Logf("%s: %d first moves agree; %d nodes plain, %d with zones and matching", g.Spec(), len(seen), plain.Nodes(), both.Nodes())
	}
}

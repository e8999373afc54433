package pns

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// agree asks both questions about random positions of g (minPly to
// maxPly random moves from the empty board) of a plain solver and of
// other (the solver with the idea named), fails the test where they
// answer differently, and returns the nodes each took. Positions the plain
// solver does not decide within 500,000 nodes are not compared.
func agree(t *testing.T, rng *rand.Rand, g *mnk.Game, positions, minPly, maxPly int, other *Solver, idea string) (plainNodes, otherNodes uint64) {
	t.Helper()
	ctx := context.Background()
	plain := New(g, 16<<20)
	for i := 0; i < positions; {
		p, ok := randomPosition(g, rng, minPly+rng.IntN(maxPly-minPly+1))
		if !ok {
			continue
		}
		i++
		for _, xWins := range []bool{true, false} {
			plain.Clear()
			other.Clear()
			plain.SetNodeLimit(plain.Nodes() + 500_000)
			n0, o0 := plain.Nodes(), other.Nodes()
			want, err := plain.Prove(ctx, p, xWins)
			if err != nil {
				continue // too hard for the plain solver: not compared
			}
			got, err := other.Prove(ctx, p, xWins)
			if err != nil || got != want {
				t.Fatalf("%s at %s: does X (%v) win: with %s %v (%v), without %v", g.Spec(), g.String(p), xWins, idea, got, err, want)
			}
			plainNodes += plain.Nodes() - n0
			otherNodes += other.Nodes() - o0
		}
	}
	return plainNodes, otherNodes
}

// randomPosition plays plies random moves from the empty board; false if
// the game ends first.
func randomPosition(g *mnk.Game, rng *rand.Rand, plies int) (mnk.Position, bool) {
	p := mnk.Position{}
	for range plies {
		empty := g.Empty(p)
		n := bits.OnesCount64(empty)
		if n == 0 {
			return p, false
		}
		c := -1
		for i, e := rng.IntN(n), empty; ; e &= e - 1 {
			if i == 0 {
				c = bits.TrailingZeros64(e)
				break
			}
			i--
		}
		var r mnk.Result
		if p, r = g.Play(p, c); r != mnk.Ongoing {
			return p, false
		}
	}
	return p, true
}

// TestZonesAgree: with relevance zones the solver answers both questions
// as without them, on random positions of boards where zones skip moves
// (and the skips are counted, so that the test cannot pass by skipping
// nothing), and on every position of 3,3,3 and 4,3,3 against minimax.
func TestZonesAgree(t *testing.T) {
	race.SkipSerial(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(30, 885))
	boards := []struct {
		m, n, k, positions, minPly, maxPly int
	}{
		{4, 4, 3, 300, 0, 8}, {4, 4, 4, 300, 0, 10}, {5, 5, 4, 200, 2, 12}, {4, 5, 4, 200, 2, 12},
		{6, 6, 5, 150, 2, 16}, {7, 7, 5, 30, 4, 16}, {6, 7, 4, 60, 6, 16}, {8, 8, 5, 12, 10, 24},
	}
	if testing.Short() {
		boards = boards[:5]
	}
	var plainTotal, zonedTotal uint64
	for bi, b := range boards {
		// The boards of 4,5,4 on run with zones that hit windows on
		// their lowest cells too (TestZoneNearMiss's order).
		hitLowest = bi%2 == 1
		g := mnk.MustNew(b.m, b.n, b.k)
		zoned := New(g, 16<<20)
		zoned.SetZones(true)
		plainNodes, zonedNodes := agree(t, rng, g, b.positions, b.minPly, b.maxPly, zoned, "zones")
		t.Logf("%s: %d positions, both questions: %d nodes without zones, %d with", g.Spec(), b.positions, plainNodes, zonedNodes)
		plainTotal, zonedTotal = plainTotal+plainNodes, zonedTotal+zonedNodes
	}
	hitLowest = false
	if zonedTotal >= plainTotal {
		t.Errorf("zones took %d nodes, without them %d: no move was skipped", zonedTotal, plainTotal)
	}
	// Every reachable position of the small games, against minimax, with a
	// table and with one bucket (zones lost to replacement all the time).
	for _, r := range append(ref.SmallGames(), ref.Games("3,4,3 4,3,3 3,4,4 2,5,2")...) {
		g := mnk.MustNew(r.M, r.N, r.K)
		c := count.New(g)
		with, without := New(g, 1<<20), New(g, 0)
		with.SetZones(true)
		without.SetZones(true)
		for _, p := range ref.AllPositions(g) {
			want := c.Count(p).Value
			v1, err1 := with.Solve(ctx, p)
			v2, err2 := without.Solve(ctx, p)
			if err1 != nil || err2 != nil || v1 != want || v2 != want {
				t.Fatalf("%s %s: with zones %v, %v (table), %v, %v (one bucket); minimax %v", ref.Name(r), g.String(p), v1, err1, v2, err2, want)
			}
		}
	}
}

// TestZoneNearMiss: the zone of an attacker that may only block (the
// defender threatens to complete a line) must hold two empty cells of each
// of the attacker's windows, since the attacker's other moves lose to the
// completion only if none of them completes a line first. Without those
// cells the zones skip X's winning moves on this 4,6,4 position (found by
// a search over random positions with the cells left out, with zones that
// hit windows on their lowest cells: hitLowest, which TestZonesAgree also
// holds to the plain search): the rule is needed, not only sufficient.
func TestZoneNearMiss(t *testing.T) {
	ctx := context.Background()
	g := mnk.MustNew(4, 6, 4)
	p, err := g.Parse("....../....../.....O/....X.")
	if err != nil {
		t.Fatal(err)
	}
	hitLowest = true
	defer func() { hitLowest = false }()
	prove := func(zones, drop bool) bool {
		dropForcedCells = drop
		defer func() { dropForcedCells = false }()
		s := New(g, 4<<20)
		s.SetZones(zones)
		wins, err := s.Prove(ctx, p, true)
		if err != nil {
			t.Fatal(err)
		}
		return wins
	}
	if !prove(false, false) || !prove(true, false) {
		t.Fatalf("4,6,4 at %s: X wins without zones %v, with %v; want true both", g.String(p), prove(false, false), prove(true, false))
	}
	if prove(true, true) {
		t.Errorf("4,6,4 at %s: zones without the forced block's cells still find X's win: not a near miss any more", g.String(p))
	}
}

// TestHitZone: hitZone gives every window free of the defender's stones
// need of its empty cells in the zone (or all it has), and liveZone is the
// empty cells of those windows, on random positions.
func TestHitZone(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 6))
	g := mnk.MustNew(6, 7, 4)
	s := New(g, 1<<16)
	for range 500 {
		p, ok := randomPosition(g, rng, rng.IntN(30))
		if !ok {
			continue
		}
		for _, attX := range []bool{true, false} {
			s.attX = attX
			s.set(p)
			_, def := s.sides()
			empty := g.Empty(p)
			for need := 1; need <= 2; need++ {
				z := s.hitZone(0, need)
				if z&^empty != 0 {
					t.Fatalf("%s: zone %x holds occupied cells", g.String(p), z)
				}
				for _, w := range g.Windows() {
					if w&def == 0 && bits.OnesCount64(w&empty&z) < min(need, bits.OnesCount64(w&empty)) {
						t.Fatalf("%s attacker X %v: window %x has %d cells in the zone, want %d", g.String(p), attX, w, bits.OnesCount64(w&empty&z), need)
					}
				}
			}
			var live uint64
			for _, w := range g.Windows() {
				if w&def == 0 {
					live |= w & empty
				}
			}
			if z := s.liveZone(); z != live {
				t.Fatalf("%s: live zone %x, want %x", g.String(p), z, live)
			}
		}
	}
}

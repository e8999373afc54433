package mnk

import (
	"math/rand/v2"
	"testing"
)

// benchCount counts the whole game with a fresh Counter, and its positions,
// per op, and reports tree nodes per second.
func benchCount(b *testing.B, g *Game, positions bool) {
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		s := NewCounter(g).Count(Position{})
		if positions {
			g.CountPositions(Position{})
		}
		nodes += s.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkCount333 is the full statistics of tic-tac-toe: Count and
// CountPositions from the empty board with a fresh Counter.
func BenchmarkCount333(b *testing.B) { benchCount(b, MustNew(3, 3, 3), true) }

// BenchmarkCount444 is the full statistics of 4,4,4; run it with
// -benchtime=1x.
func BenchmarkCount444(b *testing.B) { benchCount(b, MustNew(4, 4, 4), true) }

// BenchmarkCounter444 is Count alone for 4,4,4.
func BenchmarkCounter444(b *testing.B) { benchCount(b, MustNew(4, 4, 4), false) }

// BenchmarkCountPositions444 is CountPositions alone for 4,4,4; the
// reported nodes/s are orbits visited per second.
func BenchmarkCountPositions444(b *testing.B) {
	g := MustNew(4, 4, 4)
	b.ReportAllocs()
	var orbits uint64
	for b.Loop() {
		orbits += g.CountPositions(Position{}).Canonical
	}
	b.ReportMetric(float64(orbits)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkMakeUnmake is a plain depth-first walk of 4,4,4 to depth 5 with
// Board (about 600k nodes per op).
func BenchmarkMakeUnmake(b *testing.B) {
	g := MustNew(4, 4, 4)
	bd := NewBoard(g)
	var bufs [6][64]int
	var walk func(depth int) uint64
	walk = func(depth int) uint64 {
		if depth == 0 {
			return 1
		}
		n := uint64(1)
		for _, m := range bd.Moves(bufs[depth][:0]) {
			if bd.Make(m) == Ongoing {
				n += walk(depth - 1)
			} else {
				n++
			}
			bd.Unmake()
		}
		return n
	}
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		nodes += walk(5)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkCanonical canonicalises random 4x4 positions.
func BenchmarkCanonical(b *testing.B) {
	g := MustNew(4, 4, 4)
	rng := rand.New(rand.NewPCG(1, 1))
	ps := make([]Position, 1024)
	for i := range ps {
		ps[i], _ = randomGame(g, rng, rng.IntN(12))
	}
	b.ReportAllocs()
	var sink int
	n := 0
	for b.Loop() {
		_, orbit := g.Canonical(ps[n&1023])
		sink += orbit
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "nodes/s")
	_ = sink
}

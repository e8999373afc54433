package mnk_test

import (
	"math/rand/v2"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// BenchmarkMakeUnmake is a plain depth-first walk of 4,4,4 to depth 5 with
// Board (about 600k nodes per op).
func BenchmarkMakeUnmake(b *testing.B) {
	g := mnk.MustNew(4, 4, 4)
	bd := mnk.NewBoard(g)
	var bufs [6][64]int
	var walk func(depth int) uint64
	walk = func(depth int) uint64 {
		if depth == 0 {
			return 1
		}
		n := uint64(1)
		for _, m := range bd.Moves(bufs[depth][:0]) {
			if bd.Make(m) == mnk.Ongoing {
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
	g := mnk.MustNew(4, 4, 4)
	rng := rand.New(rand.NewPCG(1, 1))
	ps := make([]mnk.Position, 1024)
	for i := range ps {
		ps[i], _ = ref.RandomGame(g, rng, rng.IntN(12))
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

package nineboard

import (
	"context"
	"testing"
)

// BenchmarkPerft is perft(6) from the start with bulk counting at the last
// ply; nodes/s counts leaves.
func BenchmarkPerft(b *testing.B) {
	for _, v := range []Variant{FirstTriple, Ultimate} {
		b.Run(v.String(), func(b *testing.B) {
			bd := NewBoard(v)
			b.ReportAllocs()
			var nodes uint64
			for b.Loop() {
				nodes += bd.Perft(6)
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// BenchmarkMakeUnmake walks every node to depth 5 with Make and Unmake (no
// bulk counting): nodes/s are make/unmake pairs.
func BenchmarkMakeUnmake(b *testing.B) {
	bd := NewBoard(FirstTriple)
	var bufs [6][81]Move
	var walk func(d int) uint64
	walk = func(d int) uint64 {
		if d == 0 || bd.Result() != Ongoing {
			return 1
		}
		n := uint64(1)
		for _, m := range bd.Moves(bufs[d][:0]) {
			bd.Make(m)
			n += walk(d - 1)
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

// BenchmarkSearch is a fixed-depth search from an early position of each
// variant, with a fresh table each time.
func BenchmarkSearch(b *testing.B) {
	for _, c := range []struct {
		v     Variant
		depth int
	}{{FirstTriple, 11}, {Ultimate, 8}} {
		b.Run(c.v.String(), func(b *testing.B) {
			bd := NewBoard(c.v)
			bd.Make(NewMove(4, 0))
			s := NewSearcher(20)
			b.ReportAllocs()
			var nodes uint64
			for b.Loop() {
				s.Clear()
				nodes += s.Search(context.Background(), bd, Limits{Depth: c.depth}).Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

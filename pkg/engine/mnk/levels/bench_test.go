package levels

import (
	"context"
	"testing"
)

// BenchmarkLocal counts a whole tree in one process, one task at a time,
// its pieces in a map: positions/s is canonical positions counted a
// second (of one core), bytes/position the bytes of the pieces that carry
// them from ply to ply.
func BenchmarkLocal(b *testing.B) {
	for _, c := range []struct {
		name          string
		rows, cols, k int
		shards        int
	}{{"4x4k4", 4, 4, 4, 4}, {"3x5k3", 3, 5, 3, 4}, {"3x6k4", 3, 6, 4, 8}} {
		b.Run(c.name, func(b *testing.B) {
			bd, err := NewBoard(c.rows, c.cols, c.k)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var all Stats
			for b.Loop() {
				plies, err := bd.Local(context.Background(), c.shards, Options{})
				if err != nil {
					b.Fatal(err)
				}
				all = total(plies)
			}
			b.ReportMetric(float64(all.Canonical)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric(float64(all.BytesOut)/float64(all.Canonical), "bytes/position")
		})
	}
}

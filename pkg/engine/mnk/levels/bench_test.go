package levels

import (
	"context"
	"testing"
)

// BenchmarkLocal counts a whole tree in one process, one task at a time:
// positions/s is canonical positions counted a second.
func BenchmarkLocal(b *testing.B) {
	for _, c := range []struct {
		name          string
		rows, cols, k int
		shards        int
	}{{"4x4k4", 4, 4, 4, 4}, {"3x5k3", 3, 5, 3, 4}} {
		b.Run(c.name, func(b *testing.B) {
			bd, err := NewBoard(c.rows, c.cols, c.k)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var canon uint64
			for b.Loop() {
				plies, err := bd.Local(context.Background(), c.shards, Options{})
				if err != nil {
					b.Fatal(err)
				}
				canon = total(plies).Canonical
			}
			b.ReportMetric(float64(canon)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
		})
	}
}

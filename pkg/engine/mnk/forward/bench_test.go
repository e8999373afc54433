package forward

import (
	"context"
	"testing"
)

// benchCount counts the whole game per op and reports distinct positions
// per second.
func benchCount(b *testing.B, rows, cols, k int) {
	b.ReportAllocs()
	var positions uint64
	for b.Loop() {
		s, err := Count(context.Background(), rows, cols, k)
		if err != nil {
			b.Fatal(err)
		}
		positions += s.Positions
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkCount444 counts 4x4 k=4 (9,722,011 positions).
func BenchmarkCount444(b *testing.B) { benchCount(b, 4, 4, 4) }

// BenchmarkCount364 counts 3x6 k=4 (83,109,042 positions); run it with
// -benchtime=1x.
func BenchmarkCount364(b *testing.B) { benchCount(b, 3, 6, 4) }

package forward

import (
	"context"
	"testing"

	"github.com/woprlabs/wopr/internal/cputime"
)

// benchCount counts the whole game per op and reports distinct positions
// per second, the process's CPU seconds per op (steadier than the wall
// clock on a shared machine) and the tables' peak bytes.
func benchCount(b *testing.B, rows, cols, k int) {
	b.ReportAllocs()
	var positions, tableBytes uint64
	cpu := cputime.Process()
	for b.Loop() {
		s, err := Count(context.Background(), rows, cols, k)
		if err != nil {
			b.Fatal(err)
		}
		positions += s.Positions
		tableBytes = s.TableBytes
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(tableBytes), "table-bytes")
}

// BenchmarkCount444 counts 4x4 k=4 (9,722,011 positions).
func BenchmarkCount444(b *testing.B) { benchCount(b, 4, 4, 4) }

// BenchmarkCount363 counts 3x6 k=3 (46,487,328 positions).
func BenchmarkCount363(b *testing.B) { benchCount(b, 3, 6, 3) }

// BenchmarkCount364 counts 3x6 k=4 (83,109,042 positions); run it with
// -benchtime=1x.
func BenchmarkCount364(b *testing.B) { benchCount(b, 3, 6, 4) }

// BenchmarkCount453 counts 4x5 k=3 (321,254,413 positions): about 2.5
// minutes of CPU and 5 GB; run it with -benchtime=1x.
func BenchmarkCount453(b *testing.B) { benchCount(b, 4, 5, 3) }

// BenchmarkCount454 counts 4x5 k=4 (674,794,169 positions): about 8
// minutes of CPU and 10 GB; run it with -benchtime=1x.
func BenchmarkCount454(b *testing.B) { benchCount(b, 4, 5, 4) }

package levels

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSortRecords sorts a shard's worth of children: records/s.
func BenchmarkSortRecords(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1 << 20
	src := make([]Record, n)
	for i := range src {
		src[i] = Record{Key: Key(r.Uint64() & stoneMask), Paths: 1}
	}
	recs := make([]Record, n)
	var scratch []Record
	b.ReportAllocs()
	for b.Loop() {
		copy(recs, src)
		scratch = sortRecords(recs, scratch)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

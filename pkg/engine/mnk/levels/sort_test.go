package levels

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix sort sorts like a comparison sort, keys with flags included.
func TestSortRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var scratch []Record
	for _, n := range []int{0, 1, 63, 64, 1000, 100_000} {
		recs := make([]Record, n)
		for i := range recs {
			k := Key(r.Uint64() & stoneMask)
			if r.IntN(3) == 0 {
				k |= flagWin
			}
			if i > 0 && r.IntN(4) == 0 {
				k = recs[r.IntN(i)].Key // duplicates
			}
			recs[i] = Record{Key: k, Paths: uint64(i)}
		}
		want := slices.Clone(recs)
		slices.SortStableFunc(want, func(a, b Record) int {
			switch {
			case a.Key < b.Key:
				return -1
			case a.Key > b.Key:
				return 1
			}
			return 0
		})
		scratch = sortRecords(recs, scratch)
		// An LSD radix sort is stable, as SortStableFunc is.
		if !slices.Equal(recs, want) {
			t.Errorf("%d records: not sorted", n)
		}
	}
}

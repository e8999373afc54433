package levels

import "math/bits"

// radixBits is the width of a digit of sortRecords: 2,048 buckets, whose
// counts and write heads stay in the first-level cache.
const radixBits = 11

// sortRecords sorts recs by key with a least-significant-digit radix sort,
// radixBits at a time over the bits in which some keys differ (five
// passes over a shard's 50 bits of stones and a few flags); scratch is
// reused and returned, grown as needed. It is several times faster than a
// comparison sort, or a hash table, on the millions of children of a
// shard.
func sortRecords(recs, scratch []Record) []Record {
	n := len(recs)
	if n < 64 {
		insertionSort(recs)
		return scratch
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, r := range recs {
		or |= uint64(r.Key)
		and &= uint64(r.Key)
	}
	varies := or ^ and // the bits that differ between some keys
	if varies == 0 {
		return scratch
	}
	if cap(scratch) < n {
		scratch = make([]Record, n)
	}
	src, dst := recs, scratch[:n]
	lo, hi := uint(bits.TrailingZeros64(varies)), uint(64-bits.LeadingZeros64(varies))
	var counts [1 << radixBits]int
	for shift := lo; shift < hi; shift += radixBits {
		clear(counts[:])
		for _, r := range src {
			counts[uint64(r.Key)>>shift&(1<<radixBits-1)]++
		}
		sum := 0
		for i, c := range counts {
			counts[i] = sum
			sum += c
		}
		for _, r := range src {
			b := uint64(r.Key) >> shift & (1<<radixBits - 1)
			dst[counts[b]] = r
			counts[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &recs[0] {
		copy(recs, src)
	}
	return scratch
}

func insertionSort(recs []Record) {
	for i := 1; i < len(recs); i++ {
		r := recs[i]
		j := i
		for ; j > 0 && recs[j-1].Key > r.Key; j-- {
			recs[j] = recs[j-1]
		}
		recs[j] = r
	}
}

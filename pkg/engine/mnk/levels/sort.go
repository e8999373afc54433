package levels

import "math/bits"

// sortRecords sorts recs by key; scratch is reused and returned, grown as
// needed. It is a most-significant-digit radix sort, a byte at a time from
// the highest bit in which keys differ: the first pass scatters the
// records over 256 buckets, which past a pass or two fit the cache, where
// the rest of the work is done. On the millions of children of a shard it
// is about three times as fast as a least-significant-digit radix sort,
// whose every pass goes through memory (BenchmarkSortRecords).
func sortRecords(recs, scratch []Record) []Record {
	if cap(scratch) < len(recs) {
		scratch = make([]Record, len(recs))
	}
	msd(recs, scratch[:len(recs)], false)
	return scratch
}

// msdSmall is the size below which a bucket is sorted by insertion.
const msdSmall = 48

// msd sorts src by key, leaving the result in dst if toDst, else in src;
// dst is as long as src, its content scratch.
func msd(src, dst []Record, toDst bool) {
	if len(src) < msdSmall {
		insertionSort(src)
		if toDst {
			copy(dst, src)
		}
		return
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, r := range src {
		or |= uint64(r.Key)
		and &= uint64(r.Key)
	}
	varies := or ^ and
	if varies == 0 { // all equal
		if toDst {
			copy(dst, src)
		}
		return
	}
	shift := uint(max(63-bits.LeadingZeros64(varies)-7, 0))
	var counts [257]int
	for _, r := range src {
		counts[uint64(r.Key)>>shift&0xff+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	next := counts
	for _, r := range src {
		b := uint64(r.Key) >> shift & 0xff
		dst[next[b]] = r
		next[b]++
	}
	if shift == 0 {
		if !toDst {
			copy(src, dst)
		}
		return
	}
	for b := range 256 {
		lo, hi := counts[b], counts[b+1]
		if lo < hi {
			msd(dst[lo:hi], src[lo:hi], !toDst)
		}
	}
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

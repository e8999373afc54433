package levels

// sortRecords sorts recs by key with a least-significant-digit radix sort,
// a byte at a time, skipping the bytes that every key shares (the flags'
// byte, mostly); scratch is reused and returned, grown as needed. It is
// several times faster than a comparison sort on the millions of records
// of a shard.
func sortRecords(recs, scratch []Record) []Record {
	n := len(recs)
	if n < 256 {
		insertionSort(recs)
		return scratch
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, r := range recs {
		or |= uint64(r.Key)
		and &= uint64(r.Key)
	}
	varies := or ^ and // the bits that differ between some keys
	if cap(scratch) < n {
		scratch = make([]Record, n)
	}
	src, dst := recs, scratch[:n]
	for shift := uint(0); shift < 64; shift += 8 {
		if varies>>shift&0xff == 0 {
			continue
		}
		var counts [256]int
		for _, r := range src {
			counts[uint64(r.Key)>>shift&0xff]++
		}
		sum := 0
		for i, c := range counts {
			counts[i] = sum
			sum += c
		}
		for _, r := range src {
			b := uint64(r.Key) >> shift & 0xff
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

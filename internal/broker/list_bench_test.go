package broker

import (
	"context"
	"testing"
)

// BenchmarkListJobs lists a bucket of 1,000 job records (what every
// submission does, looking for an unfinished job with its spec).
func BenchmarkListJobs(b *testing.B) {
	br := runServer(b)
	ctx := context.Background()
	submitJobs(b, br, 1000)
	b.ReportAllocs()
	for b.Loop() {
		jobs, err := br.Jobs().List(ctx)
		if err != nil || len(jobs) != 1000 {
			b.Fatalf("%d jobs, %v; want 1000", len(jobs), err)
		}
	}
}

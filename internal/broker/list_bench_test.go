package broker

import (
	"context"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// BenchmarkListJobs lists a bucket of 1,000 job records (what every
// submission does, looking for an unfinished job with its spec).
func BenchmarkListJobs(b *testing.B) {
	br := runServer(b)
	ctx := context.Background()
	for range 1000 {
		if _, err := br.Jobs().Submit(ctx, tasks.Spec{Kind: "mnk.count", Params: []byte(`{"rows":4,"cols":4,"k":4,"split_depth":3}`)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		jobs, err := br.Jobs().List(ctx)
		if err != nil || len(jobs) != 1000 {
			b.Fatalf("%d jobs, %v; want 1000", len(jobs), err)
		}
	}
}

package broker

import (
	"context"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// submitJobs submits n jobs to br and returns their ids.
func submitJobs(t testing.TB, br *Broker, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		r, err := br.Jobs().Submit(context.Background(), tasks.Spec{Kind: "mnk.count", Params: []byte(`{"rows":4,"cols":4,"k":4,"split_depth":3}`)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

// A listing of the jobs while their records change has every record:
// the watch's marker of the end of its initial values can come early then
// (see watchBucket). Before watchBucket read on to the bucket's count, 33
// of these 300 listings missed one or two of the 30 records.
func TestListWhileRecordsChange(t *testing.T) {
	br := runServer(t)
	ctx := context.Background()
	const n, lists = 30, 300
	ids := submitJobs(t, br, n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := br.Jobs().Update(ctx, ids[i%n], func(r *job.Record) error { r.Done++; return nil }); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	short := 0
	for i := range lists {
		jobs, err := br.Jobs().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != n {
			short++
			t.Logf("list %d: %d records, want %d", i, len(jobs), n)
		}
	}
	close(stop)
	wg.Wait()
	if short > 0 {
		t.Errorf("%d of %d listings short", short, lists)
	}
}

package broker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
)

// A worker's announcement is listed with the server's time; a process that
// attached before the bucket existed (a coordinator setting the cluster up
// creates it after the streams) finds it once it is there.
func TestWorkersAnnounceAndList(t *testing.T) {
	ctx := context.Background()
	b := runServer(t)
	// As if attached before the bucket was made: Workers looks again.
	early := &Workers{c: b.conn}
	w := job.Worker{ID: "w1-123", Name: "w1", Host: "h", Slots: 2, Busy: 1, Kinds: []string{"mnk.count"}, Done: 7, Started: time.Now()}
	if err := early.Announce(ctx, w); err != nil {
		t.Fatalf("announce through a Workers made before the bucket: %v", err)
	}
	list, err := b.Workers().List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v, %v; want w1", list, err)
	}
	got := list[0]
	if got.Name != "w1" || got.Busy != 1 || got.Done != 7 || time.Since(got.Seen) > time.Minute || !got.Alive(time.Now()) {
		t.Errorf("listed %+v", got)
	}
	w.Stopped = true
	if err := b.Workers().Announce(ctx, w); err != nil {
		t.Fatal(err)
	}
	if list, err := early.List(ctx); err != nil || len(list) != 1 || list[0].Alive(time.Now()) {
		t.Errorf("after the last announcement: %+v, %v; want w1 stopped", list, err)
	}
	// A cluster without the bucket says so.
	if err := b.js.DeleteKeyValue(ctx, workersBucket); err != nil {
		t.Fatal(err)
	}
	none := &Workers{c: b.conn}
	if _, err := none.List(ctx); !errors.Is(err, errNoWorkersBucket) {
		t.Errorf("list without the bucket: %v", err)
	}
}

package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/queue"
)

// One coordinator holds the lease at a time: a second stands by (told who
// holds it) and takes over when the first releases it; the holder's own id
// takes it back at once (a restart on the same store); a holder whose lease
// another took learns it when it renews.
func TestCoordinatorLease(t *testing.T) {
	b := runServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := queue.Holder{ID: "a", Host: "h", PID: 1, Data: "/a"}
	first, err := b.AcquireLease(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	// A second coordinator waits, and is told who runs the jobs.
	var told []queue.Holder
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = b.AcquireLease(short, queue.Holder{ID: "b", PID: 2}, func(h queue.Holder) { told = append(told, h) })
	cancelShort()
	if !errors.Is(err, context.DeadlineExceeded) || len(told) != 1 || told[0] != a {
		t.Fatalf("second coordinator: %v, told %v; want it to stand by, told of %v", err, told, a)
	}
	// The same coordinator restarted takes its lease back at once.
	again, err := b.AcquireLease(ctx, queue.Holder{ID: "a", PID: 3}, func(queue.Holder) { t.Error("a restarted holder was made to wait") })
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Renew(ctx); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("renewing a lease taken over: %v, want ErrLeaseLost", err)
	}
	// Released, it goes to the one standing by.
	got := make(chan error, 1)
	go func() {
		l, err := b.AcquireLease(ctx, queue.Holder{ID: "b", PID: 2}, nil)
		if err == nil {
			err = l.Renew(ctx)
		}
		got <- err
	}()
	if err := again.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("after release: %v", err)
	}
	if err := again.Renew(ctx); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("renewing a released lease now held by another: %v, want ErrLeaseLost", err)
	}
}

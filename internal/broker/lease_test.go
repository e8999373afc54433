package broker

import (
	"context"
	"errors"
	"testing"
	"time"
)

// One coordinator holds the lease at a time: a second stands by (told who
// holds it) and takes over when the first releases it; the holder's own id
// takes it back at once (a restart on the same store); a holder whose lease
// another took learns it when it renews.
func TestCoordinatorLease(t *testing.T) {
	b := runServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := Holder{ID: "a", Host: "h", PID: 1, Data: "/a"}
	first, err := b.Leases().Acquire(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	// A second coordinator waits, and is told who runs the jobs; it stops
	// waiting when its context ends (here, once it has been told).
	var told []Holder
	standing, stopStanding := context.WithCancel(ctx)
	_, err = b.Leases().Acquire(standing, Holder{ID: "b", PID: 2}, func(h Holder) { told = append(told, h); stopStanding() })
	stopStanding()
	if !errors.Is(err, context.Canceled) || len(told) != 1 || told[0] != a {
		t.Fatalf("second coordinator: %v, told %v; want it to stand by, told of %v", err, told, a)
	}
	// The same coordinator restarted takes its lease back at once.
	again, err := b.Leases().Acquire(ctx, Holder{ID: "a", PID: 3}, func(Holder) { t.Error("a restarted holder was made to wait") })
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("renewing a lease taken over: %v, want ErrLeaseLost", err)
	}
	// Released, it goes to the one standing by.
	got := make(chan error, 1)
	go func() {
		l, err := b.Leases().Acquire(ctx, Holder{ID: "b", PID: 2}, nil)
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
	if err := again.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("renewing a released lease now held by another: %v, want ErrLeaseLost", err)
	}
}

package broker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
)

// A worker takes a task from the work queue, hands it back, takes it again
// (its second delivery) and acknowledges it: the queue is then empty, and
// a request for a task returns none when its wait is over. A message on a
// task subject that is not a task says so, with the ids of its subject.
func TestTaskSource(t *testing.T) {
	b := runServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Work().EnsureConsumers(ctx); err != nil {
		t.Fatal(err)
	}
	src, err := b.Work().Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if src.AckWait() != DefaultConfig().AckWait {
		t.Errorf("AckWait %v, want %v", src.AckWait(), DefaultConfig().AckWait)
	}
	want := job.Task{Job: "j1", ID: "t1", Kind: "k", Epoch: 1, Check: job.PayloadCheck([]byte("p")), Payload: []byte("p")}
	if err := b.Work().PublishTask(ctx, want); err != nil {
		t.Fatal(err)
	}
	next := func() job.Delivery {
		t.Helper()
		d, err := src.Next(ctx, 5*time.Second)
		if err != nil || d == nil {
			t.Fatalf("next task: %v, %v", d, err)
		}
		return d
	}
	d := next()
	if got, err := d.Task(); err != nil || got.Job != want.Job || got.ID != want.ID || got.Check != want.Check || string(got.Payload) != "p" || d.Delivered() != 1 {
		t.Fatalf("delivered %+v, %v (delivery %d); want %+v, first", got, err, d.Delivered(), want)
	}
	if err := d.HandBack(); err != nil {
		t.Fatal(err)
	}
	d = next()
	if d.Delivered() != 2 {
		t.Errorf("handed back and delivered again: delivery %d, want 2", d.Delivered())
	}
	if err := d.Heartbeat(); err != nil {
		t.Fatal(err)
	}
	if err := d.Ack(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Work().QueuedTasks(ctx); err != nil || n != 0 {
		t.Errorf("after the ack, %d tasks queued (%v), want 0", n, err)
	}
	if d, err := src.Next(ctx, 200*time.Millisecond); d != nil || err != nil {
		t.Errorf("an empty queue gave %v, %v; want nothing", d, err)
	}
	if _, err := b.js.Publish(ctx, taskSubject("j2", "t9"), []byte("no headers")); err != nil {
		t.Fatal(err)
	}
	d = next()
	if got, err := d.Task(); !errors.Is(err, ErrMalformed) || got.Job != "j2" || got.ID != "t9" {
		t.Errorf("a message that is not a task: %+v, %v", got, err)
	}
	if err := d.Terminate("not a task"); err != nil {
		t.Fatal(err)
	}
}

// Results reach ConsumeResults one at a time, decoded; a message on the
// results subject that is not a result is dropped.
func TestConsumeResults(t *testing.T) {
	b := runServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Work().EnsureConsumers(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.js.Publish(ctx, resultSubject("j1", "w"), []byte("no headers")); err != nil {
		t.Fatal(err)
	}
	want := job.Result{Job: "j1", Task: "t1", Check: "c", Worker: "w", Data: []byte("42"), Seconds: 1}
	if err := b.Work().PublishResult(ctx, want); err != nil {
		t.Fatal(err)
	}
	got := make(chan job.Result, 2)
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- b.Work().ConsumeResults(cctx, func(r job.Result) { got <- r }) }()
	r := <-got
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r.Job != want.Job || r.Task != want.Task || string(r.Data) != "42" || r.Check != "c" {
		t.Errorf("result %+v, want %+v", r, want)
	}
	if len(got) != 0 {
		t.Errorf("a message that is not a result was handled: %+v", <-got)
	}
}

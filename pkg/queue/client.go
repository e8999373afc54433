package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// NewJobID returns a fresh job id: the submission time and a random suffix,
// sortable and safe as a subject token.
func NewJobID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// NewJob returns the record of a job about to be submitted, with a fresh id.
func NewJob(spec Spec) *Job {
	now := time.Now()
	return &Job{ID: NewJobID(now), Spec: spec, State: StateSubmitted, Submitted: now}
}

// Submit stores a new job for the coordinator to pick up and returns its
// record.
func (b *Broker) Submit(ctx context.Context, spec Spec) (*Job, error) {
	j := NewJob(spec)
	if err := b.CreateJob(ctx, j); err != nil {
		return nil, err
	}
	return j, nil
}

// waitPoll is how often Wait also reads the job's record: a watch recovers
// from a restarted NATS server only when its heartbeats time out (12-18 s
// measured), and a finished job should not wait for that.
const waitPoll = 2 * time.Second

// Wait follows a job until it is final and returns its last record. It calls
// progress (if not nil) with every change.
func (b *Broker) Wait(ctx context.Context, id string, progress func(*Job)) (*Job, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates, err := b.WatchJob(wctx, id)
	if err != nil {
		return nil, err
	}
	poll := time.NewTicker(waitPoll)
	defer poll.Stop()
	for {
		var j *Job
		select {
		case u, ok := <-updates:
			if !ok {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				return nil, fmt.Errorf("watch job %s: stopped", id)
			}
			j = u
		case <-poll.C:
			gctx, gcancel := context.WithTimeout(wctx, waitPoll)
			rec, _, err := b.GetJob(gctx, id)
			gcancel()
			if err != nil || !rec.State.Final() {
				continue // the watch reports progress
			}
			j = rec
		}
		if progress != nil {
			progress(j)
		}
		if j.State.Final() {
			return j, nil
		}
	}
}

// Cancel asks the coordinator to cancel a job. It returns the record as
// written; cancelling a final job changes nothing.
func (b *Broker) Cancel(ctx context.Context, id string) (*Job, error) {
	return b.UpdateJob(ctx, id, func(j *Job) error {
		if j.State.Final() || j.CancelRequested {
			return ErrNoChange
		}
		j.CancelRequested = true
		return nil
	})
}

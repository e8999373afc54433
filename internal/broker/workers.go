package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/woprlabs/wopr/pkg/job"
)

// workersBucket holds the workers' announcements (their heartbeats), one
// key per worker process; one not renewed for workerTTL is forgotten.
const (
	workersBucket = "wopr_workers"
	workerTTL     = 10 * time.Minute
)

// Workers is the bucket in which workers announce themselves: a worker
// puts its job.Worker there every job.HeartbeatEvery, and clients list
// them (analyze workers, status, the progress line of a job no worker
// takes).
type Workers struct {
	c  *conn
	kv jetstream.KeyValue // nil: a coordinator older than the bucket set the cluster up
}

// errNoWorkersBucket says that the cluster has no bucket of workers.
var errNoWorkersBucket = errors.New("bucket " + workersBucket + " does not exist: the coordinator that set up this cluster predates worker heartbeats")

// Announce puts w's announcement, under its ID.
func (ws *Workers) Announce(ctx context.Context, w job.Worker) error {
	if ws.kv == nil {
		return errNoWorkersBucket
	}
	data, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return ws.c.request(ctx, func(ctx context.Context) error {
		_, err := ws.kv.Put(ctx, workerKey(w.ID), data)
		return err
	})
}

// List returns the workers that announced themselves within workerTTL,
// by name, with Seen set to when the server stored each announcement.
func (ws *Workers) List(ctx context.Context) ([]job.Worker, error) {
	if ws.kv == nil {
		return nil, errNoWorkersBucket
	}
	wctx, cancel := context.WithTimeout(ctx, requestAttempt)
	defer cancel()
	w, err := ws.kv.WatchAll(wctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	defer w.Stop()
	var out []job.Worker
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("list workers: watch stopped")
			}
			if e == nil {
				sort.Slice(out, func(i, j int) bool {
					if out[i].Name != out[j].Name {
						return out[i].Name < out[j].Name
					}
					return out[i].Started.Before(out[j].Started)
				})
				return out, nil
			}
			var wk job.Worker
			if json.Unmarshal(e.Value(), &wk) == nil {
				wk.Seen = e.Created()
				out = append(out, wk)
			}
		case <-wctx.Done():
			return nil, fmt.Errorf("list workers: %w", wctx.Err())
		}
	}
}

// workerKey is the key of a worker's announcement: its ID with the
// characters a key may not hold replaced.
func workerKey(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			b[i] = '_'
		}
	}
	return string(b)
}

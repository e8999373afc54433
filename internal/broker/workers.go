package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
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
	c *conn

	mu sync.Mutex
	kv jetstream.KeyValue // nil until the bucket is found (see bucket)
}

// bucket returns the bucket, looking for it again while it has not been
// found: a process may attach while a coordinator sets the cluster up,
// after the streams and before this bucket, or to a cluster that a
// coordinator older than the bucket set up.
func (ws *Workers) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.kv != nil {
		return ws.kv, nil
	}
	kv, err := ws.c.js.KeyValue(ctx, workersBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, errNoWorkersBucket
	}
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", workersBucket, err)
	}
	ws.kv = kv
	return kv, nil
}

// errNoWorkersBucket says that the cluster has no bucket of workers.
var errNoWorkersBucket = errors.New("bucket " + workersBucket + " does not exist (yet): no coordinator that knows worker heartbeats has set this cluster up")

// Announce puts w's announcement, under its ID.
func (ws *Workers) Announce(ctx context.Context, w job.Worker) error {
	kv, err := ws.bucket(ctx)
	if err != nil {
		return err
	}
	data, err := json.Marshal(w)
	if err != nil {
		return err
	}
	return ws.c.request(ctx, func(ctx context.Context) error {
		_, err := kv.Put(ctx, workerKey(w.ID), data)
		return err
	})
}

// List returns the workers that announced themselves within workerTTL,
// by name, with Seen set to when the server stored each announcement.
func (ws *Workers) List(ctx context.Context) ([]job.Worker, error) {
	kv, err := ws.bucket(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := listBucket(ctx, kv)
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	var out []job.Worker
	for _, e := range entries {
		var wk job.Worker
		if json.Unmarshal(e.Value(), &wk) == nil {
			wk.Seen = e.Created()
			out = append(out, wk)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Started.Before(out[j].Started)
	})
	return out, nil
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

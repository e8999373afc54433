// Package service runs wopr's long-lived processes (coordinator, worker)
// against a NATS cluster until they are told to stop: the first SIGINT or
// SIGTERM stops them gracefully, a second one aborts.
package service

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/coordinator"
	"github.com/woprlabs/wopr/pkg/worker"
)

// Common is what both processes need.
type Common struct {
	NATS string
	// Auth holds the credentials and TLS settings for NATS.
	Auth  broker.Auth
	Data  string
	Name  string
	Queue broker.Config
	// CacheTTL is how long the store keeps what is put in it (see
	// store.Options.TTL).
	CacheTTL time.Duration
	Log      *slog.Logger
	// MetricsAddr, if set, is where the process serves its Prometheus
	// metrics, /healthz and /readyz (HOST:PORT; port 0: any free one).
	MetricsAddr string
}

// WorkerConfig configures a worker process.
type WorkerConfig struct {
	Common
	Concurrency int
	// Grace is how long running tasks may take to finish on SIGTERM before
	// they are handed back.
	Grace time.Duration
}

// CoordinatorConfig configures a coordinator process.
type CoordinatorConfig struct {
	Common
	// MaxTasks is the most tasks a job may have (0: tasks.MaxTasks).
	MaxTasks int
}

// open opens the Badger store, then connects and sets up (coordinator) or
// attaches to (worker) the streams. A worker waits for the coordinator. The
// store comes first: a --data that cannot be written (read-only, on a full
// disk, another process's) is an error at once, not once NATS is there.
func open(ctx context.Context, c Common, owner bool) (*broker.Broker, *store.DB, error) {
	db, err := store.Open(c.Data, store.Options{Log: c.Log, TTL: c.CacheTTL})
	if err != nil {
		return nil, nil, err
	}
	e := broker.Endpoint{URL: c.NATS, Auth: c.Auth, Name: c.Name, WaitFirst: true, Log: c.Log}
	var b *broker.Broker
	if owner {
		octx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		b, err = broker.Open(octx, e, c.Queue)
	} else {
		b, err = broker.Attach(ctx, e, c.Queue)
	}
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return b, db, nil
}

// signals returns a context cancelled by the first SIGINT/SIGTERM and a
// second one cancelled by the next.
func signals() (first, second context.Context, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	first, cancel1 := context.WithCancel(context.Background())
	second, cancel2 := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-ch:
				n++
				if n == 1 {
					cancel1()
				} else {
					cancel2()
				}
			case <-done:
				return
			}
		}
	}()
	return first, second, func() { signal.Stop(ch); close(done); cancel1(); cancel2() }
}

// RunWorker runs a worker until a signal.
func RunWorker(cfg WorkerConfig) error {
	first, second, stop := signals()
	defer stop()
	obs, err := observe(cfg.Common)
	if err != nil {
		return err
	}
	defer obs.close(cfg.Common)
	b, db, err := open(first, cfg.Common, false)
	if err != nil {
		if first.Err() != nil {
			cfg.Log.Info("stopped before nats and the coordinator's streams were there")
			return nil
		}
		return err
	}
	defer b.Close()
	source, err := b.Work().Tasks(first)
	if err != nil {
		db.Close()
		if first.Err() != nil && b.Err() == nil {
			return nil
		}
		return err
	}
	// Requests for tasks run out on their own (in a second) when the worker
	// stops: one cut short could lose a task for a whole AckWait.
	w, err := worker.Start(worker.Config{Name: cfg.Name, Concurrency: cfg.Concurrency, Source: source, Results: b.Work(), Jobs: b.Jobs(),
		Objects: b.Objects(), Conn: b, Cache: db, Dir: filepath.Join(cfg.Data, "tables"),
		Log: cfg.Log, FetchWait: time.Second, Metrics: obs.worker(), Presence: b.Workers()})
	if err != nil {
		db.Close()
		return err
	}
	obs.readyWhileConnected(b)
	cfg.Log.Info("worker running", "name", cfg.Name, "slots", cfg.Concurrency, "nats", broker.RedactURL(cfg.NATS), "data", cfg.Data)
	grace := cfg.Grace
	select {
	case <-first.Done():
		cfg.Log.Info("stopping: finishing running tasks (signal again to hand them back now)")
	case <-b.Failed():
		// Nothing can reach NATS any more: results, acks and hand-backs
		// are lost, and the tasks go to other workers after AckWait.
		cfg.Log.Error("stopping: nats refused this worker's credentials", "err", b.Err())
		grace = 0
	case <-db.Failed():
		// Results still reach the coordinator; the tasks not started go
		// back to the queue, to workers whose disks are not full.
		cfg.Log.Error("stopping: the store's disk is full", "err", db.Err())
	}
	obs.notReady("stopping")
	ctx, cancel := context.WithTimeout(second, grace)
	defer cancel()
	werr := w.Close(ctx)
	done, failed := w.Counts()
	cfg.Log.Info("worker stopped", "tasks", done, "failed", failed)
	if err := db.Close(); err != nil {
		if errors.Is(err, store.ErrDiskFull) {
			return err // it names the directory
		}
		return fmt.Errorf("close store: %w", err)
	}
	if err := b.Err(); err != nil {
		return err
	}
	if werr != nil {
		cfg.Log.Warn("stop", "err", werr)
	}
	return nil
}

// RunCoordinator runs a coordinator until a signal.
func RunCoordinator(cfg CoordinatorConfig) error {
	first, second, stop := signals()
	defer stop()
	obs, err := observe(cfg.Common)
	if err != nil {
		return err
	}
	defer obs.close(cfg.Common)
	b, db, err := open(first, cfg.Common, true)
	if err != nil {
		if first.Err() != nil {
			cfg.Log.Info("stopped before nats was there")
			return nil
		}
		return err
	}
	defer b.Close()
	obs.notReady("not holding the coordinator lease: standing by, or taking it")
	lease, err := acquireLease(first, b, db, cfg)
	if err != nil {
		db.Close()
		if ferr := b.Err(); ferr != nil {
			return ferr
		}
		if first.Err() != nil {
			return nil // stopped while standing by
		}
		return err
	}
	c, err := coordinator.Start(first, coordinator.Config{Jobs: b.Jobs(), Work: b.Work(), Objects: b.Objects(), Conn: b, DB: db, Log: cfg.Log,
		Metrics: obs.coordinator(), MaxTasks: cfg.MaxTasks})
	if err != nil {
		db.Close()
		return err
	}
	stopSampling := obs.sampleQueue(b.Work(), cfg.Common)
	defer stopSampling()
	obs.readyWhileConnected(b)
	cfg.Log.Info("coordinator running", "nats", broker.RedactURL(cfg.NATS), "data", cfg.Data)
	lost := make(chan struct{})
	go keepLease(first, lease, cfg.Log, lost)
	select {
	case <-first.Done():
	case <-lost:
	case <-b.Failed():
		cfg.Log.Error("stopping: nats refused this coordinator's credentials", "err", b.Err())
	case <-db.Failed():
		// Merged results would be lost: a standby, or this coordinator
		// restarted with room on its disk, takes the jobs up.
		cfg.Log.Error("stopping: the store's disk is full", "err", db.Err())
	}
	obs.notReady("stopping")
	// A second signal stops waiting for the coordinator's loops.
	ctx, cancel := context.WithTimeout(second, 10*time.Second)
	defer cancel()
	cerr := c.Close(ctx)
	select {
	case <-lost:
		cerr = errors.Join(cerr, fmt.Errorf("stopped: %w", broker.ErrLeaseLost))
	case <-b.Failed():
		// The lease runs out by itself; a standby takes over then.
		cerr = b.Err()
	default:
		if err := lease.Release(ctx); err != nil {
			cfg.Log.Warn("release the coordinator lease", "err", err)
		}
	}
	if err := db.Close(); err != nil {
		if errors.Is(err, store.ErrDiskFull) {
			return errors.Join(cerr, err) // it names the directory
		}
		return fmt.Errorf("close store: %w", err)
	}
	cfg.Log.Info("coordinator stopped")
	return cerr
}

// acquireLease takes the cluster's coordinator lease, standing by while
// another coordinator holds it. The holder's id is kept in the store, so a
// coordinator restarted on the same --data takes its lease back at once.
func acquireLease(ctx context.Context, b *broker.Broker, db *store.DB, cfg CoordinatorConfig) (*broker.Lease, error) {
	id, ok, err := db.Get([]byte("coordinator/id"))
	if err != nil {
		return nil, err
	}
	if !ok {
		id = []byte(rand.Text())
		if err := db.Keep([]byte("coordinator/id"), id); err != nil {
			return nil, err
		}
		if err := db.Flush(); err != nil {
			return nil, err
		}
	}
	host, _ := os.Hostname()
	return b.Leases().Acquire(ctx, broker.Holder{ID: string(id), Host: host, PID: os.Getpid(), Data: cfg.Data}, func(h broker.Holder) {
		cfg.Log.Warn("another coordinator runs this cluster's jobs: standing by until it stops", "holder", h.String())
	})
}

// keepLease renews the lease until ctx ends; it closes lost if another
// coordinator takes the lease (after this one could not renew it in time).
func keepLease(ctx context.Context, l *broker.Lease, log *slog.Logger, lost chan<- struct{}) {
	t := time.NewTicker(broker.LeaseTTL / 5)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, broker.LeaseTTL/5)
		err := l.Renew(rctx)
		cancel()
		switch {
		case errors.Is(err, broker.ErrLeaseLost):
			log.Error("another coordinator took over this cluster's jobs: stopping")
			close(lost)
			return
		case err != nil && ctx.Err() == nil:
			log.Warn("renew the coordinator lease (will retry)", "err", err)
		}
	}
}

// Package broker is wopr's adapter to NATS JetStream, and the only package
// that imports nats.go. A Broker is one connection; it hands out its
// duties, each a type with the few methods its consumers use:
//
//	Jobs     the bucket of job records: get, create, update, list, watch,
//	         wait for, cancel
//	Work     the work queue of tasks that workers take, the queue of
//	         results that the coordinator merges, and the dead-letter
//	         queue of tasks that no worker could finish
//	Objects  the object store of job inputs and outputs, and the bucket of
//	         the pieces of inputs (which a Lender may leave in their files)
//	Leases   the coordinator lease
//	Workers  the workers' announcements of themselves (heartbeats)
//
// The connection itself is reached through an Endpoint (with its Auth) and
// sets up the streams with a Config. Callers speak wopr's types
// (job.Record, job.Task, job.Result, job.Delivery); streams, consumers and
// subjects stay in here, and each consumer of a duty declares the
// interface it uses.
//
// Layout (subjects are built and parsed in subjects.go only, and messages
// encoded and decoded in messages.go only):
//
//	stream WOPR_TASKS    work queue, subjects wopr.tasks.<job>.<task>, one durable
//	                     pull consumer "workers" shared by every worker
//	stream WOPR_RESULTS  work queue, subjects wopr.results.<job>, one durable pull
//	                     consumer "coordinator"; a result too big for a message
//	                     comes as several, its parts (parts.go)
//	stream WOPR_DEAD     captures the MAX_DELIVERIES advisories of "workers"
//	                     (consumer "coordinator-dead")
//	KV     wopr_jobs     one record per job: spec, state, progress, report
//	KV     wopr_coordinator  the lease of the coordinator that runs the jobs
//	OBJ    wopr_objects  job inputs (content-addressed) and outputs, kept 14 days
//	KV     wopr_workers  one announcement per worker process, renewed every
//	                     job.HeartbeatEvery, forgotten after 10 minutes
//	KV     wopr_pieces   pieces of job inputs that fit a message, each a
//	                     task's (content-addressed), or where they are in
//	                     their files (key at.<piece>: see Lender), kept 14 days
package broker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Names of streams, consumers and buckets.
const (
	tasksStream     = "WOPR_TASKS"
	resultsStream   = "WOPR_RESULTS"
	deadStream      = "WOPR_DEAD"
	workersConsumer = "workers"
	coordConsumer   = "coordinator"
	deadConsumer    = "coordinator-dead"
	jobsBucket      = "wopr_jobs"
	objectsBucket   = "wopr_objects"
	piecesBucket    = "wopr_pieces"
)

// objectTTL is how long job inputs and outputs are kept.
const objectTTL = 14 * 24 * time.Hour

// Config holds the JetStream settings. The zero value is not useful; start
// from DefaultConfig.
type Config struct {
	// Memory keeps streams in memory (tests); otherwise they are on disk.
	Memory bool
	// Replicas of each stream and bucket (3 on a 3-node cluster).
	Replicas int
	// AckWait is how long a worker may hold a task without a heartbeat
	// before it is redelivered; workers send one every AckWait/4.
	AckWait time.Duration
	// MaxDeliver is how often a task is delivered before it goes to the
	// dead-letter stream and is reported as failed.
	MaxDeliver int
	// MaxAckPending bounds the tasks out with workers at once.
	MaxAckPending int
}

// DefaultConfig returns the settings wopr runs with unless told otherwise:
// a minute of AckWait, six deliveries of a task before it is given up, and
// room for 256 tasks out with workers.
func DefaultConfig() Config {
	return Config{Replicas: 1, AckWait: 60 * time.Second, MaxDeliver: 6, MaxAckPending: 256}
}

// Broker is an open connection to JetStream with wopr's streams and
// buckets, and the duties it serves through them. It owns the connection:
// Close closes it.
type Broker struct {
	*conn
	jobs    *Jobs
	work    *Work
	objects *Objects
	leases  *Leases
	workers *Workers
}

// Open connects and ensures the streams, buckets and consumers exist
// (creating or updating them is idempotent): what the coordinator does,
// which owns their settings. It retries while a cluster elects leaders,
// until ctx is done.
func Open(ctx context.Context, e Endpoint, cfg Config) (*Broker, error) {
	c, err := dial(ctx, e, cfg)
	if err != nil {
		return nil, err
	}
	b := &Broker{conn: c, leases: &Leases{c: c}}
	if err := b.create(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Attach connects to streams and buckets that a coordinator has set up,
// waiting for them until ctx is done. Workers and clients attach rather
// than Open, so that they never change the coordinator's settings (such as
// the number of replicas).
func Attach(ctx context.Context, e Endpoint, cfg Config) (*Broker, error) {
	c, err := dial(ctx, e, cfg)
	if err != nil {
		return nil, err
	}
	b := &Broker{conn: c, leases: &Leases{c: c}}
	if err := b.attach(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Workers returns the bucket of the workers' announcements.
func (b *Broker) Workers() *Workers { return b.workers }

// Jobs returns the bucket of job records.
func (b *Broker) Jobs() *Jobs { return b.jobs }

// Work returns the queues of tasks, results and dead letters.
func (b *Broker) Work() *Work { return b.work }

// Objects returns the object store and the bucket of pieces.
func (b *Broker) Objects() *Objects { return b.objects }

// Leases returns the bucket of the coordinator lease.
func (b *Broker) Leases() *Leases { return b.leases }

// Failed is closed when the connection has failed for good: the server
// refused this process's credentials at a reconnection or while connected
// (revoked by a reload of its configuration), or nats.go gave up. Err
// says why. A process that runs for long should stop when it is closed:
// nothing it sends arrives any more. Any other loss of the connection is
// mended by reconnecting.
func (b *Broker) Failed() <-chan struct{} { return b.fail.done }

// Err returns why the connection failed for good (see Failed), or nil.
func (b *Broker) Err() error {
	select {
	case <-b.fail.done:
		return b.fail.err
	default:
		return nil
	}
}

// Guard returns a context that ends with ctx, and earlier, with the error
// as its cause (context.Cause), when the server reports a permission
// violation on the connection (an error wrapping ErrPermission) or the
// connection fails for good (see Failed). A command that runs under it
// ends at once on a request the server denied, which is never answered,
// rather than waiting for the answer until it is killed. stop releases it.
func (b *Broker) Guard(ctx context.Context) (guarded context.Context, stop context.CancelFunc) {
	gctx, cancel := context.WithCancelCause(ctx)
	n, next := b.fail.nextDenial()
	go func() {
		select {
		case <-gctx.Done():
		case <-next:
			cancel(b.fail.deniedSince(n))
		case <-b.fail.done:
			cancel(b.fail.err)
		}
	}()
	return gctx, func() { cancel(context.Canceled) }
}

// Close closes the connection. Whatever was published and acknowledged is
// with the server; call Flush first to make sure acks and naks sent
// without waiting have left.
func (b *Broker) Close() { b.nc.Close() }

// Flush waits until everything sent has reached the server.
func (b *Broker) Flush(timeout time.Duration) error {
	if b.nc.IsClosed() {
		return nil
	}
	return b.nc.FlushTimeout(timeout)
}

// Reconnects counts the times the connection came back after a loss.
func (b *Broker) Reconnects() uint64 { return b.nc.Stats().Reconnects }

// Connected tells whether the connection to NATS is up now: not while it
// reconnects, nor once closed (for a readiness probe).
func (b *Broker) Connected() bool { return b.nc.IsConnected() }

// create creates or updates the streams and buckets, and makes the
// duties that use them.
func (b *Broker) create(ctx context.Context) error {
	c := b.conn
	js, storage, replicas := c.js, c.storage(), c.replicas()
	return c.retry(ctx, func(ctx context.Context) error {
		tasks, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        tasksStream,
			Description: "wopr tasks waiting for a worker",
			Subjects:    []string{allTasksSubject},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    replicas,
			Duplicates:  2 * time.Minute,
		})
		if err != nil {
			return fmt.Errorf("create stream %s: %w", tasksStream, err)
		}
		results, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        resultsStream,
			Description: "wopr task results waiting for the coordinator",
			Subjects:    []string{allResultsSubject},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    replicas,
			Duplicates:  2 * time.Minute,
		})
		if err != nil {
			return fmt.Errorf("create stream %s: %w", resultsStream, err)
		}
		dead, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        deadStream,
			Description: "advisories of wopr tasks that reached MaxDeliver",
			Subjects:    []string{maxDeliveriesSubject},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create stream %s: %w", deadStream, err)
		}
		jobs, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      jobsBucket,
			Description: "wopr jobs: spec, state, progress, report",
			History:     1,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", jobsBucket, err)
		}
		objects, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      objectsBucket,
			Description: "wopr job inputs and outputs",
			TTL:         objectTTL,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create object store %s: %w", objectsBucket, err)
		}
		pieces, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      piecesBucket,
			Description: "pieces of wopr job inputs, one message each",
			History:     1,
			TTL:         objectTTL,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", piecesBucket, err)
		}
		workers, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      workersBucket,
			Description: "wopr workers: each one's announcement of itself, its heartbeat",
			History:     1,
			TTL:         workerTTL,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", workersBucket, err)
		}
		b.made(tasks, results, dead, jobs, objects, pieces, workers)
		return nil
	})
}

// attach finds the streams and buckets, and makes the duties that use
// them.
func (b *Broker) attach(ctx context.Context) error {
	c := b.conn
	js := c.js
	return c.retry(ctx, c.tellOnce("waiting for wopr's streams", func(ctx context.Context) error {
		tasks, err := js.Stream(ctx, tasksStream)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("stream %s: %w (has a wopr coordinator ever run on this NATS server?)", tasksStream, err)
		} else if err != nil {
			return fmt.Errorf("stream %s: %w", tasksStream, err)
		}
		results, err := js.Stream(ctx, resultsStream)
		if err != nil {
			return fmt.Errorf("stream %s: %w", resultsStream, err)
		}
		dead, err := js.Stream(ctx, deadStream)
		if err != nil {
			return fmt.Errorf("stream %s: %w", deadStream, err)
		}
		jobs, err := js.KeyValue(ctx, jobsBucket)
		if err != nil {
			return fmt.Errorf("bucket %s: %w", jobsBucket, err)
		}
		objects, err := js.ObjectStore(ctx, objectsBucket)
		if err != nil {
			return fmt.Errorf("object store %s: %w", objectsBucket, err)
		}
		pieces, err := js.KeyValue(ctx, piecesBucket)
		if err != nil {
			return fmt.Errorf("bucket %s: %w", piecesBucket, err)
		}
		// Not there yet (a coordinator setting the cluster up creates
		// it last), or never (an older coordinator): Workers looks again.
		workers, err := js.KeyValue(ctx, workersBucket)
		if err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("bucket %s: %w", workersBucket, err)
		}
		b.made(tasks, results, dead, jobs, objects, pieces, workers)
		return nil
	}))
}

// made makes the duties that use the streams and buckets. A lender
// plugged into the objects before stays plugged.
func (b *Broker) made(tasks, results, dead jetstream.Stream, jobs jetstream.KeyValue, objects jetstream.ObjectStore,
	pieces, workers jetstream.KeyValue) {
	c := b.conn
	b.jobs = &Jobs{c: c, kv: jobs}
	b.workers = &Workers{c: c, kv: workers}
	b.work = &Work{c: c, tasks: tasks, results: results, dead: dead}
	var lender Lender
	if b.objects != nil {
		lender = b.objects.lender
	}
	b.objects = &Objects{c: c, os: objects, pieces: pieces, lender: lender}
}

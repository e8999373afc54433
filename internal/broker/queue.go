// Package broker is wopr's adapter to NATS JetStream, and the only package
// that imports nats.go: the work queue of tasks that workers take, the
// queue of results that the coordinator merges, the dead-letter queue of
// tasks that no worker could finish, the bucket of job records, the object
// store of inputs and outputs, and the coordinator lease. Callers speak
// wopr's types (job.Record, TaskMsg, ResultMsg, Delivery); streams,
// consumers and subjects stay in here.
//
// Layout (subjects are built and parsed in subjects.go only):
//
//	stream WOPR_TASKS    work queue, subjects wopr.tasks.<job>.<task>, one durable
//	                     pull consumer "workers" shared by every worker
//	stream WOPR_RESULTS  work queue, subjects wopr.results.<job>, one durable pull
//	                     consumer "coordinator"
//	stream WOPR_DEAD     captures the MAX_DELIVERIES advisories of "workers"
//	                     (consumer "coordinator-dead")
//	KV     wopr_jobs     one record per job: spec, state, progress, report
//	KV     wopr_coordinator  the lease of the coordinator that runs the jobs
//	OBJ    wopr_objects  job inputs (content-addressed) and outputs, kept 14 days
//	KV     wopr_pieces   pieces of job inputs that fit a message, each a
//	                     task's (content-addressed), or where they are in
//	                     their files (key at.<piece>: see lender), kept 14 days
package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
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

// InProcessServer is a NATS server in this process (nats-server's
// *server.Server), reached without a socket.
type InProcessServer interface {
	InProcessConn() (net.Conn, error)
	ReadyForConnections(wait time.Duration) bool
}

// Endpoint says how to reach a NATS server.
type Endpoint struct {
	// URL is a comma-separated list of server URLs (see CheckURL).
	URL string
	// Auth holds the credentials and TLS settings (not for InProcess).
	Auth Auth
	// InProcess, if set, is used instead of URL.
	InProcess InProcessServer
	// Name names the connection in the server's monitoring.
	Name string
	// WaitFirst keeps trying until the server is first reachable (a
	// long-running process); without it a server that cannot be reached is
	// an error at once (a command line). Either way, a connection once made
	// reconnects for ever. Credentials the server refuses, and a failure
	// in TLS, are an error at once, never tried again; credentials refused
	// later close Broker.Failed.
	WaitFirst bool
	// Log receives connection events and asynchronous errors (nil: none).
	Log *slog.Logger
}

// String names the server for messages, without its passwords.
func (e Endpoint) String() string {
	if e.InProcess != nil {
		return "the embedded server"
	}
	return RedactURL(e.URL)
}

// Broker is an open connection to JetStream with wopr's streams and
// buckets. It owns the connection: Close closes it.
type Broker struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	jobs    jetstream.KeyValue
	tasks   jetstream.Stream
	results jetstream.Stream
	dead    jetstream.Stream
	objects jetstream.ObjectStore
	pieces  jetstream.KeyValue
	cfg     Config
	log     *slog.Logger
	fail    *failure

	handoff *handoff // nil unless EnableHandoff
	lender  *lender  // nil unless EnableLender or ShareLender
}

// failure records the first error that ends a connection for good.
type failure struct {
	once sync.Once
	done chan struct{}
	err  error

	// The server's permission violations, counted: a request it denied is
	// never answered, and request and retry end on one rather than send
	// the request again for ever.
	mu      sync.Mutex
	denials uint64
	denied  error
}

// deny records a permission violation the server reported.
func (f *failure) deny(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.denials++
	f.denied = err
}

// denialCount returns how many permission violations there have been.
func (f *failure) denialCount() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.denials
}

// deniedSince returns the last permission violation if there has been one
// since the count was n, else nil.
func (f *failure) deniedSince(n uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.denials > n {
		return f.denied
	}
	return nil
}

func (f *failure) set(err error) {
	f.once.Do(func() {
		f.err = err
		close(f.done)
	})
}

// connectWait is how long a process that waits for its server (WaitFirst)
// waits between attempts.
const connectWait = 250 * time.Millisecond

// connect dials the endpoint the way every wopr process should: named,
// reconnecting for ever once connected, and logging asynchronous errors.
// Credentials the server refuses end it at once, at the first connection
// (an error wrapping ErrAuthorization) as at a reconnection or while
// connected (the failure's channel is closed): trying again would only
// fill the server's log. So does a failure in TLS at the first
// connection (ErrTLS); at a reconnection nats.go tries again, reading the
// certificate files anew. With WaitFirst it tries again, until ctx ends,
// while the server cannot be reached.
func connect(ctx context.Context, e Endpoint) (*nats.Conn, *failure, error) {
	log := e.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fail := &failure{done: make(chan struct{})}
	opts := nats.GetDefaultOptions()
	all := []nats.Option{
		nats.Name(e.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(connectWait),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if ferr := e.refused(err); ferr != nil {
				// Refused at a reconnection, or while connected
				// (credentials revoked by a reload of the server).
				fail.set(ferr)
				return
			}
			if errors.Is(err, nats.ErrPermissionViolation) {
				fail.deny(err)
			}
			subj := ""
			if sub != nil {
				subj = sub.Subject
			}
			log.Warn("nats async error", "subject", subj, "err", err)
		}),
		nats.ConnectHandler(func(*nats.Conn) { log.Info("connected to nats", "url", e.String()) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from nats: reconnecting", "url", e.String(), "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("reconnected to nats", "url", e.String()) }),
		nats.ClosedHandler(func(nc *nats.Conn) {
			// nats.go gives up reconnecting when a server refuses the
			// same credentials twice.
			if ferr := e.refused(nc.LastError()); ferr != nil {
				fail.set(ferr)
			}
		}),
	}
	if e.InProcess != nil {
		all = append(all, nats.InProcessServer(e.InProcess))
	} else {
		// A comma-separated list of servers, as nats.Connect reads it.
		for u := range strings.SplitSeq(e.URL, ",") {
			if u = strings.TrimSpace(u); u != "" {
				opts.Servers = append(opts.Servers, u)
			}
		}
		auth, err := e.Auth.options()
		if err != nil {
			return nil, nil, err
		}
		all = append(all, auth...)
	}
	for _, o := range all {
		if err := o(&opts); err != nil {
			return nil, nil, fmt.Errorf("connect to nats at %s: %w", e, err)
		}
	}
	told := false
	for {
		nc, err := opts.Connect()
		if err == nil {
			return nc, fail, nil
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL may hold a password
		}
		if ferr := e.refused(err); ferr != nil {
			return nil, nil, ferr
		}
		if !e.WaitFirst || ctx.Err() != nil {
			return nil, nil, fmt.Errorf("connect to nats at %s: %w", e, err)
		}
		if !told {
			log.Warn("nats not reachable yet: retrying until it is", "url", e.String(), "err", err)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("connect to nats at %s: %w", e, err)
		case <-time.After(connectWait):
		}
	}
}

// Open connects and ensures the streams, buckets and consumers exist
// (creating or updating them is idempotent): what the coordinator does,
// which owns their settings. It retries while a cluster elects leaders,
// until ctx is done.
func Open(ctx context.Context, e Endpoint, cfg Config) (*Broker, error) {
	b, err := newBroker(ctx, e, cfg)
	if err != nil {
		return nil, err
	}
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
	b, err := newBroker(ctx, e, cfg)
	if err != nil {
		return nil, err
	}
	if err := b.attach(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func newBroker(ctx context.Context, e Endpoint, cfg Config) (*Broker, error) {
	nc, fail, err := connect(ctx, e)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	log := e.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Broker{nc: nc, js: js, cfg: cfg, log: log, fail: fail}, nil
}

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

// Config returns the settings the Broker was opened with.
func (b *Broker) Config() Config { return b.cfg }

// Reconnects counts the times the connection came back after a loss.
func (b *Broker) Reconnects() uint64 { return b.nc.Stats().Reconnects }

// Connected tells whether the connection to NATS is up now: not while it
// reconnects, nor once closed (for a readiness probe).
func (b *Broker) Connected() bool { return b.nc.IsConnected() }

func (b *Broker) storage() jetstream.StorageType {
	if b.cfg.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

func (b *Broker) replicas() int { return max(b.cfg.Replicas, 1) }

func (b *Broker) create(ctx context.Context) error {
	js, storage, replicas := b.js, b.storage(), b.replicas()
	return b.retry(ctx, func(ctx context.Context) error {
		var err error
		b.tasks, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
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
		b.results, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
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
		b.dead, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
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
		b.jobs, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      jobsBucket,
			Description: "wopr jobs: spec, state, progress, report",
			History:     1,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", jobsBucket, err)
		}
		b.objects, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket:      objectsBucket,
			Description: "wopr job inputs and outputs",
			TTL:         objectTTL,
			Storage:     storage,
			Replicas:    replicas,
		})
		if err != nil {
			return fmt.Errorf("create object store %s: %w", objectsBucket, err)
		}
		b.pieces, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
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
		return nil
	})
}

func (b *Broker) attach(ctx context.Context) error {
	js := b.js
	return b.retry(ctx, b.tellOnce("waiting for wopr's streams", func(ctx context.Context) error {
		var err error
		if b.tasks, err = js.Stream(ctx, tasksStream); errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("stream %s: %w (has a wopr coordinator ever run on this NATS server?)", tasksStream, err)
		} else if err != nil {
			return fmt.Errorf("stream %s: %w", tasksStream, err)
		}
		if b.results, err = js.Stream(ctx, resultsStream); err != nil {
			return fmt.Errorf("stream %s: %w", resultsStream, err)
		}
		if b.dead, err = js.Stream(ctx, deadStream); err != nil {
			return fmt.Errorf("stream %s: %w", deadStream, err)
		}
		if b.jobs, err = js.KeyValue(ctx, jobsBucket); err != nil {
			return fmt.Errorf("bucket %s: %w", jobsBucket, err)
		}
		if b.objects, err = js.ObjectStore(ctx, objectsBucket); err != nil {
			return fmt.Errorf("object store %s: %w", objectsBucket, err)
		}
		if b.pieces, err = js.KeyValue(ctx, piecesBucket); err != nil {
			return fmt.Errorf("bucket %s: %w", piecesBucket, err)
		}
		return nil
	}))
}

// tellOnce logs f's first failure, with what the caller is waiting for:
// a worker started before any coordinator should not wait in silence.
func (b *Broker) tellOnce(what string, f func(ctx context.Context) error) func(ctx context.Context) error {
	told := false
	return func(ctx context.Context) error {
		err := f(ctx)
		if err != nil && !told {
			told = true
			b.log.Info(what+" (retrying until they are there)", "err", err)
		}
		return err
	}
}

// EnsureConsumers creates the durable consumers (the coordinator's job).
func (b *Broker) EnsureConsumers(ctx context.Context) error {
	return b.retry(ctx, func(ctx context.Context) error {
		_, err := b.tasks.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       workersConsumer,
			Description:   "shared by every wopr worker",
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       b.cfg.AckWait,
			MaxDeliver:    b.cfg.MaxDeliver,
			MaxAckPending: b.cfg.MaxAckPending,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", workersConsumer, err)
		}
		_, err = b.results.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       coordConsumer,
			Description:   "the wopr coordinator's inbox",
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       30 * time.Second,
			MaxAckPending: 1024,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", coordConsumer, err)
		}
		_, err = b.dead.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:     deadConsumer,
			Description: "the wopr coordinator's dead-letter inbox",
			AckPolicy:   jetstream.AckExplicitPolicy,
			AckWait:     30 * time.Second,
		})
		if err != nil {
			return fmt.Errorf("create consumer %s: %w", deadConsumer, err)
		}
		return nil
	})
}

// retry calls f until it succeeds, ctx is done or the connection fails
// for good (then it returns Err), backing off up to 2 s. JetStream API
// calls fail for a while when a cluster elects leaders or a server is
// starting. A request sent to a stream leader that has just died is never
// answered, and the leader of a 3-node cluster that lost a node is elected
// again 4 to 9 s later: an attempt is given 2 s at first, a second more
// each time up to 10 s (f may make several requests), so that a request
// lost costs 2 s rather than the caller's whole deadline, and an attempt
// starts soon after the new leader is there.
func (b *Broker) retry(ctx context.Context, f func(ctx context.Context) error) error {
	delay, attempt := 50*time.Millisecond, retryFirstAttempt
	denials := b.fail.denialCount()
	for {
		cctx, cancel := context.WithTimeout(ctx, attempt)
		err := f(cctx)
		cancel()
		if err == nil {
			return nil
		}
		if denied := b.fail.deniedSince(denials); denied != nil {
			return denied
		}
		select {
		case <-ctx.Done():
			return err
		case <-b.fail.done:
			return b.fail.err
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
		attempt = min(attempt+time.Second, 10*time.Second)
	}
}

// retryFirstAttempt is how long retry's first attempt may take.
const retryFirstAttempt = 2 * time.Second

// requestAttempt is how long one attempt of a request waits for
// JetStream's answer before it sends the request again.
const requestAttempt = 2 * time.Second

// request makes attempts of send, one publish or JetStream API request,
// until one is answered or ctx ends. An answer lost with a server that went
// down, or a request sent to a stream leader that has just died, never
// comes: waiting for it with the whole of ctx would hold up the caller (the
// coordinator, and every job) for that long; a coordinator purging a
// finished job's tasks so waited five minutes. Other errors (a message too
// big, a stream gone, a key not found) end it at once. send must be safe to
// repeat: tasks carry a message id, results are merged once, a job record
// is updated with compare-and-set, and the other requests read or purge.
// A permission violation the server reports meanwhile ends it with that
// error: a denied request is never answered either.
func (b *Broker) request(ctx context.Context, send func(ctx context.Context) error) error {
	delay := 50 * time.Millisecond
	denials := b.fail.denialCount()
	for {
		actx, cancel := context.WithTimeout(ctx, requestAttempt)
		err := send(actx)
		timedOut := actx.Err() != nil
		cancel()
		denied := b.fail.deniedSince(denials)
		switch {
		case err == nil:
			return nil
		case denied != nil:
			return denied
		case ctx.Err() != nil:
			return err
		case !timedOut && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, nats.ErrNoResponders) &&
			!errors.Is(err, jetstream.ErrNoStreamResponse) && !errors.Is(err, nats.ErrConnectionReconnecting):
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

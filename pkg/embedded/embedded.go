// Package embedded runs the whole of wopr inside one process: a NATS server
// with JetStream (nats-server as a library), a coordinator and a worker with
// one slot per CPU. It is the same runtime as on a cluster, wired in-process:
// what runs on a laptop is what runs on many machines, but for two
// shortcuts that only one process allows, which it plugs into the same
// runtime: the coordinator writes the outputs that the client has files
// for straight to them (handoff), and the workers read the pieces of the
// client's input files where they are instead of from the store
// (lender, a broker.Lender).
//
// Everything it stores lives under one directory:
//
//	DIR/nats         JetStream: task and result streams, the jobs bucket
//	DIR/coordinator  the coordinator's Badger store (task results, job records)
//	DIR/worker       the worker's Badger store (per-item results: positions, puzzles)
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/coordinator"
	"github.com/woprlabs/wopr/pkg/worker"
)

// Options configure an embedded cluster.
type Options struct {
	// Dir holds all state; it is created if needed.
	Dir string
	// Workers is the number of worker slots; 0 means one per CPU.
	Workers int
	// Listen, if set (host:port, port 0 for any), lets other processes
	// connect to the embedded NATS server; by default it accepts only
	// in-process connections.
	Listen string
	// Accept limits the coordinator to some jobs (nil: all).
	Accept func(jobID string) bool
	// Joinable lets other commands on the same directory run their jobs
	// on this cluster (analyze serve): its server also listens on a
	// random port of 127.0.0.1, with a random password, both in the
	// directory's JOIN file that only its owner can read (see Join).
	// Every worker stays in this process. Not with Listen or Accept.
	Joinable bool
	// Queue overrides the JetStream settings (zero value: defaults).
	Queue *broker.Config
	// MaxPayload, if set, is the largest message the NATS server takes, in
	// bytes (0: its default, 1 MB); tests make it small, so that task
	// results travel in parts.
	MaxPayload int32
	Log        *slog.Logger
	// Metrics, if set, counts what the coordinator and the worker do, and
	// samples the work queue (see Cluster.Ready for /readyz).
	Metrics *metrics.Registry
}

// Cluster is a running embedded cluster.
type Cluster struct {
	Server      *server.Server
	Broker      *broker.Broker
	Coordinator *coordinator.Coordinator
	Worker      *worker.Worker

	brokers []*broker.Broker
	lender  *lender  // nil unless every reader is in this process
	handoff *handoff // nil on a cluster started bare
	dbs     []*store.DB
	log     *slog.Logger
	lock    *os.File
	join    string // the JOIN file to remove, or ""
	auth    broker.Auth
	closed  bool

	stopSampling func() // nil unless Options.Metrics
}

// lockDir takes an exclusive lock on dir, so that two processes never run
// the same store, and writes who holds it (Holder) into the lock file. A
// dir that another process holds is an *InUseError naming it.
func (c *Cluster) lockDir(dir string, joinable bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return &InUseError{Dir: dir, Holder: readHolder(filepath.Join(dir, "LOCK"))}
	}
	c.lock = f
	return writeHolder(f, me(joinable))
}

// StartBare starts only the server, to read and change job records.
func StartBare(ctx context.Context, dir string) (_ *Cluster, err error) {
	c := &Cluster{} // closed if starting fails (the result is then nil)
	defer func() {
		if err != nil {
			_ = c.Close(context.Background())
		}
	}()
	if err := c.lockDir(dir, false); err != nil {
		return nil, err
	}
	c.Server, err = NewServer(filepath.Join(dir, "nats"), "")
	if err != nil {
		return nil, err
	}
	c.lender = newLender() // to read the pieces that a client left in their files
	c.Broker, err = c.broker(ctx, "wopr-analyze", broker.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Resume makes the coordinator take up an unfinished job now.
func (c *Cluster) Resume(ctx context.Context, id string) error {
	return c.Coordinator.Resume(ctx, id)
}

// NewServer starts a NATS server with JetStream storing under dir. With an
// empty listen address it accepts in-process connections only.
func NewServer(dir, listen string) (*server.Server, error) {
	return newServer(dir, listen, 0, broker.Auth{})
}

// newServer starts a NATS server as NewServer does, taking messages of up
// to maxPayload bytes (0: the server's default).
func newServer(dir, listen string, maxPayload int32, auth broker.Auth) (*server.Server, error) {
	opts := &server.Options{
		ServerName:         "wopr-embedded",
		JetStream:          true,
		StoreDir:           dir,
		NoSigs:             true,
		NoLog:              true,
		JetStreamMaxMemory: 256 << 20,
		JetStreamMaxStore:  64 << 30,
		MaxPayload:         maxPayload,
		Username:           auth.User,
		Password:           auth.Password,
	}
	if listen == "" {
		opts.DontListen = true
	} else {
		host, port, err := splitHostPort(listen)
		if err != nil {
			return nil, err
		}
		opts.Host, opts.Port = host, port
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, errors.New("embedded nats server did not become ready in 30s")
	}
	return s, nil
}

// Start brings up server, coordinator and worker.
func Start(ctx context.Context, o Options) (_ *Cluster, err error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	c := &Cluster{log: o.Log} // closed if starting fails (the result is then nil)
	defer func() {
		if err != nil {
			_ = c.Close(context.Background())
		}
	}()
	if o.Joinable && (o.Listen != "" || o.Accept != nil) {
		return nil, errors.New("embedded: Joinable is not for a cluster with Listen or Accept")
	}
	if err := c.lockDir(o.Dir, o.Joinable); err != nil {
		return nil, err
	}
	listen := o.Listen
	if o.Joinable {
		listen, c.auth = "127.0.0.1:0", broker.Auth{User: "wopr", Password: newPassword()}
	}
	c.Server, err = newServer(filepath.Join(o.Dir, "nats"), listen, o.MaxPayload, c.auth)
	if err != nil {
		return nil, err
	}
	if o.Joinable {
		c.join = filepath.Join(o.Dir, joinFile)
		if err := writeJoin(o.Dir, c.Server.ClientURL(), c.auth); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
	}
	cfg := broker.DefaultConfig()
	if o.Queue != nil {
		cfg = *o.Queue
	}
	cfg.MaxAckPending = max(cfg.MaxAckPending, 2*o.Workers)

	dbs, err := c.openDBs(o.Log, filepath.Join(o.Dir, "coordinator"), filepath.Join(o.Dir, "worker"))
	if err != nil {
		return nil, err
	}
	coordDB, workerDB := dbs[0], dbs[1]
	if o.Listen == "" {
		// Every reader of the cluster is on this machine: the pieces of
		// the client's input files stay in them (see lender).
		c.lender = newLender()
	}
	// The coordinator and the worker each get their own connection, as
	// they would in separate processes; the client shares the
	// coordinator's, and the coordinator writes the outputs that the
	// client has files for straight to them (see handoff).
	coordBroker, err := c.broker(ctx, "wopr-coordinator", cfg)
	if err != nil {
		return nil, err
	}
	c.Broker = coordBroker
	c.handoff = newHandoff(coordBroker.Objects())
	if o.Listen == "" {
		// No other process can reach the server, so no worker runs: a
		// task delivered but not acked was abandoned by an earlier run,
		// and so was every task queued (the coordinator publishes again
		// those of the job it resumes).
		if err := coordBroker.Work().PurgeTasks(ctx); err != nil {
			return nil, err
		}
		if err := coordBroker.Work().ForgetDeliveries(ctx); err != nil {
			return nil, err
		}
	}
	var cm coordinator.Metrics // nil interfaces unless o.Metrics
	var wm worker.Metrics
	if o.Metrics != nil {
		cm, wm = o.Metrics, o.Metrics
		c.stopSampling = o.Metrics.SampleQueue(coordBroker.Work(), queueSampling, o.Log)
	}
	c.Coordinator, err = coordinator.Start(ctx, coordinator.Config{
		Jobs: coordBroker.Jobs(), Work: coordBroker.Work(), Objects: c.handoff, Conn: coordBroker,
		DB: coordDB, Log: o.Log, Accept: o.Accept, Metrics: cm,
		// Its only worker is this process's.
		TrustWorkers: true,
	})
	if err != nil {
		return nil, err
	}
	workerBroker, err := c.broker(ctx, "wopr-worker", cfg)
	if err != nil {
		return nil, err
	}
	source, err := workerBroker.Work().Tasks(ctx)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	c.Worker, err = worker.Start(worker.Config{
		Name: worker.TokenName(fmt.Sprintf("%s-embedded-%d", host, os.Getpid())), Concurrency: o.Workers,
		Source: source, Results: workerBroker.Work(), Jobs: workerBroker.Jobs(), Objects: workerBroker.Objects(), Conn: workerBroker,
		Cache: workerDB, Dir: filepath.Join(o.Dir, "worker-tables"), Log: o.Log, Metrics: wm, Alone: true, Presence: workerBroker.Workers(),
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// queueSampling is how often the work queue's gauges are sampled.
const queueSampling = 5 * time.Second

// Ready tells why the cluster does not take jobs yet or any more (for
// /readyz): nil while every connection to its server is up.
func (c *Cluster) Ready() error {
	if c.Coordinator == nil || c.Worker == nil {
		return errors.New("the coordinator and the worker are not running")
	}
	for _, b := range c.brokers {
		if !b.Connected() {
			return errors.New("not connected to the embedded nats server")
		}
	}
	return nil
}

// openDBs opens the Badger stores in dirs at the same time: opening them
// is most of an embedded cluster's start.
func (c *Cluster) openDBs(log *slog.Logger, dirs ...string) ([]*store.DB, error) {
	dbs := make([]*store.DB, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		wg.Go(func() { dbs[i], errs[i] = store.Open(dir, store.Options{Log: log}) })
	}
	wg.Wait()
	for _, db := range dbs {
		if db != nil {
			c.dbs = append(c.dbs, db)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return dbs, nil
}

// broker opens a connection of its own to the server, as a process of a
// cluster would have, named name, which reads pieces through the
// cluster's lender, if it has one.
func (c *Cluster) broker(ctx context.Context, name string, cfg broker.Config) (*broker.Broker, error) {
	b, err := broker.Open(ctx, broker.Endpoint{InProcess: c.Server, Auth: c.auth, Name: name, Log: c.log}, cfg)
	if err != nil {
		return nil, err
	}
	if c.lender != nil {
		b.Objects().SetLender(c.lender)
	}
	c.brokers = append(c.brokers, b)
	return b, nil
}

// Close stops the worker (handing back unfinished tasks once ctx ends), the
// coordinator and the server, and closes the stores.
func (c *Cluster) Close(ctx context.Context) error {
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	if c.Worker != nil {
		errs = append(errs, c.Worker.Close(ctx))
	}
	if c.Coordinator != nil {
		errs = append(errs, c.Coordinator.Close(ctx))
	}
	if c.stopSampling != nil {
		c.stopSampling()
	}
	for _, b := range c.brokers {
		b.Close()
	}
	// The server and the stores no longer depend on each other: each
	// flushes its files at the same time as the others.
	var wg sync.WaitGroup
	if c.Server != nil {
		wg.Go(func() {
			// JetStream first: Server.Shutdown would otherwise tell every
			// pull request still pending (those of the clients closed
			// above) that the server is going, and sleep 50 ms for the
			// news to get out: most of a small command's run.
			_ = c.Server.ShutdownJetStream()
			c.Server.Shutdown()
			c.Server.WaitForShutdown()
		})
	}
	dbErrs := make([]error, len(c.dbs))
	for i, db := range c.dbs {
		wg.Go(func() { dbErrs[i] = db.Close() })
	}
	wg.Wait()
	errs = append(errs, dbErrs...)
	if c.join != "" {
		_ = os.Remove(c.join)
	}
	if c.lock != nil {
		_ = c.lock.Truncate(0) // nobody holds it any more
		errs = append(errs, c.lock.Close())
	}
	return errors.Join(errs...)
}

func splitHostPort(addr string) (string, int, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("listen address %q: want host:port", addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("listen address %q: bad port", addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	return host, port, nil
}

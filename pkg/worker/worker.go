// Package worker runs tasks: it takes them from the work queue, runs them
// with their kind's runner, publishes the results and only then
// acknowledges the tasks.
//
// Delivery is at least once; the coordinator merges each task's result once.
// A worker keeps long tasks alive with InProgress heartbeats, retries
// transient failures with NakWithDelay, terminates tasks that can never
// succeed (after publishing why; a run that panics is one of them). Whole
// task results are cached by the coordinator (a rerun publishes no task);
// the worker's Badger store is the kinds' per-item cache (tasks.Env.Cache).
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Source is the work queue as a worker takes tasks from it
// (broker.TaskSource; a fake in tests).
type Source interface {
	// Next waits for a task until ctx ends or wait has passed; it returns
	// nil if none came.
	Next(ctx context.Context, wait time.Duration) (job.Delivery, error)
	// AckWait is how long a task may go without a heartbeat.
	AckWait() time.Duration
}

// Results is the queue that a worker publishes its results to
// (broker.Work; a fake in tests).
type Results interface {
	PublishResult(ctx context.Context, r job.Result) error
}

// Jobs is the bucket of job records, which a worker reads to drop the
// tasks of a job that is over (broker.Jobs; a fake in tests).
type Jobs interface {
	Get(ctx context.Context, id string) (*job.Record, uint64, error)
}

// Presence is where a worker announces itself every job.HeartbeatEvery,
// so that clients can tell that it is there and what it does
// (broker.Workers; a fake in tests).
type Presence interface {
	Announce(ctx context.Context, w job.Worker) error
}

// Conn is the connection that a worker's duties go through
// (broker.Broker; a fake in tests).
type Conn interface {
	// Flush waits until what was sent has reached the server.
	Flush(timeout time.Duration) error
}

// Config configures a worker.
type Config struct {
	// Name identifies the worker in results and logs.
	Name string
	// Concurrency is the number of task slots (goroutines).
	Concurrency int
	Source      Source
	Results     Results
	Jobs        Jobs
	// Objects is the object store, for the inputs that tasks name
	// (broker.Objects), or nil.
	Objects tasks.Objects
	Conn    Conn
	// Cache is the worker's persistent per-item cache, handed to the
	// kinds' runners; nil disables it.
	Cache tasks.Cache
	Log   *slog.Logger
	// FetchWait, if set, is how long a request for a task waits, and a
	// worker that stops lets its requests run out instead of cutting them
	// short: a request cut short can lose a task the server has just sent,
	// which then waits a whole AckWait for another worker. A task that
	// comes after Close is handed back. Zero: requests wait up to 5 s and
	// stop with the worker, for an embedded cluster, which gives back such
	// tasks as it starts again (broker.Work.ForgetDeliveries) and exits
	// without waiting.
	FetchWait time.Duration
	// Metrics, if set, counts tasks done, failed and redelivered.
	Metrics Metrics
	// Alone tells that the worker is the cluster's only one (tasks.Env).
	Alone bool
	// Dir is the worker's directory for the kinds' large state
	// (tasks.Env.Dir), or "".
	Dir string
	// Presence, if set, is where the worker announces itself.
	Presence Presence
}

// TokenName makes name a valid worker name (tasks.ValidID, as subject
// tokens are): a host name's dots, and anything else a token cannot hold,
// become '-'.
func TokenName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b[:min(len(b), 64)])
}

// Worker is a running worker. Start it with Start and stop it with Close.
type Worker struct {
	cfg Config
	log *slog.Logger
	// ackWait is the work queue's, as the coordinator configured it.
	ackWait time.Duration

	stopCtx context.Context // cancelled by Close: take no new tasks
	stop    context.CancelFunc
	runCtx  context.Context // cancelled when in-flight tasks must be handed back
	abort   context.CancelFunc
	wg      sync.WaitGroup

	jobsMu sync.Mutex
	jobs   map[string]jobState

	process tasks.Process // shared by the runners of every slot

	done, failed atomic.Int64
	busy         atomic.Int32 // slots running a task
	started      time.Time
	announced    chan struct{} // closed when the announcer has exited
}

type jobState struct {
	final   bool
	checked time.Time
}

// Start starts the worker's slots.
func Start(cfg Config) (*Worker, error) {
	if cfg.Source == nil || cfg.Results == nil || cfg.Jobs == nil || cfg.Conn == nil {
		return nil, errors.New("worker: no task source, results queue, job records or connection")
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Name == "" {
		cfg.Name = "worker"
	}
	if !tasks.ValidID(cfg.Name) {
		return nil, fmt.Errorf("worker: name %q: 1 to 64 letters, digits, '-' and '_'", cfg.Name)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	runCtx, abort := context.WithCancel(context.Background())
	stopCtx, stop := context.WithCancel(runCtx)
	w := &Worker{
		cfg:       cfg,
		log:       cfg.Log.With("worker", cfg.Name),
		stopCtx:   stopCtx,
		stop:      stop,
		runCtx:    runCtx,
		abort:     abort,
		jobs:      map[string]jobState{},
		ackWait:   cfg.Source.AckWait(),
		started:   time.Now(),
		announced: make(chan struct{}),
	}
	for i := range cfg.Concurrency {
		w.wg.Add(1)
		go w.slot(i)
	}
	if cfg.Presence != nil {
		go w.announce()
	} else {
		close(w.announced)
	}
	return w, nil
}

// announce announces the worker every job.HeartbeatEvery until it stops,
// then once more, stopped.
func (w *Worker) announce() {
	defer close(w.announced)
	host, _ := os.Hostname()
	me := job.Worker{
		ID: fmt.Sprintf("%s-%d", w.cfg.Name, w.started.UnixNano()), Name: w.cfg.Name, Host: host, PID: os.Getpid(),
		Slots: w.cfg.Concurrency, Kinds: tasks.Names(), Started: w.started,
	}
	failing := false
	t := time.NewTicker(job.HeartbeatEvery)
	defer t.Stop()
	for {
		stopped := w.stopCtx.Err() != nil
		me.Busy, me.Done, me.Failed, me.Stopped = int(w.busy.Load()), w.done.Load(), w.failed.Load(), stopped
		ctx, cancel := context.WithTimeout(context.Background(), job.HeartbeatEvery)
		err := w.cfg.Presence.Announce(ctx, me)
		cancel()
		switch {
		case err != nil && !failing:
			w.log.Warn("announce this worker (analyze workers will not list it)", "err", err)
			failing = true
		case err == nil && failing:
			w.log.Info("announced this worker again")
			failing = false
		}
		if stopped {
			return
		}
		select {
		case <-t.C:
		case <-w.stopCtx.Done():
		}
	}
}

// Close stops taking tasks and waits for the running ones to finish. If ctx
// ends first, running tasks are cancelled and handed back to the queue for
// another worker. It returns once every slot has exited.
func (w *Worker) Close(ctx context.Context) error {
	w.stop()
	finished := make(chan struct{})
	go func() { w.wg.Wait(); close(finished) }()
	var err error
	select {
	case <-finished:
	case <-ctx.Done():
		w.abort()
		<-finished
		err = fmt.Errorf("worker %s: in-flight tasks handed back: %w", w.cfg.Name, ctx.Err())
	}
	w.abort()
	<-w.announced
	// The last acks and naks are sent before the connection may close.
	if ferr := w.cfg.Conn.Flush(5 * time.Second); ferr != nil && err == nil {
		err = fmt.Errorf("worker %s: flush: %w", w.cfg.Name, ferr)
	}
	return err
}

// Counts returns the number of tasks completed and failed permanently so
// far.
func (w *Worker) Counts() (done, failed int64) {
	return w.done.Load(), w.failed.Load()
}

func (w *Worker) slot(i int) {
	defer w.wg.Done()
	// The slot's finisher publishes results and acks their tasks while the
	// slot already fetches and runs the next task: with tasks of a few
	// milliseconds (a chunk of puzzles), waiting for the publish and the
	// ack would leave the core idle meanwhile (BenchmarkTaskThroughput).
	// At most one result waits.
	finish := make(chan finished, 1)
	finisherDone := make(chan struct{})
	go func() {
		defer close(finisherDone)
		for f := range finish {
			w.finish(f)
		}
	}()
	defer func() { close(finish); <-finisherDone }()
	runners := map[string]tasks.Runner{}
	env := tasks.Env{Cache: w.cfg.Cache, Objects: w.cfg.Objects, Process: &w.process, Alone: w.cfg.Alone, Dir: w.cfg.Dir}
	backoff := 100 * time.Millisecond
	for {
		if w.stopCtx.Err() != nil {
			return
		}
		d, err := w.fetch()
		if err != nil {
			if w.stopCtx.Err() != nil {
				return
			}
			w.log.Warn("fetch task", "slot", i, "err", err)
			select {
			case <-time.After(backoff):
			case <-w.stopCtx.Done():
				return
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		if d == nil {
			continue
		}
		if w.stopCtx.Err() != nil {
			_ = d.HandBack() // came after Close: hand it back
			continue
		}
		w.handle(d, runners, env, finish)
	}
}

// fetch asks for one task (see Config.FetchWait).
func (w *Worker) fetch() (job.Delivery, error) {
	if w.cfg.FetchWait > 0 {
		return w.cfg.Source.Next(context.Background(), w.cfg.FetchWait)
	}
	return w.cfg.Source.Next(w.stopCtx, 5*time.Second)
}

// handle runs one delivered task to its end: a published result and an ack,
// a published failure and a term, or a nak.
func (w *Worker) handle(d job.Delivery, runners map[string]tasks.Runner, env tasks.Env, finish chan<- finished) {
	t, err := d.Task()
	if err != nil {
		// No failure can be sent for it (the coordinator accepts one only
		// with the task's token): it is delivered again until it is dead,
		// and the coordinator records that.
		w.log.Warn("undecodable task", "job", t.Job, "task", t.ID, "err", err)
		_ = d.Retry(time.Second)
		return
	}
	if slices.Contains(t.NotBy, w.cfg.Name) {
		// A copy that checks this worker's result: another worker's.
		// Handed back later each time, so that the others, busy, get
		// it before its deliveries run out (the coordinator publishes
		// a copy that died again).
		_ = d.Retry(min(time.Duration(d.Delivered())*250*time.Millisecond, 2*time.Second))
		return
	}
	if d.Delivered() > 1 {
		label := t.Kind
		if _, ok := tasks.Lookup(t.Kind); !ok {
			label = unknownKind
		}
		w.cfg.Metrics.TaskRedelivered(label)
	}
	if w.jobFinal(t.Job) {
		// The job was cancelled or has finished: this is a leftover copy.
		_ = d.Ack(context.Background())
		return
	}
	kind, ok := tasks.Lookup(t.Kind)
	if !ok {
		w.fail(d, t, unknownKind, fmt.Sprintf("unknown job kind %q", t.Kind))
		return
	}
	start := time.Now()
	res := job.Result{Job: t.Job, Task: t.ID, Check: t.Check, Worker: w.cfg.Name, Epoch: t.Epoch, Try: t.Try, Token: t.Token}

	runner := runners[t.Kind]
	if runner == nil {
		runner = kind.NewRunner(env)
		runners[t.Kind] = runner
	}
	w.busy.Add(1)
	out, err := w.run(d, t, runner)
	w.busy.Add(-1)
	if errors.Is(err, errPanic) {
		delete(runners, t.Kind) // its tables may be half updated
	}
	switch {
	case err == nil:
		res.Data, res.CacheHits = out.Data, out.CacheHits
	case errors.Is(err, tasks.ErrPermanent):
		w.fail(d, t, t.Kind, err.Error())
		return
	case w.runCtx.Err() != nil || errors.Is(err, errJobFinal):
		// Shutting down, or the job went away: hand the task back.
		_ = d.HandBack()
		return
	default:
		delivered := max(d.Delivered(), 1)
		delay := min(time.Duration(1<<min(delivered-1, 10))*500*time.Millisecond, 30*time.Second)
		w.log.Warn("task failed, will retry", "job", t.Job, "task", t.ID, "delivery", delivered, "retry_in", delay, "err", err)
		w.cfg.Metrics.TaskRetried(t.Kind)
		_ = d.Retry(delay)
		return
	}
	res.Seconds = time.Since(start).Seconds()
	finish <- finished{d: d, res: res, kind: t.Kind}
}

// finished is a task whose result is ready to be published.
type finished struct {
	d    job.Delivery
	res  job.Result
	kind string
}

// finish publishes a result and only then acknowledges its task.
func (w *Worker) finish(f finished) {
	if err := w.publish(f.res); err != nil {
		w.log.Warn("publish result", "job", f.res.Job, "task", f.res.Task, "err", err)
		_ = f.d.HandBack()
		return
	}
	actx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.d.Ack(actx); err != nil {
		// The result is published; a redelivery is merged once.
		w.log.Debug("ack task", "job", f.res.Job, "task", f.res.Task, "err", err)
	}
	w.done.Add(1)
	w.cfg.Metrics.TaskDone(f.kind, f.res.Seconds)
	if f.res.CacheHits > 0 {
		w.cfg.Metrics.CacheHits(f.kind, f.res.CacheHits)
	}
}

var errJobFinal = errors.New("job is no longer running")

// run runs a task with InProgress heartbeats every AckWait/4, cancelling it
// if the worker aborts or the job is cancelled.
func (w *Worker) run(d job.Delivery, t job.Task, r tasks.Runner) (tasks.Output, error) {
	ctx, cancel := context.WithCancelCause(w.runCtx)
	defer cancel(nil)
	beat := max(w.ackWait/4, 50*time.Millisecond)
	var hb sync.WaitGroup
	hb.Add(1)
	go func() {
		defer hb.Done()
		tick := time.NewTicker(beat)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = d.Heartbeat()
				if w.jobFinal(t.Job) {
					cancel(errJobFinal)
					return
				}
			}
		}
	}()
	out, err := w.runSafely(ctx, t, r)
	cancel(nil)
	hb.Wait()
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errJobFinal) {
		return out, errJobFinal
	}
	return out, err
}

// errPanic marks a run that panicked.
var errPanic = errors.New("panic")

// runSafely runs a task, turning a panic (a bug in its kind) into a
// permanent failure with the panic's message: otherwise one task takes the
// worker process down with it, and, delivered again, every worker in turn.
func (w *Worker) runSafely(ctx context.Context, t job.Task, r tasks.Runner) (out tasks.Output, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.log.Error("task panicked", "job", t.Job, "task", t.ID, "kind", t.Kind, "panic", p, "stack", string(debug.Stack()))
			out, err = tasks.Output{}, tasks.Permanent(fmt.Errorf("%w: %v", errPanic, p))
		}
	}()
	return r.Run(ctx, t.Payload)
}

// fail records a task of kind that can never succeed: the failure goes to
// the coordinator first, then the task is terminated with the same reason.
func (w *Worker) fail(d job.Delivery, t job.Task, kind, reason string) {
	w.log.Warn("task can never succeed", "job", t.Job, "task", t.ID, "reason", reason)
	res := job.Result{Job: t.Job, Task: t.ID, Check: t.Check, Worker: w.cfg.Name, Epoch: t.Epoch, Try: t.Try, Token: t.Token, Failed: reason}
	if err := w.publish(res); err != nil {
		_ = d.HandBack()
		return
	}
	_ = d.Terminate(reason)
	w.failed.Add(1)
	w.cfg.Metrics.TaskFailed(kind)
}

// publish sends a task's result (or its failure) to the coordinator.
func (w *Worker) publish(res job.Result) error {
	// PublishResult sends it again while the server does not acknowledge
	// it (restarting, say); a result computed is worth a minute's wait,
	// unless the worker is told to stop at once (runCtx: Close's context
	// ended, a second signal).
	ctx, cancel := context.WithTimeout(w.runCtx, time.Minute)
	defer cancel()
	return w.cfg.Results.PublishResult(ctx, res)
}

// jobFinal reports whether a job is finished, cancelled or unknown, checking
// the jobs bucket at most once a second per job.
func (w *Worker) jobFinal(id string) bool {
	w.jobsMu.Lock()
	st, ok := w.jobs[id]
	w.jobsMu.Unlock()
	if ok && (st.final || time.Since(st.checked) < time.Second) {
		return st.final
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	j, _, err := w.cfg.Jobs.Get(ctx, id)
	final := false
	switch {
	case errors.Is(err, job.ErrNotFound):
		final = true
	case err != nil:
		final = false // unknown: keep working, the coordinator decides
	default:
		final = j.State.Final() || j.CancelRequested
	}
	w.jobsMu.Lock()
	w.jobs[id] = jobState{final: final, checked: time.Now()}
	w.jobsMu.Unlock()
	return final
}

// Package coordinator runs jobs: it picks up submitted jobs from the job
// records, splits them into tasks with their kind, publishes the tasks,
// merges each task's result exactly once, and writes progress and the final
// report back to the job's record.
//
// Task results are kept in the coordinator's Badger store by what computed
// them (kind, kind version and payload): a task whose result is there, from
// a rerun or another job with the same task, is not published at all. Each
// job also keeps a small record per merged task, keyed by job and task and
// pointing at its result, until the job's report is written. A done flag
// per task makes merging idempotent whatever JetStream redelivers; it is
// rebuilt from those records when a coordinator restarted with the same
// store resumes a running job: it recomputes the (deterministic) plan,
// merges what is stored, and republishes, under a new epoch, each
// unfinished task that is no longer in the work queue (including any whose
// result was acknowledged but not yet written when the previous
// coordinator died). Each task carries a checksum of its payload, which the
// worker echoes in the result and the store keeps beside it: a result is
// merged only into the task it was computed for, so a coordinator whose
// plan differs for the same job drops the old tasks' results, stored or
// arriving, and runs the new tasks instead.
//
// Jobs do not wait for each other: a job is planned, published and
// reported on goroutines of its own, and the coordinator's lock is never
// held across I/O or planning. Results of a job still being planned wait
// for its plan; results of every other job are merged meanwhile.
package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Jobs is the bucket of job records as the coordinator follows and writes
// them (broker.Jobs; a fake in tests).
type Jobs interface {
	// WatchAll sends every record as it is written, the existing ones
	// first, until ctx is done.
	WatchAll(ctx context.Context) (<-chan *job.Record, error)
	List(ctx context.Context) ([]*job.Record, error)
	Get(ctx context.Context, id string) (*job.Record, uint64, error)
	// Update changes a record with compare-and-set (see job.ErrNoChange).
	Update(ctx context.Context, id string, change func(*job.Record) error) (*job.Record, error)
}

// Work is the work queue that the coordinator publishes tasks to, and its
// queues of results and dead letters (broker.Work; a fake in tests).
type Work interface {
	// EnsureConsumers creates the durable consumers of the queues.
	EnsureConsumers(ctx context.Context) error
	ConsumeResults(ctx context.Context, handle func(job.Result)) error
	ConsumeDead(ctx context.Context, handle func(t job.Task, deliveries uint64)) error
	PublishTask(ctx context.Context, t job.Task) error
	HasTask(ctx context.Context, jobID, task string) (bool, error)
	// PurgeJob removes every queued or in-flight task of a job.
	PurgeJob(ctx context.Context, jobID string) error
}

// Objects is the object store as the coordinator uses it: the inputs of
// jobs, which plans read, and their outputs and the reports too big for a
// record, which it writes (broker.Objects, or pkg/embedded's hand-over of
// outputs to a client's files; a fake in tests).
type Objects interface {
	tasks.Objects
	// Create starts the object name, written in order as it is made (see
	// tasks.Outputs). A writer that puts the object in parts tells how
	// many once it is closed, with a method Parts() int.
	Create(ctx context.Context, name string) (io.WriteCloser, error)
}

// Conn is the connection that the coordinator's duties go through
// (broker.Broker; a fake in tests).
type Conn interface {
	// Reconnects counts the times the connection came back after a loss.
	Reconnects() uint64
}

// Config configures a coordinator.
type Config struct {
	Jobs    Jobs
	Work    Work
	Objects Objects
	Conn    Conn
	// DB holds task results (the cache) and, per job, which tasks are
	// merged, until the job's report is written.
	DB  *store.DB
	Log *slog.Logger
	// Accept, if set, limits the coordinator to the jobs it returns true for
	// (embedded mode runs only the jobs its own command submitted).
	Accept func(jobID string) bool
	// ProgressEvery is how often progress is written to job records.
	ProgressEvery time.Duration
	// Metrics, if set, counts results merged and job records by state.
	Metrics Metrics
	// TrustWorkers believes its workers: a failure on one worker's word,
	// results without their kind's check (tasks.Checks), and no share of
	// tasks verified (tasks.Spec.Verify): the embedded default, whose only
	// worker is its own process's. Tokens apply regardless.
	TrustWorkers bool
	// MaxTasks is the most tasks a job may have (0: tasks.MaxTasks). A job
	// whose parameters give more (tasks.CheckSize) fails before it is
	// planned, and a plan that makes more fails its job.
	MaxTasks int
}

// Coordinator is a running coordinator.
type Coordinator struct {
	cfg     Config
	jobs    Jobs
	work    Work
	objects Objects
	log     *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	runs map[string]*run // jobs taken up: being planned, running or finishing
	over map[string]bool // jobs this coordinator found final or ended

	metrics Metrics
	states  *jobStates

	key         []byte // of the tasks' tokens (trust.go)
	qmu         sync.Mutex
	quarantined map[string]string // worker -> why
}

// run is a job this coordinator has taken up.
type run struct {
	id string
	// ready is closed once the job is planned and merges results, or its
	// planning failed (err).
	ready chan struct{}
	err   error
	// stop cancels the job's planning: the job is cancelled, or over.
	planCtx context.Context
	stop    context.CancelFunc

	mu      sync.Mutex
	planned bool
	pending []arrival // arrived while the job was being planned
	plan    tasks.Plan
	out     *outputs // the job's outputs, lent to the plan
	kind    string
	version int
	tasks   taskList
	// checks and keys are the job.PayloadCheck and cache key of each
	// task, made when first needed and kept where tasks keeps the tasks
	// (nil: made again each time, from the task made again).
	checks   []string
	keys     [][]byte
	epoch    int  // of this coordinator's life of the job
	resumed  bool // a life before this one ran the job
	done     []bool
	nDone    int
	failures []tasks.Failure
	cached   []bool // answered from the result cache (a subset of done)
	nCached  int
	hits     int64 // of workers' caches
	dirty    bool

	// The tasks below openEnd are of the open stage or of those before it
	// (all of a plan that is not tasks.Staged, whose stages is nil), and
	// may be published; those below pubNext were published, or found
	// merged or queued, by this life, which one goroutine at a time
	// publishes (publishing). mark is how far an earlier life published
	// (publishedMark).
	stages     *stages
	openEnd    int
	pubNext    int
	publishing bool
	mark       int
	// ranBefore is the job's run time in earlier lives (job.Record.RunSeconds).
	ranBefore  time.Duration
	pickedUp   time.Time // by this life
	ranWritten time.Time // when RunSeconds was last written
	finished   bool      // reported, failed or cancelled: nothing more merges

	// Trust (trust.go): the job's share of tasks to verify, the tries and
	// exclusions of the tasks published again, the answers held for a
	// second opinion, and what was refused, verified and quarantined.
	verify      float64
	tokenKey    []byte
	tries       map[int]int
	notBy       map[int][]string
	answers     map[int]*answers
	watched     map[int]bool // tasks watched by reissueIfLost
	lastMerge   time.Time    // when a result was last merged (findLost)
	refused     int
	verified    int
	quarantined []string
}

// elapsed is the time the job has run: in earlier lives of a coordinator,
// as they last recorded it, and in this one (r.mu held, or r not yet
// shared). A job resumed after a night's pause is not a night slower.
func (r *run) elapsed() time.Duration { return r.ranBefore + time.Since(r.pickedUp) }

// Start sets up the consumers and starts the coordinator's loops.
func Start(ctx context.Context, cfg Config) (*Coordinator, error) {
	if cfg.Jobs == nil || cfg.Work == nil || cfg.Objects == nil || cfg.Conn == nil || cfg.DB == nil {
		return nil, errors.New("coordinator: job records, work queue, objects, connection and store are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 200 * time.Millisecond
	}
	if cfg.Metrics == nil {
		cfg.Metrics = noMetrics{}
	}
	if cfg.MaxTasks <= 0 {
		cfg.MaxTasks = tasks.MaxTasks
	}
	if err := cfg.Work.EnsureConsumers(ctx); err != nil {
		return nil, err
	}
	key, err := loadTaskKey(cfg.DB)
	if err != nil {
		return nil, err
	}
	quarantined, err := loadQuarantine(cfg.DB)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	records, err := cfg.Jobs.WatchAll(cctx)
	if err != nil {
		cancel()
		return nil, err
	}
	c := &Coordinator{cfg: cfg, jobs: cfg.Jobs, work: cfg.Work, objects: cfg.Objects, log: cfg.Log, ctx: cctx, cancel: cancel,
		runs: map[string]*run{}, over: map[string]bool{},
		metrics: cfg.Metrics, states: newJobStates(cfg.Metrics), key: key, quarantined: quarantined}
	c.goFunc(func() {
		for rec := range records {
			c.states.see(rec)
			c.takeUp(rec)
		}
	})
	c.goFunc(func() {
		if err := c.work.ConsumeResults(cctx, c.handleResult); err != nil {
			c.log.Error("consume results", "err", err)
		}
	})
	c.goFunc(func() {
		if err := c.work.ConsumeDead(cctx, c.handleDead); err != nil {
			c.log.Error("consume dead letters", "err", err)
		}
	})
	c.goFunc(c.writeProgress)
	return c, nil
}

// goFunc runs f on a goroutine that Close waits for.
func (c *Coordinator) goFunc(f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
}

// Close stops the coordinator. Jobs stay in their state and resume when a
// coordinator starts again.
func (c *Coordinator) Close(ctx context.Context) error {
	c.cancel()
	finished := make(chan struct{})
	go func() { c.wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		return fmt.Errorf("coordinator: close: %w", ctx.Err())
	}
	c.flushProgress(true)
	return nil
}

func (c *Coordinator) accepts(id string) bool {
	return c.cfg.Accept == nil || c.cfg.Accept(id)
}

// Resume takes up an unfinished job now and returns once it is planned
// (embedded mode accepts a job after the coordinator has seen its record).
func (c *Coordinator) Resume(ctx context.Context, id string) error {
	r := c.start(id)
	if r == nil {
		return nil
	}
	select {
	case <-r.ready:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// takeUp acts on a job record: an unfinished job of ours is started (or
// resumed), or cancelled if asked.
func (c *Coordinator) takeUp(rec *job.Record) {
	if rec.State.Final() || !c.accepts(rec.ID) {
		return
	}
	if rec.CancelRequested {
		c.goFunc(func() { c.cancelJob(rec.ID) })
		return
	}
	c.start(rec.ID)
}

// start returns the run of job id, taking the job up on a goroutine of its
// own if it is not yet. It returns nil for a job that is not ours or that
// this coordinator knows to be over.
func (c *Coordinator) start(id string) *run {
	if !c.accepts(id) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.runs[id]; r != nil {
		return r
	}
	if c.over[id] || c.ctx.Err() != nil {
		return nil
	}
	r := &run{id: id, ready: make(chan struct{})}
	r.planCtx, r.stop = context.WithCancel(c.ctx)
	c.runs[id] = r
	c.goFunc(func() { c.activate(r) })
	return r
}

// drop forgets run r, so that the job can be taken up again (its planning
// failed), or, with over, not again (it is final).
func (c *Coordinator) drop(r *run, over bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs[r.id] == r {
		delete(c.runs, r.id)
	}
	if r.stop != nil {
		r.stop()
	}
	if over {
		c.over[r.id] = true
	}
}

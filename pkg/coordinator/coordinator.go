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
	"crypto/sha256"
	"encoding/json"
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

// Broker is what the coordinator needs of the cluster: job records, the
// work queue, the queues of results and dead letters, and the object store
// (broker.Broker; a fake in tests).
type Broker interface {
	EnsureConsumers(ctx context.Context) error
	ConsumeResults(ctx context.Context, handle func(job.Result)) error
	ConsumeDead(ctx context.Context, handle func(t job.Task, deliveries uint64)) error
	WatchJobs(ctx context.Context) (<-chan *job.Record, error)
	ListJobs(ctx context.Context) ([]*job.Record, error)
	GetJob(ctx context.Context, id string) (*job.Record, uint64, error)
	UpdateJob(ctx context.Context, id string, change func(*job.Record) error) (*job.Record, error)
	PublishTask(ctx context.Context, t job.Task) error
	HasTask(ctx context.Context, jobID, task string) (bool, error)
	PurgeJob(ctx context.Context, jobID string) error
	Objects() tasks.Objects
	// Reconnects counts the times the connection came back after a loss.
	Reconnects() uint64
}

// Config configures a coordinator.
type Config struct {
	Broker Broker
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
}

// Coordinator is a running coordinator.
type Coordinator struct {
	cfg Config
	b   Broker
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	runs map[string]*run // jobs taken up: being planned, running or finishing
	over map[string]bool // jobs this coordinator found final or ended

	metrics Metrics
	states  *jobStates
}

// run is a job this coordinator has taken up.
type run struct {
	id string
	// ready is closed once the job is planned and merges results, or its
	// planning failed (err).
	ready chan struct{}
	err   error

	mu       sync.Mutex
	planned  bool
	pending  []job.Result // arrived while the job was being planned
	plan     tasks.Plan
	out      *outputs       // the job's outputs, lent to the plan
	index    map[string]int // task id -> position in tasks
	kind     string
	version  int
	tasks    []tasks.Task // plan.Tasks()
	checks   []string     // job.PayloadCheck of each task, made when first needed
	keys     [][]byte     // cacheKey of each task, made when first needed
	epoch    int          // of this coordinator's life of the job
	resumed  bool         // a life before this one ran the job
	done     []bool
	nDone    int
	failures []job.Failure
	hits     int64
	dirty    bool
	// ranBefore is the job's run time in earlier lives (job.Record.RunSeconds).
	ranBefore  time.Duration
	pickedUp   time.Time // by this life
	ranWritten time.Time // when RunSeconds was last written
	finished   bool      // reported, failed or cancelled: nothing more merges
}

// elapsed is the time the job has run: in earlier lives of a coordinator,
// as they last recorded it, and in this one (r.mu held, or r not yet
// shared). A job resumed after a night's pause is not a night slower.
func (r *run) elapsed() time.Duration { return r.ranBefore + time.Since(r.pickedUp) }

// Start sets up the consumers and starts the coordinator's loops.
func Start(ctx context.Context, cfg Config) (*Coordinator, error) {
	if cfg.Broker == nil || cfg.DB == nil {
		return nil, errors.New("coordinator: broker and store are required")
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
	if err := cfg.Broker.EnsureConsumers(ctx); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	records, err := cfg.Broker.WatchJobs(cctx)
	if err != nil {
		cancel()
		return nil, err
	}
	c := &Coordinator{cfg: cfg, b: cfg.Broker, log: cfg.Log, ctx: cctx, cancel: cancel,
		runs: map[string]*run{}, over: map[string]bool{},
		metrics: cfg.Metrics, states: newJobStates(cfg.Metrics)}
	c.goFunc(func() {
		for rec := range records {
			c.states.see(rec)
			c.takeUp(rec)
		}
	})
	c.goFunc(func() {
		if err := c.b.ConsumeResults(cctx, c.handleResult); err != nil {
			c.log.Error("consume results", "err", err)
		}
	})
	c.goFunc(func() {
		if err := c.b.ConsumeDead(cctx, c.handleDead); err != nil {
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
	if over {
		c.over[r.id] = true
	}
}

// activate plans job r (or finds it final, unknown or failing), merges the
// results stored by an earlier life and those that came meanwhile, and
// publishes the tasks that are neither merged nor still queued.
func (c *Coordinator) activate(r *run) {
	err := c.plan(r)
	r.err = err
	close(r.ready)
	if err != nil {
		c.log.Error("start job", "job", r.id, "err", err)
		return
	}
	if r.plan == nil {
		return // final, unknown or failed: dropped
	}
	if err := c.publishUnfinished(r); err != nil {
		// Stored results stay; the next reconciliation takes the job up
		// again and publishes what is missing.
		c.log.Error("publish tasks", "job", r.id, "err", err)
		r.mu.Lock()
		r.finished = true
		r.mu.Unlock()
		c.drop(r, false)
		return
	}
	c.maybeFinish(r)
}

// plan reads job r's record, plans it, merges what an earlier life of this
// coordinator stored, marks it running and makes it merge results. It
// leaves r.plan nil for a job that is final, unknown or whose plan failed
// (it is then failed), and returns an error for a failure that a later try
// may not meet.
func (c *Coordinator) plan(r *run) error {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	rec, _, err := c.b.GetJob(ctx, r.id)
	if errors.Is(err, job.ErrNotFound) || err == nil && rec.State.Final() {
		c.drop(r, true)
		return nil
	}
	if err != nil {
		c.drop(r, false)
		return err
	}
	kind, ok := tasks.Lookup(rec.Spec.Kind)
	if !ok {
		c.drop(r, true)
		return c.failJob(ctx, r.id, fmt.Sprintf("unknown job kind %q (known: %v)", rec.Spec.Kind, tasks.Names()))
	}
	pickedUp := time.Now()
	out := newOutputs(c.b.Objects(), r.id)
	result := func(_ context.Context, task string) ([]byte, error) { return c.storedResult(r.id, task) }
	plan, err := kind.Plan(ctx, rec.Spec.Params, tasks.PlanEnv{Objects: c.b.Objects(), Outputs: out, Result: result})
	if err != nil {
		c.drop(r, true)
		return c.failJob(ctx, r.id, err.Error())
	}
	list := plan.Tasks()
	r.plan, r.out, r.kind, r.version, r.tasks = plan, out, kind.Name(), kind.Version(), list
	r.index = make(map[string]int, len(list))
	r.checks, r.keys, r.done = make([]string, len(list)), make([][]byte, len(list)), make([]bool, len(list))
	for i, t := range list {
		if !job.ValidID(t.ID) {
			r.plan = nil
			c.drop(r, true)
			return c.failJob(ctx, r.id, fmt.Sprintf("kind %s made an invalid task id %q", kind.Name(), t.ID))
		}
		r.index[t.ID] = i
	}
	if err := c.mergeStored(r); err != nil {
		r.plan = nil
		c.drop(r, false)
		return err
	}
	resumed := rec.State == job.Running
	rec, err = c.b.UpdateJob(ctx, r.id, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		if j.State == job.Submitted {
			j.Started = pickedUp // planning is part of the job's time
		}
		j.State = job.Running
		j.Epoch++
		j.Tasks = len(list)
		j.Done, j.Failed, j.CacheHits = r.nDone, len(r.failures), r.hits
		return nil
	})
	if err != nil || rec.State != job.Running {
		r.plan = nil
		c.drop(r, err == nil)
		return err
	}
	c.log.Info("job running", "job", r.id, "kind", kind.Name(), "tasks", len(list), "done", r.nDone, "resumed", resumed,
		"plan_seconds", time.Since(pickedUp).Seconds())
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch, r.pickedUp, r.ranWritten = rec.Epoch, pickedUp, pickedUp
	r.ranBefore = time.Duration(rec.RunSeconds * float64(time.Second))
	r.planned, r.resumed = true, resumed
	for _, res := range r.pending {
		c.mergeLocked(r, res)
	}
	r.pending = nil
	return nil
}

// mergeStored merges the results that an earlier life of this coordinator
// stored for job r (r not yet shared).
func (c *Coordinator) mergeStored(r *run) error {
	return c.cfg.DB.Scan(resultPrefix(r.id), func(key, val []byte) error {
		s, err := decodeStored(val)
		if err != nil {
			return fmt.Errorf("stored result %s: %w", key, err)
		}
		i, ok := r.index[s.Task]
		switch {
		case !ok || r.done[i]:
			return nil
		case !r.matches(i, s.Check, s.Failed != ""):
			c.log.Warn("stored result of another version of the task: computed again", "job", r.id, "task", s.Task)
			return nil
		case s.Failed != "":
			if err := mergeFailure(r.plan, s.Task); err != nil {
				return fmt.Errorf("merge the stored failure of task %s: %w", s.Task, err)
			}
			r.markDone(i, s)
			return nil
		}
		// Its result may not have reached the disk with its record: the
		// task is then looked up or run again.
		data, found, err := c.cfg.DB.Get([]byte(s.Ref))
		if err != nil || !found {
			return err
		}
		if _, err := c.cfg.DB.Fresh([]byte(s.Ref)); err != nil {
			return err
		}
		if err := r.plan.Merge(s.Task, data); err != nil {
			return fmt.Errorf("merge the stored result of task %s: %w", s.Task, err)
		}
		r.markDone(i, s)
		return nil
	})
}

// storedResult reads the stored result of a task of job jobID that was
// merged (tasks.PlanEnv.Result): each is stored before it is merged.
func (c *Coordinator) storedResult(jobID, task string) ([]byte, error) {
	v, found, err := c.cfg.DB.Get(resultKey(jobID, task))
	if err != nil || !found {
		return nil, fmt.Errorf("stored result of task %s: %w (found %v)", task, err, found)
	}
	s, err := decodeStored(v)
	if err != nil || s.Ref == "" {
		return nil, fmt.Errorf("stored result of task %s: %w (failed %q)", task, err, s.Failed)
	}
	data, found, err := c.cfg.DB.Get([]byte(s.Ref))
	if err != nil || !found {
		return nil, fmt.Errorf("stored result of task %s: %w (found %v)", task, err, found)
	}
	return data, nil
}

// publishUnfinished publishes each task of r that is not merged: one whose
// result is in the cache is merged from there instead, and on a resumed
// job one still in the work queue (or with a worker) is left there: a task
// that is neither merged nor queued was lost with the previous life.
func (c *Coordinator) publishUnfinished(r *run) error {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	for i := range r.tasks {
		r.mu.Lock()
		if r.done[i] || r.finished {
			r.mu.Unlock()
			continue
		}
		t, cacheable, key := r.taskMsg(i), !r.tasks[i].Volatile, r.key(i)
		r.mu.Unlock()
		if cacheable {
			hit, err := c.fromCache(r, i, key)
			if err != nil {
				return err
			}
			if hit {
				continue
			}
		}
		if r.resumed {
			has, err := c.b.HasTask(ctx, r.id, t.ID)
			if err != nil {
				return err
			}
			if has {
				continue
			}
		}
		if err := c.b.PublishTask(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// fromCache merges task i from a result stored under key by an earlier job
// with the same task, if there is one (renewed if it was about to expire),
// and tells whether there was.
func (c *Coordinator) fromCache(r *run, i int, key []byte) (bool, error) {
	data, found, err := c.cfg.DB.Get(key)
	if err != nil || !found {
		return false, err
	}
	if _, err := c.cfg.DB.Fresh(key); err != nil {
		return false, err
	}
	s := storedResult{Task: r.tasks[i].ID, Check: r.check(i), Ref: string(key), Cached: true}
	val, err := s.encode()
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done[i] || r.finished {
		return true, nil // its result came meanwhile
	}
	if err := c.cfg.DB.Put(resultKey(r.id, s.Task), val); err != nil {
		return false, err
	}
	if err := r.plan.Merge(s.Task, data); err != nil {
		c.failMerge(r, s.Task, err)
		return true, nil
	}
	r.markDone(i, s)
	c.metrics.TaskCached(r.kind)
	return true, nil
}

// key returns task i's cache key (r.mu held, or r not yet shared).
func (r *run) key(i int) []byte {
	if r.keys[i] == nil {
		sum := sha256.Sum256(r.tasks[i].Payload)
		r.keys[i] = fmt.Appendf(nil, "cache/%s/v%d/%x", r.kind, r.version, sum)
	}
	return r.keys[i]
}

// matches tells whether a result computed for a task with this payload
// check belongs to task i. A failure may have no check: the worker could
// not read the task's message, and so no result can come for it.
func (r *run) matches(i int, check string, failed bool) bool {
	return check == r.check(i) || check == "" && failed
}

// taskMsg is the message of task i in this coordinator's epoch of the job.
func (r *run) taskMsg(i int) job.Task {
	t := r.tasks[i]
	return job.Task{Job: r.id, ID: t.ID, Kind: r.kind, Epoch: r.epoch, Check: r.check(i), Payload: t.Payload}
}

// check returns task i's payload check (r.mu held, or r not yet shared).
func (r *run) check(i int) string {
	if r.checks[i] == "" {
		r.checks[i] = job.PayloadCheck(r.tasks[i].Payload)
	}
	return r.checks[i]
}

func (r *run) markDone(i int, s storedResult) {
	r.done[i] = true
	r.nDone++
	if s.Failed == "" {
		// Its check and key are made; nothing needs it any more (a task
		// done is never published again), and a big job's payloads are as
		// big as its inputs. A failed task's payload is the report's.
		r.tasks[i].Payload = nil
	}
	r.hits += s.CacheHits
	if s.Cached {
		r.hits++
	}
	if s.Failed != "" {
		r.failures = append(r.failures, job.Failure{Task: s.Task, Reason: s.Failed})
	}
	r.dirty = true
}

// storedResult is a merged task result in the coordinator's store: a JSON
// line of metadata, then, for a failed task, nothing, or for another the
// key of its result in the cache.
type storedResult struct {
	Task      string `json:"task"`
	Check     string `json:"check,omitempty"` // the task's job.PayloadCheck
	Ref       string `json:"ref,omitempty"`   // the key of its result in the cache
	Failed    string `json:"failed,omitempty"`
	CacheHits int64  `json:"cache_hits,omitempty"`
	Cached    bool   `json:"cached,omitempty"`
}

// maxInlineReport is the largest report kept in the job record itself.
const maxInlineReport = 256 << 10

func (s storedResult) encode() ([]byte, error) { return json.Marshal(s) }

func decodeStored(v []byte) (storedResult, error) {
	var s storedResult
	err := json.Unmarshal(v, &s)
	if err == nil && s.Ref == "" && s.Failed == "" {
		err = errors.New("neither a result nor a failure")
	}
	return s, err
}

func resultPrefix(jobID string) []byte { return []byte("result/" + jobID + "/") }

func resultKey(jobID, task string) []byte { return []byte("result/" + jobID + "/" + task) }

// volatileKey keeps the result of a volatile task (tasks.Task.Volatile)
// until its job is reported.
func volatileKey(jobID, task string) []byte { return []byte("volatile/" + jobID + "/" + task) }

func volatilePrefix(jobID string) []byte { return []byte("volatile/" + jobID + "/") }

// handleResult merges one task result, unless it was merged before. It is
// called one result at a time.
func (c *Coordinator) handleResult(res job.Result) {
	r := c.start(res.Job)
	if r == nil {
		return // finished, cancelled, unknown or not ours: a leftover
	}
	r.mu.Lock()
	if !r.planned {
		select {
		case <-r.ready:
			// Its planning ended without a plan: the job is over, or
			// will be taken up again and publish this task again.
		default:
			r.pending = append(r.pending, res)
		}
		r.mu.Unlock()
		return
	}
	c.mergeLocked(r, res)
	r.mu.Unlock()
	c.maybeFinish(r)
}

// handleDead records a task that reached MaxDeliver as failed.
func (c *Coordinator) handleDead(t job.Task, deliveries uint64) {
	c.log.Warn("task dead-lettered", "job", t.Job, "task", t.ID, "deliveries", deliveries)
	c.metrics.TaskDeadLettered(t.Kind)
	c.handleResult(job.Result{Job: t.Job, Task: t.ID, Check: t.Check,
		Failed: fmt.Sprintf("gave up after %d deliveries (workers crashed or timed out on it)", deliveries)})
}

// mergeLocked stores a task's result once and merges it into the plan;
// r.mu is held and r is planned.
func (c *Coordinator) mergeLocked(r *run, res job.Result) {
	i, ok := r.index[res.Task]
	if !ok {
		c.log.Warn("result for an unknown task", "job", r.id, "task", res.Task)
		return
	}
	if r.done[i] || r.finished {
		return // a duplicate: counted once already
	}
	if !r.matches(i, res.Check, res.Failed != "") {
		// Computed for the task as another plan made it (a coordinator
		// that planned the job differently before a restart): the task as
		// planned now is published, unless it was already in this epoch
		// (the message id makes a second copy a no-op).
		c.log.Warn("result of another version of the task: dropped", "job", r.id, "task", res.Task)
		t := r.taskMsg(i)
		c.goFunc(func() {
			ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
			defer cancel()
			if err := c.b.PublishTask(ctx, t); err != nil {
				c.log.Error("publish task", "job", t.Job, "task", t.ID, "err", err)
			}
		})
		return
	}
	s := storedResult{Task: res.Task, Check: res.Check, Failed: res.Failed, CacheHits: res.CacheHits}
	if s.Failed == "" {
		// The data goes into the cache, the job's record points at it.
		key := r.key(i)
		s.Ref = string(key)
		if r.tasks[i].Volatile {
			// Never answered from the cache: kept with the job, and
			// dropped with it.
			s.Ref = string(volatileKey(r.id, res.Task))
		}
		if err := c.cfg.DB.PutOwned([]byte(s.Ref), res.Data); err != nil { // res.Data is the message's, not shared
			c.log.Error("store result", "job", r.id, "task", res.Task, "err", err)
			return
		}
	}
	val, err := s.encode()
	if err == nil {
		// Write-behind: the in-memory done flag guards duplicates during
		// this life; if the coordinator dies before the write reaches
		// disk, the task is neither done nor queued when it resumes, so it
		// is published again and merged then. A synchronous transaction
		// per result would cost a tenth of a fast corpus job.
		err = c.cfg.DB.Put(resultKey(r.id, res.Task), val)
	}
	if err != nil {
		c.log.Error("store result", "job", r.id, "task", res.Task, "err", err)
		return
	}
	if s.Failed == "" {
		if err := r.plan.Merge(res.Task, res.Data); err != nil {
			c.failMerge(r, res.Task, err)
			return
		}
		c.metrics.ResultMerged(r.kind)
	} else if err := mergeFailure(r.plan, res.Task); err != nil {
		c.failMerge(r, res.Task, err)
		return
	}
	r.markDone(i, s)
}

// mergeFailure tells plan that task failed, if it asks to be told
// (tasks.MergesFailures).
func mergeFailure(plan tasks.Plan, task string) error {
	if f, ok := plan.(tasks.MergesFailures); ok {
		return f.MergeFailure(task)
	}
	return nil
}

// failMerge fails job r, whose plan could not merge the result of task:
// a damaged result, or a bug in its kind. r.mu is held.
func (c *Coordinator) failMerge(r *run, task string, err error) {
	c.log.Error("merge result", "job", r.id, "task", task, "err", err)
	r.finished = true
	reason := fmt.Sprintf("merge the result of task %s: %v", task, err)
	c.goFunc(func() {
		ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
		defer cancel()
		c.purge(ctx, r.id)
		if err := c.failJob(ctx, r.id, reason); err != nil {
			c.log.Error("fail job", "job", r.id, "err", err)
		}
		c.forget(r)
	})
}

// maybeFinish reports r, once, on a goroutine of its own, when every task
// is merged.
func (c *Coordinator) maybeFinish(r *run) {
	r.mu.Lock()
	complete := r.planned && !r.finished && r.nDone == len(r.done)
	if complete {
		r.finished = true
	}
	r.mu.Unlock()
	if complete {
		c.goFunc(func() { c.finish(r) })
	}
}

// outputs stores a job's outputs as objects and records their names.
type outputs struct {
	objects tasks.Objects
	job     string
	mu      sync.Mutex
	names   map[string]string // output name -> object
	parts   map[string]int    // output name -> parts, of one written in parts
}

func newOutputs(objects tasks.Objects, job string) *outputs {
	return &outputs{objects: objects, job: job, names: map[string]string{}, parts: map[string]int{}}
}

func (o *outputs) Put(ctx context.Context, name string, data []byte) error {
	object := tasks.OutputObject(o.job, name)
	if err := o.objects.Put(ctx, object, data); err != nil {
		return err
	}
	o.done(name, object, 0)
	return nil
}

// done records the output name, complete in object.
func (o *outputs) done(name, object string, parts int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.names[name] = object
	delete(o.parts, name)
	if parts > 0 {
		o.parts[name] = parts
	}
}

// creator is an object store that writes an object a part at a time
// (broker.Broker's).
type creator interface {
	Create(ctx context.Context, name string) (io.WriteCloser, error)
}

// Create implements tasks.Outputs. Without an object store that writes a
// part at a time, the output is put whole when it is closed.
func (o *outputs) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	object := tasks.OutputObject(o.job, name)
	cr, ok := o.objects.(creator)
	if !ok {
		return &wholeWriter{o: o, name: name}, nil
	}
	w, err := cr.Create(ctx, object)
	if err != nil {
		return nil, err
	}
	return &outputWriter{WriteCloser: w, o: o, name: name, object: object}, nil
}

// outputWriter records its output once closed.
type outputWriter struct {
	io.WriteCloser
	o            *outputs
	name, object string
}

func (w *outputWriter) Close() error {
	if err := w.WriteCloser.Close(); err != nil {
		return err
	}
	parts := 0
	if p, ok := w.WriteCloser.(interface{ Parts() int }); ok {
		parts = p.Parts()
	}
	w.o.done(w.name, w.object, parts)
	return nil
}

// wholeWriter gathers an output to put it whole.
type wholeWriter struct {
	o    *outputs
	name string
	data []byte
}

func (w *wholeWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	return len(p), nil
}

func (w *wholeWriter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return w.o.Put(ctx, w.name, w.data)
}

// finish builds the report, writes it to the job record and forgets the
// job's stored results.
func (c *Coordinator) finish(r *run) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	out := r.out
	r.mu.Lock()
	sum := tasks.Summary{Job: r.id, Tasks: len(r.done), Failures: append([]job.Failure(nil), r.failures...),
		CacheHits: r.hits, Elapsed: r.elapsed(), Outputs: out}
	nDone := r.nDone
	r.mu.Unlock()

	var repJSON []byte
	var text string
	rep, err := r.plan.Report(ctx, sum)
	if err == nil {
		repJSON, text, err = tasks.Compose(rep, sum)
	}
	// A job record is one KV value (1 MiB at most): a big report goes to the
	// object store and the record points at it.
	var repObject string
	if err == nil && len(repJSON) > maxInlineReport {
		repObject = "report/" + r.id + ".json"
		err = c.b.Objects().Put(ctx, repObject, repJSON)
		repJSON = nil
	}
	// Every task is merged: whatever is left in the queue (copies of
	// redelivered or republished tasks) goes before the job is seen as
	// done.
	c.purge(ctx, r.id)
	_, uerr := c.b.UpdateJob(ctx, r.id, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		j.Finished = time.Now()
		j.RunSeconds = sum.Elapsed.Seconds()
		j.Done, j.Failed, j.CacheHits = nDone, len(sum.Failures), sum.CacheHits
		j.Failures = sum.Failures
		if err != nil {
			j.State, j.Error = job.Failed, "report: "+err.Error()
			return nil
		}
		j.State, j.Report, j.Text = job.Done, repJSON, text
		out.mu.Lock()
		j.ReportObject, j.Outputs = repObject, out.names
		if len(out.parts) > 0 {
			j.OutputParts = out.parts
		}
		out.mu.Unlock()
		return nil
	})
	if uerr != nil {
		c.log.Error("write report", "job", r.id, "err", uerr)
		c.drop(r, false) // stays running: taken up and finished again
		return
	}
	c.log.Info("job finished", "job", r.id, "tasks", len(r.done), "failed", len(sum.Failures), "elapsed", sum.Elapsed)
	c.forget(r)
}

// purge removes a job's tasks from the work queue.
func (c *Coordinator) purge(ctx context.Context, id string) {
	if err := c.b.PurgeJob(ctx, id); err != nil {
		c.log.Warn("purge job tasks", "job", id, "err", err)
	}
}

// forget drops a finished, failed or cancelled job (whose tasks are purged
// already) and its stored results.
func (c *Coordinator) forget(r *run) {
	c.drop(r, true)
	for _, prefix := range [][]byte{resultPrefix(r.id), volatilePrefix(r.id)} {
		if err := c.cfg.DB.DeletePrefix(prefix); err != nil {
			c.log.Warn("drop job results", "job", r.id, "err", err)
		}
	}
}

// cancelJob stops a job at a user's request.
func (c *Coordinator) cancelJob(id string) {
	c.mu.Lock()
	r := c.runs[id]
	c.mu.Unlock()
	if r != nil {
		r.mu.Lock()
		r.finished = true
		r.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	c.purge(ctx, id)
	_, err := c.b.UpdateJob(ctx, id, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		j.State, j.Finished = job.Cancelled, time.Now()
		return nil
	})
	if err != nil {
		c.log.Error("cancel job", "job", id, "err", err)
		return
	}
	c.log.Info("job cancelled", "job", id)
	if r == nil {
		r = &run{id: id}
	}
	c.forget(r)
}

// failJob marks a job failed with reason.
func (c *Coordinator) failJob(ctx context.Context, id, reason string) error {
	_, err := c.b.UpdateJob(ctx, id, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		j.State, j.Error, j.Finished = job.Failed, reason, time.Now()
		return nil
	})
	if err != nil {
		return fmt.Errorf("fail job %s: %w", id, err)
	}
	c.log.Warn("job failed", "job", id, "reason", reason)
	return nil
}

// reconcileEvery is how often the coordinator looks for unfinished jobs it
// does not run (a failed activation, a missed watch event) and takes them up.
// For reconnectWindow after its connection to NATS comes back, it looks
// every reconcileSoon: the watch of job records misses what happens until
// the client library notices that its consumer went with the old server
// (up to 10 s: two missed 5 s heartbeats), and a job submitted just after a
// server restart would wait for that or the next reconcile.
const (
	reconcileEvery  = 15 * time.Second
	reconcileSoon   = time.Second
	reconnectWindow = 15 * time.Second
)

// writeProgress writes the progress of running jobs to their records, and
// reconciles now and then.
func (c *Coordinator) writeProgress() {
	t := time.NewTicker(c.cfg.ProgressEvery)
	defer t.Stop()
	rt := time.NewTicker(reconcileEvery)
	defer rt.Stop()
	reconnects := c.b.Reconnects()
	var soon time.Time // reconcile often until then
	var last time.Time // last reconcile
	for {
		select {
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			c.flushProgress(false)
			if n := c.b.Reconnects(); n != reconnects {
				reconnects, soon = n, now.Add(reconnectWindow)
			}
			if now.Before(soon) && now.Sub(last) >= reconcileSoon {
				last = now
				c.reconcile()
			}
		case now := <-rt.C:
			last = now
			c.reconcile()
		}
	}
}

func (c *Coordinator) reconcile() {
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	records, err := c.b.ListJobs(ctx)
	if err != nil {
		c.log.Warn("reconcile: list jobs", "err", err)
		return
	}
	c.states.replace(records)
	for _, rec := range records {
		c.takeUp(rec)
	}
}

// ranEvery is how often the time a job has run is written to its record
// while none of its tasks finishes (a killed coordinator's time counts up
// to its last write).
const ranEvery = time.Second

// flushProgress writes the progress of running jobs to their records: those
// with new results, those whose run time was written ranEvery ago or
// more, or, with all, every one.
func (c *Coordinator) flushProgress(all bool) {
	c.mu.Lock()
	runs := make([]*run, 0, len(c.runs))
	for _, r := range c.runs {
		runs = append(runs, r)
	}
	c.mu.Unlock()
	for _, r := range runs {
		r.mu.Lock()
		if !r.planned || r.finished || !all && !r.dirty && time.Since(r.ranWritten) < ranEvery {
			r.mu.Unlock()
			continue
		}
		r.dirty, r.ranWritten = false, time.Now()
		done, failed, hits, ran := r.nDone, len(r.failures), r.hits, r.elapsed()
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.b.UpdateJob(ctx, r.id, func(j *job.Record) error {
			if j.State.Final() || j.Done > done || j.Done == done && j.RunSeconds >= ran.Seconds() {
				return job.ErrNoChange
			}
			j.Done, j.Failed, j.CacheHits = done, failed, hits
			j.RunSeconds = ran.Seconds()
			return nil
		})
		cancel()
		if err != nil {
			c.log.Warn("write progress", "job", r.id, "err", err)
		}
	}
}

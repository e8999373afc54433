// Package coordinator runs jobs: it picks up submitted jobs from the jobs
// bucket, splits them into tasks with their kind, publishes the tasks,
// merges each task's result exactly once, and writes progress and the final
// report back to the job's record.
//
// Task results are kept in the coordinator's Badger store by what computed
// them (kind, kind version and payload): a task whose result is there, from
// a rerun or another job with the same task, is not published at all. Each
// job also keeps a small record per merged task, keyed by job and task and
// pointing at its result, until the job's report is written. A per-job done
// flag per task makes merging idempotent whatever JetStream redelivers; it
// is rebuilt from those records when a coordinator restarted with the same
// store resumes a running job: it recomputes the (deterministic) plan,
// counts what is done, and republishes, under a new epoch, each unfinished
// task that is no longer in the work queue (including any whose result was
// acknowledged but not yet written when the previous coordinator died). Each task message carries a
// checksum of its payload, which the worker echoes in the result and the
// store keeps beside it: a result is merged only into the task it was
// computed for, so a coordinator of a build whose plan differs for the same
// job drops the old tasks' results, stored or arriving, and runs the new
// tasks instead.
package coordinator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/woprlabs/wopr/pkg/queue"
	"github.com/woprlabs/wopr/pkg/store"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Config configures a coordinator.
type Config struct {
	Broker *queue.Broker
	// DB holds merged task results until a job's report is written.
	DB  *store.DB
	Log *slog.Logger
	// Accept, if set, limits the coordinator to the jobs it returns true for
	// (embedded mode runs only the jobs its own command submitted).
	Accept func(jobID string) bool
	// ProgressEvery is how often progress is written to job records.
	ProgressEvery time.Duration
}

// Coordinator is a running coordinator.
type Coordinator struct {
	cfg Config
	b   *queue.Broker
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	active map[string]*job
}

// job is a job this coordinator is running.
type job struct {
	mu         sync.Mutex
	id         string
	plan       tasks.Plan
	index      map[string]int // task id -> position in plan.Tasks()
	kind       string
	version    int
	tasks      []tasks.Task // plan.Tasks()
	checks     []string     // queue.PayloadCheck of each task, made when first needed
	keys       [][]byte     // cacheKey of each task, made when first needed
	volatile   []bool       // tasks kept out of the cache (tasks.Volatile)
	epoch      int          // of this coordinator's life of the job
	done       []bool
	nDone      int
	failures   []tasks.Failure
	cacheHits  int64
	dirty      bool
	ranBefore  time.Duration // in earlier lives (queue.Job.RunSeconds)
	pickedUp   time.Time     // by this life
	ranWritten time.Time     // when RunSeconds was last written
	finished   bool
}

// elapsed is the time the job has run: in earlier lives of a coordinator,
// as they last recorded it, and in this one (j.mu held, or j not yet
// shared). A job resumed after a night's pause is not a night slower.
func (j *job) elapsed() time.Duration { return j.ranBefore + time.Since(j.pickedUp) }

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
	if err := cfg.Broker.EnsureConsumers(ctx); err != nil {
		return nil, err
	}
	results, err := cfg.Broker.Results.Consumer(ctx, queue.CoordConsumer)
	if err != nil {
		return nil, fmt.Errorf("results consumer: %w", err)
	}
	dead, err := cfg.Broker.Dead.Consumer(ctx, queue.DeadConsumer)
	if err != nil {
		return nil, fmt.Errorf("dead-letter consumer: %w", err)
	}
	cctx, cancel := context.WithCancel(context.Background())
	jobs, err := cfg.Broker.WatchJobs(cctx)
	if err != nil {
		cancel()
		return nil, err
	}
	c := &Coordinator{cfg: cfg, b: cfg.Broker, log: cfg.Log, ctx: cctx, cancel: cancel, active: map[string]*job{}}
	c.wg.Add(4)
	go c.watchJobs(jobs)
	go c.consume(results, c.handleResult)
	go c.consume(dead, c.handleDead)
	go c.writeProgress()
	return c, nil
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

// watchJobs reacts to every change of a job record: new jobs are started,
// cancellations carried out. It ends when the coordinator's context does.
func (c *Coordinator) watchJobs(jobs <-chan *queue.Job) {
	defer c.wg.Done()
	for rec := range jobs {
		c.takeUp(rec)
	}
}

// Resume takes up an unfinished job now (embedded mode accepts a job
// after the coordinator has seen its record).
func (c *Coordinator) Resume(ctx context.Context, id string) error {
	j, err := c.activate(id)
	if err != nil {
		return err
	}
	c.maybeFinish(j)
	return nil
}

// activate returns the running job with this id, starting or resuming it
// if needed. It returns nil for a job that is final, unknown or not ours.
func (c *Coordinator) activate(id string) (*job, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if j := c.active[id]; j != nil {
		return j, nil
	}
	if !c.accepts(id) {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	rec, _, err := c.b.GetJob(ctx, id)
	if errors.Is(err, queue.ErrNoJob) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.State.Final() {
		return nil, nil
	}
	kind, ok := tasks.Lookup(rec.Spec.Kind)
	if !ok {
		return nil, c.failJob(ctx, id, fmt.Sprintf("unknown job kind %q (known: %v)", rec.Spec.Kind, tasks.Names()))
	}
	pickedUp := time.Now()
	var plan tasks.Plan
	if ep, ok := kind.(tasks.EnvPlanner); ok {
		plan, err = ep.PlanEnv(ctx, rec.Spec.Params, tasks.PlanEnv{Objects: c.b.ObjectStore()})
	} else {
		plan, err = kind.Plan(ctx, rec.Spec.Params)
	}
	if err != nil {
		return nil, c.failJob(ctx, id, err.Error())
	}
	list := plan.Tasks()
	j := &job{id: id, kind: kind.Name(), version: kind.Version(), plan: plan, tasks: list, index: make(map[string]int, len(list)),
		checks: make([]string, len(list)), keys: make([][]byte, len(list)), done: make([]bool, len(list))}
	vk, _ := kind.(tasks.Volatile)
	for i, t := range list {
		if !queue.ValidToken(t.ID) {
			return nil, c.failJob(ctx, id, fmt.Sprintf("kind %s made an invalid task id %q", kind.Name(), t.ID))
		}
		j.index[t.ID] = i
		if vk != nil && vk.Volatile(t.Payload) {
			if j.volatile == nil {
				j.volatile = make([]bool, len(list))
			}
			j.volatile[i] = true
		}
	}
	// Count what a previous life of this coordinator already merged.
	err = c.cfg.DB.Scan(resultPrefix(id), func(key, val []byte) error {
		r, err := decodeStored(val)
		if err != nil {
			return fmt.Errorf("stored result %s: %w", key, err)
		}
		i, ok := j.index[r.Task]
		switch {
		case !ok || j.done[i]:
		case !j.matches(i, r.Check):
			c.log.Warn("stored result of another version of the task: computed again", "job", id, "task", r.Task)
		case r.Ref != "":
			// Its result may not have reached the disk with it: then
			// the task is looked up or run again below.
			if ok, err := c.cfg.DB.Fresh([]byte(r.Ref)); err != nil || !ok {
				return err
			}
			j.markDone(i, r)
			c.feed(j, i, nil, r.Ref)
		default:
			j.markDone(i, r)
			if r.Failed == "" {
				c.feed(j, i, bytes.Clone(r.Data), "") // r.Data is valid only during the scan
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	resumed := rec.State == queue.StateRunning
	rec, err = c.b.UpdateJob(ctx, id, func(r *queue.Job) error {
		if r.State.Final() {
			return queue.ErrNoChange
		}
		if r.State == queue.StateSubmitted {
			r.Started = pickedUp // planning is part of the job's time
		}
		r.State = queue.StateRunning
		r.Epoch++
		r.Tasks = len(list)
		r.Done, r.Failed, r.CacheHits = j.nDone, len(j.failures), j.cacheHits
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rec.State != queue.StateRunning {
		return nil, nil
	}
	j.epoch, j.pickedUp, j.ranWritten = rec.Epoch, pickedUp, pickedUp
	j.ranBefore = time.Duration(rec.RunSeconds * float64(time.Second))
	c.log.Info("job running", "job", id, "kind", kind.Name(), "tasks", len(list), "done", j.nDone, "resumed", resumed,
		"plan_seconds", time.Since(pickedUp).Seconds())

	for i, t := range list {
		if j.done[i] {
			continue
		}
		if hit, err := c.fromCache(j, i); err != nil || hit {
			if err != nil {
				return nil, err
			}
			continue
		}
		if resumed {
			// Still queued (or with a worker): leave it. Otherwise it was lost
			// with the previous coordinator, so publish it again.
			has, err := c.b.HasTask(ctx, id, t.ID)
			if err != nil {
				return nil, err
			}
			if has {
				continue
			}
		}
		if err := c.b.PublishTask(ctx, j.taskMsg(i)); err != nil {
			// The job stays running but inactive: the next result or
			// reconciliation activates it again and publishes what is missing.
			return nil, err
		}
	}
	c.active[id] = j
	return j, nil
}

// fromCache merges task i from a result stored by an earlier job with the
// same task, if there is one (renewed if it was about to expire: the report
// reads it back).
func (c *Coordinator) fromCache(j *job, i int) (bool, error) {
	if j.isVolatile(i) {
		return false, nil
	}
	key := j.key(i)
	ok, err := c.cfg.DB.Fresh(key)
	if err != nil || !ok {
		return false, err
	}
	r := storedResult{Task: j.tasks[i].ID, Check: j.check(i), Ref: string(key), Cached: true}
	val, err := r.encode()
	if err == nil {
		err = c.cfg.DB.Put(resultKey(j.id, r.Task), val)
	}
	if err != nil {
		return false, err
	}
	j.markDone(i, r)
	c.feed(j, i, nil, string(key))
	return true, nil
}

// feed hands task i's result, data or, if ref is set, the result in the
// cache under ref, to a plan that merges results as they come
// (tasks.Merger). A result that cannot be read or merged is left to the
// report, which reads it again and says what is wrong.
func (c *Coordinator) feed(j *job, i int, data []byte, ref string) {
	m, ok := j.plan.(tasks.Merger)
	if !ok {
		return
	}
	if ref != "" {
		v, found, err := c.cfg.DB.Get([]byte(ref))
		if err != nil || !found {
			return
		}
		data = v
	}
	if err := m.Merge(j.tasks[i].ID, data); err != nil {
		c.log.Warn("merge result", "job", j.id, "task", j.tasks[i].ID, "err", err)
	}
}

// isVolatile tells whether task i stays out of the cache (tasks.Volatile).
func (j *job) isVolatile(i int) bool { return j.volatile != nil && j.volatile[i] }

// key returns task i's cache key (j.mu held, or j not yet shared).
func (j *job) key(i int) []byte {
	if j.keys[i] == nil {
		sum := sha256.Sum256(j.tasks[i].Payload)
		j.keys[i] = fmt.Appendf(nil, "cache/%s/v%d/%x", j.kind, j.version, sum)
	}
	return j.keys[i]
}

// matches tells whether a result computed for a task with this payload
// check belongs to task i: results from builds without checks are taken as
// they come.
func (j *job) matches(i int, check string) bool { return check == "" || check == j.check(i) }

// taskMsg is the message of task i in this coordinator's epoch of the job.
func (j *job) taskMsg(i int) queue.TaskMsg {
	t := j.tasks[i]
	return queue.TaskMsg{Job: j.id, Task: t.ID, Kind: j.kind, Epoch: j.epoch, Check: j.check(i), Payload: t.Payload}
}

// check returns task i's payload check (j.mu held, or j not yet shared).
func (j *job) check(i int) string {
	if j.checks[i] == "" {
		j.checks[i] = queue.PayloadCheck(j.tasks[i].Payload)
	}
	return j.checks[i]
}

func (j *job) markDone(i int, r storedResult) {
	j.done[i] = true
	j.nDone++
	if r.Failed == "" {
		// Its check and key are made; nothing needs it any more (a task
		// done is never published again), and a big job's payloads are as
		// big as its inputs.
		j.tasks[i].Payload = nil
	}
	j.cacheHits += r.CacheHits
	if r.Cached {
		j.cacheHits++
	}
	if r.Failed != "" {
		j.failures = append(j.failures, tasks.Failure{Task: r.Task, Reason: r.Failed})
	}
	j.dirty = true
}

// storedResult is a merged task result in the coordinator's store: a JSON
// line of metadata, then the data as it is (results can be 100 KB).
type storedResult struct {
	Task  string `json:"task"`
	Check string `json:"check,omitempty"` // the task's queue.PayloadCheck
	// Ref is the key of the task's result in the cache; Data, if there is
	// no Ref (a failed task, or a record of an earlier build).
	Ref       string `json:"ref,omitempty"`
	Data      []byte `json:"-"`
	Failed    string `json:"failed,omitempty"`
	CacheHits int64  `json:"cache_hits,omitempty"`
	Cached    bool   `json:"cached,omitempty"`
}

// maxInlineReport is the largest report kept in the job record itself.
const maxInlineReport = 256 << 10

func (r storedResult) encode() ([]byte, error) {
	meta, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(append(meta, '\n'), r.Data...), nil
}

func decodeStored(v []byte) (storedResult, error) {
	var r storedResult
	meta, data, ok := bytes.Cut(v, []byte{'\n'})
	if !ok {
		return r, errors.New("stored result without a metadata line")
	}
	if err := json.Unmarshal(meta, &r); err != nil {
		return r, err
	}
	r.Data = data
	return r, nil
}

func resultPrefix(job string) []byte { return []byte("result/" + job + "/") }

func resultKey(job, task string) []byte { return []byte("result/" + job + "/" + task) }

// consume feeds every message of a durable consumer to handle, one at a time.
func (c *Coordinator) consume(cons jetstream.Consumer, handle func(jetstream.Msg)) {
	defer c.wg.Done()
	// At most 64 results wait in the client. After a nats-server restart
	// the fault audit saw "slow consumer, messages dropped" here, probably
	// 256 Sudoku results of 100-300 KB (asked for again on reconnect)
	// passing the client's 64 MB limit for a subscription; dropped results
	// come back only after AckWait.
	it, err := cons.Messages(jetstream.PullMaxMessages(64))
	if err != nil {
		c.log.Error("consume", "err", err)
		return
	}
	stopped := context.AfterFunc(c.ctx, it.Stop)
	defer stopped()
	for {
		msg, err := it.Next()
		if err != nil {
			if c.ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			c.log.Warn("next message", "err", err)
			continue
		}
		handle(msg)
	}
}

// handleResult merges one task result, unless it was merged before.
func (c *Coordinator) handleResult(msg jetstream.Msg) {
	r, err := queue.DecodeResult(msg.Headers(), msg.Data())
	if err != nil {
		c.log.Warn("dropping undecodable result", "subject", msg.Subject(), "err", err)
		_ = msg.Term()
		return
	}
	c.merge(r.Job, storedResult{Task: r.Task, Check: r.Check, Data: r.Data, Failed: r.Failed, CacheHits: r.CacheHits, Cached: r.Cached})
	_ = msg.Ack()
}

// handleDead records a task that reached MaxDeliver as failed and removes it
// from the work queue (such a task stays in a work-queue stream otherwise).
func (c *Coordinator) handleDead(msg jetstream.Msg) {
	var adv struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if err := json.Unmarshal(msg.Data(), &adv); err != nil {
		_ = msg.Term()
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	raw, err := c.b.Tasks.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		_ = msg.Ack() // already gone (purged, or acked at the last moment)
		return
	}
	if err != nil {
		_ = msg.NakWithDelay(time.Second)
		return
	}
	if t, err := queue.DecodeTask(raw.Header, raw.Data); err == nil {
		reason := fmt.Sprintf("gave up after %d deliveries (workers crashed or timed out on it)", adv.Deliveries)
		c.log.Warn("task dead-lettered", "job", t.Job, "task", t.Task, "deliveries", adv.Deliveries)
		c.merge(t.Job, storedResult{Task: t.Task, Check: t.Check, Failed: reason})
	}
	if err := c.b.Tasks.DeleteMsg(ctx, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		c.log.Warn("delete dead task", "seq", adv.StreamSeq, "err", err)
	}
	_ = msg.Ack()
}

// merge stores a task's result once and finishes the job when it was the
// last one.
func (c *Coordinator) merge(jobID string, r storedResult) {
	j, err := c.activate(jobID)
	if err != nil {
		c.log.Error("result for a job that cannot run", "job", jobID, "err", err)
		return
	}
	if j == nil {
		return // finished, cancelled, unknown or not ours: a leftover
	}
	defer c.maybeFinish(j)
	j.mu.Lock()
	defer j.mu.Unlock()
	i, ok := j.index[r.Task]
	if !ok {
		c.log.Warn("result for an unknown task", "job", jobID, "task", r.Task)
		return
	}
	if j.done[i] || j.finished {
		return // a duplicate: counted once already
	}
	if !j.matches(i, r.Check) {
		// Computed for the task as an earlier build planned it (this
		// coordinator re-planned the job after a restart): the task as
		// planned now is published, unless it was already in this epoch
		// (the message id makes a second copy a no-op).
		c.log.Warn("result of another version of the task: dropped", "job", jobID, "task", r.Task)
		ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
		defer cancel()
		if err := c.b.PublishTask(ctx, j.taskMsg(i)); err != nil {
			c.log.Error("publish task", "job", jobID, "task", r.Task, "err", err)
		}
		return
	}
	data := r.Data
	if r.Failed == "" && !j.isVolatile(i) {
		// The data goes into the cache, the job's record points at it.
		key := j.key(i)
		if err := c.cfg.DB.PutOwned(key, r.Data); err != nil { // r.Data is the message's, not shared
			c.log.Error("store result", "job", jobID, "task", r.Task, "err", err)
			return
		}
		r.Ref, r.Data = string(key), nil
	}
	val, err := r.encode()
	if err != nil {
		c.log.Error("encode result", "err", err)
		return
	}
	// Write-behind: the in-memory done flag guards duplicates during this
	// life; if the coordinator dies before the write reaches disk, the task
	// is neither done nor queued when it resumes, so it is published again
	// and merged then. A synchronous transaction per result cost 10% of a
	// Sudoku corpus job.
	if err := c.cfg.DB.Put(resultKey(jobID, r.Task), val); err != nil {
		c.log.Error("store result", "job", jobID, "task", r.Task, "err", err)
		return
	}
	j.markDone(i, r)
	if r.Failed == "" {
		c.feed(j, i, data, "")
	}
}

// maybeFinish finishes j, once, when every task is merged.
func (c *Coordinator) maybeFinish(j *job) {
	if j == nil {
		return
	}
	j.mu.Lock()
	complete := !j.finished && j.nDone == len(j.done)
	if complete {
		j.finished = true
	}
	j.mu.Unlock()
	if complete {
		c.finish(j)
	}
}

// finish builds the report, writes it to the job record and forgets the
// job's stored results.
func (c *Coordinator) finish(j *job) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	j.mu.Lock()
	failures := append([]tasks.Failure(nil), j.failures...)
	sum := tasks.Summary{Job: j.id, Tasks: len(j.done), Failures: failures, CacheHits: j.cacheHits,
		Elapsed: j.elapsed(), Objects: c.b.ObjectStore()}
	nDone := j.nDone
	j.mu.Unlock()

	failed := map[string]bool{}
	for _, f := range failures {
		failed[f.Task] = true
	}
	var readErr error
	results := func(id string) ([]byte, bool) {
		if failed[id] {
			return nil, false
		}
		v, ok, err := c.cfg.DB.Get(resultKey(j.id, id))
		if err != nil {
			readErr = err
			return nil, false
		}
		if !ok {
			return nil, false
		}
		r, err := decodeStored(v)
		if err != nil {
			readErr = err
			return nil, false
		}
		if r.Ref == "" {
			return r.Data, true
		}
		data, ok, err := c.cfg.DB.Get([]byte(r.Ref))
		if err != nil || !ok {
			readErr = fmt.Errorf("result of task %s: not in the cache (%v)", id, err)
			return nil, false
		}
		return data, true
	}
	rep, err := j.plan.Report(results, sum)
	if err == nil {
		err = readErr
	}
	var repJSON []byte
	if err == nil {
		repJSON, err = json.Marshal(rep)
	}
	// A job record is one KV value (1 MiB at most): a big report goes to the
	// object store and the record points at it.
	var repObject string
	if err == nil && len(repJSON) > maxInlineReport {
		repObject = "report/" + j.id + ".json"
		err = c.b.ObjectStore().Put(ctx, repObject, repJSON)
		repJSON = nil
	}
	var outputs map[string]string
	if or, ok := rep.(tasks.OutputReport); ok && err == nil {
		outputs = or.Outputs()
	}
	// Every task is merged: whatever is left in the queue (copies of
	// redelivered or republished tasks, a dead-lettered one) goes before the
	// job is seen as done.
	c.purge(ctx, j.id)
	_, uerr := c.b.UpdateJob(ctx, j.id, func(r *queue.Job) error {
		if r.State.Final() {
			return queue.ErrNoChange
		}
		r.Finished = time.Now()
		r.RunSeconds = sum.Elapsed.Seconds()
		r.Done, r.Failed, r.CacheHits = nDone, len(failures), sum.CacheHits
		r.Failures = failures
		if err != nil {
			r.State, r.Error = queue.StateFailed, "merge results: "+err.Error()
			return nil
		}
		r.State, r.Report, r.Text = queue.StateDone, repJSON, rep.Text()
		r.ReportObject, r.Outputs = repObject, outputs
		return nil
	})
	if uerr != nil {
		c.log.Error("write report", "job", j.id, "err", uerr)
		return // stays running; a restarted coordinator finishes it again
	}
	c.log.Info("job finished", "job", j.id, "tasks", len(j.done), "failed", len(failures), "elapsed", sum.Elapsed)
	c.forget(j.id)
}

// purge removes a job's tasks from the work queue.
func (c *Coordinator) purge(ctx context.Context, id string) {
	if err := c.b.PurgeJob(ctx, id); err != nil {
		c.log.Warn("purge job tasks", "job", id, "err", err)
	}
}

// forget drops a finished or cancelled job (whose tasks are purged already)
// and its stored results.
func (c *Coordinator) forget(id string) {
	c.mu.Lock()
	delete(c.active, id)
	c.mu.Unlock()
	if err := c.cfg.DB.DeletePrefix(resultPrefix(id)); err != nil {
		c.log.Warn("drop job results", "job", id, "err", err)
	}
}

// cancelJob stops a job at a user's request.
func (c *Coordinator) cancelJob(id string) {
	c.mu.Lock()
	j := c.active[id]
	c.mu.Unlock()
	if j != nil {
		j.mu.Lock()
		j.finished = true
		j.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	c.purge(ctx, id)
	_, err := c.b.UpdateJob(ctx, id, func(r *queue.Job) error {
		if r.State.Final() {
			return queue.ErrNoChange
		}
		r.State, r.Finished = queue.StateCancelled, time.Now()
		return nil
	})
	if err != nil {
		c.log.Error("cancel job", "job", id, "err", err)
		return
	}
	c.log.Info("job cancelled", "job", id)
	c.forget(id)
}

func (c *Coordinator) failJob(ctx context.Context, id, reason string) error {
	_, err := c.b.UpdateJob(ctx, id, func(r *queue.Job) error {
		if r.State.Final() {
			return queue.ErrNoChange
		}
		r.State, r.Error, r.Finished = queue.StateFailed, reason, time.Now()
		return nil
	})
	if err != nil {
		return err
	}
	return errors.New(reason)
}

// reconcileEvery is how often the coordinator looks for unfinished jobs it
// does not run (a failed activation, a missed watch event) and takes them up.
// For reconnectWindow after its connection to NATS comes back, it looks
// every reconcileSoon: the watch of job records then misses what happens
// until the client library notices that its consumer is gone with the old
// server (up to 10 s: two missed 5 s heartbeats) and, without this, a job
// submitted just after a server restart waited for that or the next
// reconcile (TestRestartNATSMidJob's 3x3 count: 14.4 s to its report, 1.4-1.6
// s with this).
const (
	reconcileEvery  = 15 * time.Second
	reconcileSoon   = time.Second
	reconnectWindow = 15 * time.Second
)

// writeProgress writes the progress of running jobs to their records, and
// reconciles now and then.
func (c *Coordinator) writeProgress() {
	defer c.wg.Done()
	t := time.NewTicker(c.cfg.ProgressEvery)
	defer t.Stop()
	r := time.NewTicker(reconcileEvery)
	defer r.Stop()
	reconnects := c.b.NC.Stats().Reconnects
	var soon time.Time // reconcile often until then
	var last time.Time // last reconcile
	for {
		select {
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			c.flushProgress(false)
			if n := c.b.NC.Stats().Reconnects; n != reconnects {
				reconnects, soon = n, now.Add(reconnectWindow)
			}
			if now.Before(soon) && now.Sub(last) >= reconcileSoon {
				last = now
				c.reconcile()
			}
		case now := <-r.C:
			last = now
			c.reconcile()
		}
	}
}

func (c *Coordinator) reconcile() {
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	jobs, err := c.b.ListJobs(ctx)
	if err != nil {
		c.log.Warn("reconcile: list jobs", "err", err)
		return
	}
	for _, rec := range jobs {
		c.takeUp(rec)
	}
}

// takeUp acts on a job record: an unfinished job of ours is started (or
// resumed, or finished if all its tasks are merged), or cancelled if asked.
func (c *Coordinator) takeUp(rec *queue.Job) {
	if rec.State.Final() || !c.accepts(rec.ID) {
		return
	}
	if rec.CancelRequested {
		c.cancelJob(rec.ID)
		return
	}
	j, err := c.activate(rec.ID)
	if err != nil {
		c.log.Error("start job", "job", rec.ID, "err", err)
		return
	}
	c.maybeFinish(j)
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
	jobs := make([]*job, 0, len(c.active))
	for _, j := range c.active {
		jobs = append(jobs, j)
	}
	c.mu.Unlock()
	for _, j := range jobs {
		j.mu.Lock()
		if j.finished || !all && !j.dirty && time.Since(j.ranWritten) < ranEvery {
			j.mu.Unlock()
			continue
		}
		j.dirty, j.ranWritten = false, time.Now()
		done, failed, hits, ran := j.nDone, len(j.failures), j.cacheHits, j.elapsed()
		j.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.b.UpdateJob(ctx, j.id, func(r *queue.Job) error {
			if r.State.Final() || r.Done > done || r.Done == done && r.RunSeconds >= ran.Seconds() {
				return queue.ErrNoChange
			}
			r.Done, r.Failed, r.CacheHits = done, failed, hits
			r.RunSeconds = ran.Seconds()
			return nil
		})
		cancel()
		if err != nil {
			c.log.Warn("write progress", "job", j.id, "err", err)
		}
	}
}

package coordinator

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

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
	if r.resumed {
		r.mark = c.publishedMark(r.id)
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
	rec, _, err := c.jobs.Get(ctx, r.id)
	if errors.Is(err, job.ErrNotFound) || err == nil && rec.State.Final() {
		c.drop(r, true)
		return nil
	}
	if err != nil {
		c.drop(r, false)
		return err
	}
	if rec.Spec.Kind == job.PurgeKind {
		c.drop(r, true)
		return c.runPurge(ctx, rec)
	}
	kind, ok := tasks.Lookup(rec.Spec.Kind)
	if !ok {
		c.drop(r, true)
		return c.failJob(ctx, r.id, fmt.Sprintf("unknown job kind %q (known: %v)", rec.Spec.Kind, tasks.Names()))
	}
	// A job too big is refused from its parameters, before its plan
	// takes the memory of its tasks.
	if err := tasks.CheckSize(kind, rec.Spec.Params, c.cfg.MaxTasks); err != nil {
		c.drop(r, true)
		return c.failJob(ctx, r.id, err.Error())
	}
	pickedUp := time.Now()
	out := newOutputs(c.objects, r.id)
	result := func(_ context.Context, task string) ([]byte, error) { return c.storedResult(r.id, task) }
	pctx, pcancel := context.WithTimeout(r.planCtx, 5*time.Minute)
	defer pcancel()
	plan, err := kind.Plan(pctx, rec.Spec.Params, tasks.PlanEnv{Job: r.id, Objects: c.objects, Outputs: out, Result: result, MaxTasks: c.cfg.MaxTasks})
	if err != nil && r.planCtx.Err() != nil {
		// Cancelled (the job is, and cancelJob writes so) or stopped
		// with the coordinator (the next one plans it again).
		c.drop(r, c.ctx.Err() == nil)
		return nil
	}
	if err != nil {
		c.drop(r, true)
		return c.failJob(ctx, r.id, err.Error())
	}
	list := listOf(plan)
	n := list.Len()
	if n > c.cfg.MaxTasks {
		c.drop(r, true)
		return c.failJob(ctx, r.id, fmt.Sprintf("kind %s made %s tasks, more than the %s a job may have",
			kind.Name(), tasks.Thousands(uint64(n)), tasks.Thousands(uint64(c.cfg.MaxTasks))))
	}
	if err := checkIDs(r.planCtx, kind.Name(), list); err != nil {
		if r.planCtx.Err() != nil {
			c.drop(r, c.ctx.Err() == nil)
			return nil
		}
		c.drop(r, true)
		return c.failJob(ctx, r.id, err.Error())
	}
	st, err := stagesOf(r.planCtx, kind.Name(), plan, list)
	if err != nil {
		if r.planCtx.Err() != nil {
			c.drop(r, c.ctx.Err() == nil)
			return nil
		}
		c.drop(r, true)
		return c.failJob(ctx, r.id, err.Error())
	}
	r.plan, r.out, r.kind, r.version, r.tasks = plan, out, kind.Name(), kind.Version(), list
	r.verify, r.tokenKey = rec.Spec.Verify, c.key
	r.tries, r.notBy, r.answers, r.watched = map[int]int{}, map[int][]string{}, map[int]*answers{}, map[int]bool{}
	r.done = make([]bool, n)
	// activate publishes the open stages once the job is planned: no
	// result merged before then starts a publisher.
	r.stages, r.openEnd, r.publishing = st, n, true
	if list.keeps() {
		r.checks, r.keys = make([]string, n), make([][]byte, n)
	}
	if err := c.mergeStored(r); err != nil {
		r.plan = nil
		c.drop(r, false)
		return err
	}
	c.advance(r) // past the stages merged by an earlier life
	resumed := rec.State == job.Running
	rec, err = c.jobs.Update(ctx, r.id, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		if j.State == job.Submitted {
			j.Started = pickedUp // planning is part of the job's time
		}
		j.State = job.Running
		j.Epoch++
		j.Tasks = n
		j.Done, j.Failed, j.CachedTasks, j.CacheHits = r.nDone, len(r.failures), r.nCached, r.hits
		j.Stage, j.Stages = r.stages.progress()
		return nil
	})
	if err != nil || rec.State != job.Running {
		r.plan = nil
		c.drop(r, err == nil)
		return err
	}
	c.log.Info("job running", "job", r.id, "kind", kind.Name(), "tasks", n, "done", r.nDone, "resumed", resumed,
		"plan_seconds", time.Since(pickedUp).Seconds())
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch, r.pickedUp, r.ranWritten = rec.Epoch, pickedUp, pickedUp
	r.ranBefore = rec.Ran()
	r.planned, r.resumed = true, resumed
	for _, a := range r.pending {
		c.mergeLocked(r, a)
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
		i, ok := r.tasks.Index(s.Task)
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

// publishUnfinished publishes each task of r's open stages (every task
// of a plan that is not tasks.Staged) that is not merged, and those of
// the stages that open meanwhile, until none is left; advance starts it
// again when the next stage opens. r.publishing is set: it clears it.
func (c *Coordinator) publishUnfinished(r *run) error {
	for {
		r.mu.Lock()
		from, to := r.pubNext, r.openEnd
		if r.finished || from >= to {
			r.publishing = false
			r.mu.Unlock()
			return nil
		}
		r.mu.Unlock()
		err := c.publishRange(r, from, to)
		r.mu.Lock()
		if err != nil {
			r.publishing = false
		} else {
			r.pubNext = to
		}
		r.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// publishRange publishes each task of r from from to to-1 that is not
// merged: one whose result is in the cache is merged from there instead,
// and on a resumed job one still in the work queue (or with a worker) is
// left there: a task that is neither merged nor queued was lost with the
// previous life. Its worker acknowledged it once its result was stored,
// and that life acknowledged the result, or the parts of one too big for
// a message (as they came, keeping them until it was whole:
// broker.Work.ConsumeResults), but never merged it, or dropped it, or
// merged it without its store writing that down. Only the tasks below the
// mark that an earlier life left (r.mark) are looked for in the queue:
// those past it were never published (or, the last few, published as the
// life ended: a second copy runs twice and merges once), so that a job of
// many tasks resumes where its publishing stopped. Every task below from
// was published, merged or found queued by this life.
func (c *Coordinator) publishRange(r *run, from, to int) error {
	mark := r.mark
	for i := from; i < to; i++ {
		if i%markEvery == 0 && i > mark {
			if err := c.markPublished(r, i); err != nil {
				return err
			}
		}
		r.mu.Lock()
		if r.finished {
			r.mu.Unlock()
			return nil
		}
		if r.done[i] {
			r.mu.Unlock()
			continue
		}
		task := r.tasks.Task(i)
		t, key := r.taskMsg(i, task), r.key(i, task)
		r.mu.Unlock()
		if !task.Volatile {
			hit, err := c.fromCache(r, i, t.ID, t.Check, key)
			if err != nil {
				return err
			}
			if hit {
				continue
			}
		}
		// Each request has its own time: a job of a million tasks takes
		// minutes to publish.
		ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
		if r.resumed && i < mark {
			has, err := c.work.HasTask(ctx, r.id, t.ID)
			if err != nil || has {
				cancel()
				if err != nil {
					return err
				}
				continue
			}
		}
		err := c.work.PublishTask(ctx, t)
		cancel()
		if err != nil {
			return err
		}
	}
	if to > mark {
		return c.markPublished(r, to)
	}
	return nil
}

// markPublished writes down that every task of r below i is merged,
// queued or published, unless r is finished (its marks are dropped). A
// task of a stage not yet open is neither: no mark passes it.
func (c *Coordinator) markPublished(r *run, i int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return nil
	}
	return c.cfg.DB.Put(publishedKey(r.id), strconv.AppendInt(nil, int64(i), 10))
}

// markEvery is how often publishUnfinished writes down how far it went.
const markEvery = 1024

// publishedMark reads how far an earlier life of the coordinator went
// through job id's tasks, publishing them: every task below the mark was
// published, merged or found queued then. A mark that cannot be read is
// the start: every task is looked for.
func (c *Coordinator) publishedMark(id string) int {
	v, found, err := c.cfg.DB.Get(publishedKey(id))
	if err != nil || !found {
		return 0
	}
	mark, err := strconv.Atoi(string(v))
	if err != nil || mark < 0 {
		return 0
	}
	return mark
}

// fromCache merges task i from a result stored under key by an earlier job
// with the same task, if there is one (renewed if it was about to expire),
// and tells whether there was.
func (c *Coordinator) fromCache(r *run, i int, id, check string, key []byte) (bool, error) {
	data, found, err := c.cfg.DB.Get(key)
	if err != nil || !found {
		return false, err
	}
	if _, err := c.cfg.DB.Fresh(key); err != nil {
		return false, err
	}
	s := storedResult{Task: id, Check: check, Ref: string(key), Cached: true}
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
	if err := c.cfg.DB.Put(jobMadeKey(r.id, key), nil); err != nil {
		return false, err
	}
	if err := r.plan.Merge(s.Task, data); err != nil {
		c.failMerge(r, s.Task, err)
		return true, nil
	}
	r.markDone(i, s)
	c.metrics.TaskCached(r.kind)
	c.advance(r)
	return true, nil
}

// key returns the cache key of task i, t (r.mu held, or r not yet
// shared).
func (r *run) key(i int, t tasks.Task) []byte {
	if r.keys != nil && r.keys[i] != nil {
		return r.keys[i]
	}
	sum := sha256.Sum256(t.Payload)
	k := fmt.Appendf(nil, "cache/%s/v%d/%x", r.kind, r.version, sum)
	if r.keys != nil {
		r.keys[i] = k
	}
	return k
}

// matches tells whether a result computed for a task with this payload
// check belongs to task i. A failure may have no check: the worker could
// not read the task's message, and so no result can come for it.
func (r *run) matches(i int, check string, failed bool) bool {
	return check == "" && failed || check == r.check(i, r.tasks.Task(i))
}

// taskMsg is the message of task i, t, in this coordinator's epoch of the
// job, with its try, the workers it excludes, and its token.
func (r *run) taskMsg(i int, t tasks.Task) job.Task {
	check, try := r.check(i, t), r.tries[i]
	return job.Task{Job: r.id, ID: t.ID, Kind: r.kind, Epoch: r.epoch, Check: check, Try: try, NotBy: r.notBy[i],
		Token: job.TaskToken(r.tokenKey, r.id, t.ID, r.epoch, try, check), Payload: t.Payload}
}

// check returns the payload check of task i, t (r.mu held, or r not yet
// shared).
func (r *run) check(i int, t tasks.Task) string {
	if r.checks != nil && r.checks[i] != "" {
		return r.checks[i]
	}
	c := job.PayloadCheck(t.Payload)
	if r.checks != nil {
		r.checks[i] = c
	}
	return c
}

// checkIDs checks the ids of a plan's tasks: valid (tasks.ValidID), and
// each leading back to its task. It stops when ctx is done.
func checkIDs(ctx context.Context, kind string, list taskList) error {
	for i := range list.Len() {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		id := list.Task(i).ID
		if !tasks.ValidID(id) {
			return fmt.Errorf("kind %s made an invalid task id %q", kind, id)
		}
		switch j, ok := list.Index(id); {
		case !ok:
			return fmt.Errorf("kind %s made task %d with the id %q, which its index does not find", kind, i, id)
		case j != i:
			return fmt.Errorf("kind %s made tasks %d and %d with the id %q: ids must be unique", kind, min(i, j), max(i, j), id)
		}
	}
	return nil
}

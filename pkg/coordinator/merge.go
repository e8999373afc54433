package coordinator

import (
	"context"
	"fmt"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// markDone records task i as merged, with its result or its failure s
// (r.mu held, or r not yet shared); advance then opens the stages that
// follow a stage it completes.
func (r *run) markDone(i int, s storedResult) {
	r.done[i] = true
	if r.stages != nil {
		r.stages.merged(i, s.Failed != "")
	}
	r.lastMerge = time.Now()
	r.nDone++
	if s.Failed == "" {
		// Its check and key are made; nothing needs it any more (a task
		// done is never published again), and a big job's payloads are as
		// big as its inputs. A failed task's payload is the report's.
		r.tasks.merged(i)
	}
	r.hits += s.CacheHits
	if s.Cached {
		if r.cached == nil {
			r.cached = make([]bool, len(r.done))
		}
		r.cached[i] = true
		r.nCached++
	}
	if s.Failed != "" {
		r.failures = append(r.failures, tasks.Failure{Task: s.Task, Reason: s.Failed})
	}
	r.dirty = true
}

// handleResult merges one task result, unless it was merged before. It is
// called one result at a time.
func (c *Coordinator) handleResult(res job.Result) { c.handle(arrival{Result: res}) }

// handle merges one result, from a worker or from the coordinator itself.
func (c *Coordinator) handle(a arrival) {
	res := a.Result
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
			r.pending = append(r.pending, a)
		}
		r.mu.Unlock()
		return
	}
	c.mergeLocked(r, a)
	r.mu.Unlock()
	c.maybeFinish(r)
}

// handleDead records a task that reached MaxDeliver as failed.
func (c *Coordinator) handleDead(t job.Task, deliveries uint64) {
	c.log.Warn("task dead-lettered", "job", t.Job, "task", t.ID, "deliveries", deliveries)
	c.metrics.TaskDeadLettered(t.Kind)
	c.handle(arrival{Result: job.Result{Job: t.Job, Task: t.ID, Check: t.Check,
		Failed: fmt.Sprintf("gave up after %d deliveries (workers crashed or timed out on it, or none would take it)", deliveries)}, internal: true})
}

// mergeLocked stores a task's result once and merges it into the plan;
// r.mu is held and r is planned.
func (c *Coordinator) mergeLocked(r *run, a arrival) {
	res := a.Result
	i, ok := r.tasks.Index(res.Task)
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
		if !r.opened(i) {
			return // published when its stage opens
		}
		t := r.taskMsg(i, r.tasks.Task(i))
		c.goFunc(func() {
			ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
			defer cancel()
			if err := c.work.PublishTask(ctx, t); err != nil {
				c.log.Error("publish task", "job", t.Job, "task", t.ID, "err", err)
			}
		})
		return
	}
	if !a.internal {
		var ok bool
		if res, ok = c.admit(r, i, res); !ok {
			return
		}
	} else if res.Failed != "" && r.answers[i] != nil && r.tries[i] < maxCopies {
		// A copy that awaits a second opinion died: the workers it
		// excludes handed it back until it ran out of deliveries, while
		// the others were busy. It is published again.
		c.reissue(r, i)
		return
	}
	s := storedResult{Task: res.Task, Check: res.Check, Worker: res.Worker, Failed: res.Failed, CacheHits: res.CacheHits}
	if s.Failed == "" {
		// The data goes into the cache, the job's record points at it.
		task := r.tasks.Task(i)
		key := r.key(i, task)
		s.Ref = string(key)
		if task.Volatile {
			// Never answered from the cache: kept with the job, and
			// dropped with it.
			s.Ref = string(volatileKey(r.id, res.Task))
		}
		if err := c.cfg.DB.PutOwned([]byte(s.Ref), res.Data); err != nil { // res.Data is the message's, not shared
			c.log.Error("store result", "job", r.id, "task", res.Task, "err", err)
			return
		}
		// Who computed it, and for which job: a worker quarantined, or
		// a job purged, later takes its results out of the cache.
		err := c.cfg.DB.Put(jobMadeKey(r.id, []byte(s.Ref)), nil)
		if err == nil && res.Worker != "" {
			err = c.cfg.DB.Put(madeByKey(res.Worker, []byte(s.Ref)), nil)
		}
		if err != nil {
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
			// A result that cannot be merged is not kept for the next
			// job; one a worker of a cluster sent quarantines it.
			if derr := c.cfg.DB.DeletePrefix([]byte(s.Ref)); derr != nil {
				c.log.Error("drop a result that cannot be merged", "job", r.id, "task", res.Task, "err", derr)
			}
			if !a.internal && !c.cfg.TrustWorkers && res.Worker != "" {
				c.quarantine(r, res.Worker, fmt.Sprintf("its result of task %s/%s cannot be merged: %v", r.id, res.Task, err))
			}
			c.failMerge(r, res.Task, err)
			return
		}
		c.metrics.ResultMerged(r.kind)
	} else if err := mergeFailure(r.plan, res.Task); err != nil {
		c.failMerge(r, res.Task, err)
		return
	}
	r.markDone(i, s)
	c.advance(r)
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

// cachedTasks returns tasks.Summary.FromCache of r: whether a task was
// answered from the result cache, from a snapshot of r's tasks (r.mu held).
func (r *run) cachedTasks() func(id string) bool {
	if r.nCached == 0 {
		return nil
	}
	ids := make(map[string]bool, r.nCached)
	for i, c := range r.cached {
		if c {
			ids[r.tasks.Task(i).ID] = true
		}
	}
	return func(id string) bool { return ids[id] }
}

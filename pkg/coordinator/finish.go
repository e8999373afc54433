package coordinator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// maxInlineReport is the largest report kept in the job record itself.
const maxInlineReport = 256 << 10

// finish builds the report, writes it to the job record and forgets the
// job's stored results.
func (c *Coordinator) finish(r *run) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
	defer cancel()
	out := r.out
	r.mu.Lock()
	sum := tasks.Summary{Job: r.id, Tasks: len(r.done), Failures: append([]tasks.Failure(nil), r.failures...),
		CachedTasks: r.nCached, FromCache: r.cachedTasks(), CacheHits: r.hits, Elapsed: r.elapsed(), Outputs: out,
		Refused: r.refused, Verified: r.verified, Quarantined: slices.Clone(r.quarantined)}
	nDone := r.nDone
	stage, stages := r.stages.progress()
	var note string
	if p, ok := r.plan.(tasks.Progresses); ok {
		note = p.Progress()
	}
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
		err = c.objects.Put(ctx, repObject, repJSON)
		repJSON = nil
	}
	// Every task is merged: whatever is left in the queue (copies of
	// redelivered or republished tasks) goes before the job is seen as
	// done.
	c.purge(ctx, r.id)
	_, uerr := c.jobs.Update(ctx, r.id, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		j.Finished = time.Now()
		j.RunSeconds = sum.Elapsed.Seconds()
		j.Done, j.Failed, j.CachedTasks, j.CacheHits = nDone, len(sum.Failures), sum.CachedTasks, sum.CacheHits
		j.Stage, j.Stages = stage, stages
		j.Note = note
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
	if err := c.work.PurgeJob(ctx, id); err != nil {
		c.log.Warn("purge job tasks", "job", id, "err", err)
	}
}

// forget drops a finished, failed or cancelled job (whose tasks are purged
// already) and its stored results.
func (c *Coordinator) forget(r *run) {
	c.drop(r, true)
	for _, prefix := range [][]byte{resultPrefix(r.id), volatilePrefix(r.id), publishedKey(r.id)} {
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
		r.stop() // a plan being made stops
		r.mu.Lock()
		r.finished = true
		r.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	c.purge(ctx, id)
	_, err := c.jobs.Update(ctx, id, func(j *job.Record) error {
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
	_, err := c.jobs.Update(ctx, id, func(j *job.Record) error {
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

package coordinator

import (
	"context"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// writeProgress writes the progress of running jobs to their records, and
// reconciles now and then.
func (c *Coordinator) writeProgress() {
	t := time.NewTicker(c.cfg.ProgressEvery)
	defer t.Stop()
	rt := time.NewTicker(reconcileEvery)
	defer rt.Stop()
	reconnects := c.cfg.Conn.Reconnects()
	var soon time.Time // reconcile often until then
	var last time.Time // last reconcile
	for {
		select {
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			c.flushProgress(false)
			if n := c.cfg.Conn.Reconnects(); n != reconnects {
				reconnects, soon = n, now.Add(reconnectWindow)
			}
			if now.Before(soon) && now.Sub(last) >= reconcileSoon {
				last = now
				c.reconcile()
			}
		case now := <-rt.C:
			last = now
			c.reconcile()
			c.findLost(now)
		}
	}
}

func (c *Coordinator) reconcile() {
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	records, err := c.jobs.List(ctx)
	if err != nil {
		c.log.Warn("reconcile: list jobs", "err", err)
		return
	}
	c.states.replace(records)
	for _, rec := range records {
		c.takeUp(rec)
	}
}

// flushProgress writes the progress of running jobs to their records: those
// with new results, those whose run time was written ranEvery ago or
// more, or, with all, every one.
func (c *Coordinator) flushProgress(all bool) {
	for _, r := range c.running() {
		r.mu.Lock()
		if !r.planned || r.finished || !all && !r.dirty && time.Since(r.ranWritten) < ranEvery {
			r.mu.Unlock()
			continue
		}
		r.dirty, r.ranWritten = false, time.Now()
		done, failed, cached, hits, ran := r.nDone, len(r.failures), r.nCached, r.hits, r.elapsed()
		stage, stages := r.stages.progress()
		var note string
		if p, ok := r.plan.(tasks.Progresses); ok {
			note = p.Progress()
		}
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.jobs.Update(ctx, r.id, func(j *job.Record) error {
			if j.State.Final() || j.Done > done || j.Done == done && j.RunSeconds >= ran.Seconds() {
				return job.ErrNoChange
			}
			j.Done, j.Failed, j.CachedTasks, j.CacheHits = done, failed, cached, hits
			j.Stage, j.Stages = stage, stages
			j.Note = note
			j.RunSeconds = ran.Seconds()
			return nil
		})
		cancel()
		if err != nil {
			c.log.Warn("write progress", "job", r.id, "err", err)
		}
	}
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

// ranEvery is how often the time a job has run is written to its record
// while none of its tasks finishes (a killed coordinator's time counts up
// to its last write).
const ranEvery = time.Second

// running returns the jobs taken up, a snapshot taken under c.mu, so that
// each can be locked in turn without it.
func (c *Coordinator) running() []*run {
	c.mu.Lock()
	defer c.mu.Unlock()
	runs := make([]*run, 0, len(c.runs))
	for _, r := range c.runs {
		runs = append(runs, r)
	}
	return runs
}

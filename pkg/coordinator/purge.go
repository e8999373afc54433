package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// jobMadePrefix starts the index of the cached results that each job
// merged (computed for it, or answered from the cache).
const jobMadePrefix = "job-made/"

func jobMadeKey(jobID string, ref []byte) []byte {
	return append([]byte(jobMadePrefix+jobID+"/"), ref...)
}

// runPurge runs a purge job (job.PurgeKind) whose record is rec, at once:
// there is nothing to publish.
func (c *Coordinator) runPurge(ctx context.Context, rec *job.Record) error {
	started := time.Now()
	var p job.PurgeParams
	if err := json.Unmarshal(rec.Spec.Params, &p); err != nil {
		return c.failJob(ctx, rec.ID, fmt.Sprintf("%s parameters: %v", job.PurgeKind, err))
	}
	if err := p.Check(); err != nil {
		return c.failJob(ctx, rec.ID, err.Error())
	}
	rep := &job.PurgeReport{Worker: p.Worker, Job: p.Job}
	var err error
	if p.Worker != "" {
		c.quarantineWorker(p.Worker, "purged by "+rec.ID)
		rep.Quarantined = true
		rep.Purged, err = PurgeWorker(c.cfg.DB, p.Worker)
	} else {
		rep.Purged, err = purgeIndex(c.cfg.DB, []byte(jobMadePrefix+p.Job+"/"))
	}
	if err != nil {
		return c.failJob(ctx, rec.ID, "purge: "+err.Error())
	}
	if err := c.cfg.DB.Flush(); err != nil {
		return c.failJob(ctx, rec.ID, "purge: "+err.Error())
	}
	sum := tasks.Summary{Job: rec.ID, Elapsed: time.Since(started)}
	data, text, err := tasks.Compose(rep, sum)
	if err != nil {
		return c.failJob(ctx, rec.ID, err.Error())
	}
	_, err = c.jobs.Update(ctx, rec.ID, func(j *job.Record) error {
		if j.State.Final() {
			return job.ErrNoChange
		}
		j.State, j.Report, j.Text = job.Done, data, text
		j.Started, j.Finished, j.RunSeconds = started, time.Now(), sum.Elapsed.Seconds()
		return nil
	})
	c.log.Info("cache purged", "job", rec.ID, "worker", p.Worker, "of_job", p.Job, "results", rep.Purged)
	return err
}

// PurgeWorker deletes from a coordinator's store every cached result that
// worker computed, and returns how many.
func PurgeWorker(db *store.DB, worker string) (int, error) {
	return purgeIndex(db, []byte(madeByPrefix+worker+"/"))
}

// purgeIndex deletes the cached results that the index under prefix
// names, and the index, and returns how many it named.
func purgeIndex(db *store.DB, prefix []byte) (int, error) {
	var refs [][]byte
	err := db.Keys(prefix, func(key []byte) error {
		refs = append(refs, bytes.Clone(key[len(prefix):]))
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, ref := range refs {
		if err := db.DeletePrefix(ref); err != nil {
			return 0, err
		}
	}
	return len(refs), db.DeletePrefix(prefix)
}

package coordinator

// What the coordinator believes of a result (docs/operations.md, "Threat
// model"). A worker's credentials let it take tasks and send results; a
// rogue or broken worker could send results it never computed, or compute
// them wrong. So:
//
//   - every task the coordinator publishes carries a token, an HMAC of
//     what names the publication (job, task, epoch, try, payload check)
//     under a key that only this coordinator's store holds: a result
//     without its task's token is refused, so only a worker that was given
//     a task can answer it;
//   - a result names its worker by the subject it came on, which the
//     server lets each worker's credentials publish on for their own name
//     only (broker.resultSubject);
//   - a kind that can check a result cheaply (tasks.Checks) has it checked
//     before it is stored or merged; a result that fails its check
//     quarantines its worker;
//   - a failure, and the share of tasks a job asks to verify
//     (tasks.Spec.Verify), are not believed on one worker's word: the task
//     is published again for any worker but those that answered it, and
//     the answer two workers agree on is merged; those that disagreed with
//     it are quarantined (a failure that another worker computes is merely
//     not believed). Three answers that all differ fail the task.
//
// A quarantined worker's results are refused from then on, and what it
// computed is deleted from the result cache, so that no later job reads it.

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// taskKeyName is where the coordinator's store keeps the key of its tasks'
// tokens, made at its first start: a coordinator restarted on the same
// store accepts the results of the tasks its earlier life published.
const taskKeyName = "secret/task-key"

// loadTaskKey returns the key of the tokens of tasks, made once.
func loadTaskKey(db *store.DB) ([]byte, error) {
	key, found, err := db.Get([]byte(taskKeyName))
	if err != nil {
		return nil, fmt.Errorf("coordinator: read the task key: %w", err)
	}
	if found && len(key) == 32 {
		return key, nil
	}
	key = make([]byte, 32)
	rand.Read(key)
	if err := db.Keep([]byte(taskKeyName), key); err != nil {
		return nil, fmt.Errorf("coordinator: store the task key: %w", err)
	}
	return key, db.Flush()
}

// quarantinePrefix starts the keys of quarantined workers (the value says
// why); madeByPrefix the index of the cached results each worker computed.
const (
	quarantinePrefix = "quarantine/"
	madeByPrefix     = "made-by/"
)

func madeByKey(worker string, ref []byte) []byte {
	return append([]byte(madeByPrefix+worker+"/"), ref...)
}

// loadQuarantine reads the quarantined workers from the store.
func loadQuarantine(db *store.DB) (map[string]string, error) {
	q := map[string]string{}
	err := db.Scan([]byte(quarantinePrefix), func(key, val []byte) error {
		q[strings.TrimPrefix(string(key), quarantinePrefix)] = string(val)
		return nil
	})
	return q, err
}

// arrival is a result as the coordinator got it: from a worker, or made by
// the coordinator itself (a dead letter), which is believed.
type arrival struct {
	job.Result
	internal bool
}

// answers holds what workers answered for one task that awaits a second
// opinion, and the workers the task's copies exclude.
type answers struct {
	got []job.Result
}

func (a *answers) workers() []string {
	ws := make([]string, len(a.got))
	for i, g := range a.got {
		ws[i] = g.Worker
	}
	return ws
}

// verifies tells whether task id of job jobID is one of the share that the
// job asked to have verified by a second worker.
func verifies(jobID, id string, share float64) bool {
	if share <= 0 {
		return false
	}
	if share >= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(jobID + "/" + id))
	return float64(h.Sum64()%1_000_000) < share*1_000_000
}

// admit decides what to do with a result from a worker for task i of r,
// whose payload check matches (r.mu held, r planned). It returns the
// result to merge now, and true; or false when nothing is merged now:
// the result was refused, or is held until another worker answers.
func (c *Coordinator) admit(r *run, i int, res job.Result) (job.Result, bool) {
	t := r.tasks.Task(i)
	if res.Token != job.TaskToken(c.key, r.id, res.Task, res.Epoch, res.Try, res.Check) {
		r.refused++
		c.log.Warn("result refused: not the token of its task", "job", r.id, "task", res.Task, "worker", res.Worker, "epoch", res.Epoch)
		// Its sender may have taken the task and acknowledged it (a
		// rogue, or an honest worker answering a task that another
		// coordinator, with another store and key, published): then it
		// is gone from the queue, and is published again.
		c.reissueIfLost(r, i)
		return res, false
	}
	c.qmu.Lock()
	why, ok := c.quarantined[res.Worker]
	c.qmu.Unlock()
	if ok || res.Worker == "" {
		if res.Worker == "" {
			why = "its result names no worker"
		}
		r.refused++
		c.log.Warn("result refused: its worker is quarantined", "job", r.id, "task", res.Task, "worker", res.Worker, "why", why)
		c.exclude(r, i, res.Worker)
		return res, false
	}
	a := r.answers[i]
	if a != nil && slices.Contains(a.workers(), res.Worker) {
		return res, false // the same worker again (a redelivery): counted once
	}
	if a != nil && slices.Contains(r.notBy[i], res.Worker) {
		// It took a copy that excludes it rather than hand it back.
		c.quarantine(r, res.Worker, fmt.Sprintf("answered task %s/%s, whose copy excluded it", r.id, res.Task))
		c.exclude(r, i, res.Worker)
		return res, false
	}
	if res.Failed == "" && !c.cfg.TrustWorkers {
		if chk, ok := r.plan.(tasks.Checks); ok {
			if err := chk.Check(res.Task, res.Data); err != nil {
				c.quarantine(r, res.Worker, fmt.Sprintf("its result of task %s/%s fails its check: %v", r.id, res.Task, err))
				c.exclude(r, i, res.Worker)
				return res, false
			}
		}
	}
	second := !c.cfg.TrustWorkers && (res.Failed != "" || !t.Volatile && verifies(r.id, res.Task, r.verify))
	if a == nil {
		if !second {
			return res, true
		}
		r.answers[i] = &answers{got: []job.Result{res}}
		c.exclude(r, i, res.Worker)
		return res, false
	}
	// A second opinion: the answer two workers agree on is merged, and a
	// result computed beats a failure claimed.
	if agrees(a.got, res) {
		c.settle(r, i, res, a)
		return res, true
	}
	a.got = append(a.got, res)
	if len(a.got) >= 3 {
		delete(r.answers, i)
		ws := a.workers()
		sort.Strings(ws)
		return job.Result{Job: r.id, Task: res.Task, Check: res.Check,
			Failed: fmt.Sprintf("workers %s answered it three different ways", strings.Join(ws, ", "))}, true
	}
	c.exclude(r, i, res.Worker)
	return res, false
}

// agrees tells whether res settles a task for which got was answered:
// another worker computed the same data, or failed too; or res is a
// result computed and got holds only failures.
func agrees(got []job.Result, res job.Result) bool {
	failures := 0
	for _, g := range got {
		switch {
		case g.Failed != "" && res.Failed != "":
			return true
		case g.Failed == "" && res.Failed == "" && bytes.Equal(g.Data, res.Data):
			return true
		case g.Failed != "":
			failures++
		}
	}
	return res.Failed == "" && failures == len(got)
}

// settle ends task i's wait for a second opinion with res: the workers
// whose successful results differ from it are quarantined.
func (c *Coordinator) settle(r *run, i int, res job.Result, a *answers) {
	delete(r.answers, i)
	r.verified++
	for _, g := range a.got {
		if g.Failed == "" && res.Failed == "" && !bytes.Equal(g.Data, res.Data) {
			c.quarantine(r, g.Worker, fmt.Sprintf("its result of task %s/%s differs from %s's", r.id, res.Task, res.Worker))
		}
	}
}

// exclude publishes task i again for any worker but worker and those
// already excluded (r.mu held).
func (c *Coordinator) exclude(r *run, i int, worker string) {
	if worker != "" && !slices.Contains(r.notBy[i], worker) {
		r.notBy[i] = append(r.notBy[i], worker)
	}
	c.reissue(r, i)
}

// maxCopies bounds the publications of a task in one life of the
// coordinator that awaits a second opinion: a copy dies when only the
// workers it excludes take it (each hands it back), and is published
// again, up to this many times; then its task fails.
const maxCopies = 20

// reissue publishes task i again, as a new try (r.mu held), unless its
// stage is not open yet: it is published, excluding whom it excludes,
// when it opens.
func (c *Coordinator) reissue(r *run, i int) {
	if !r.opened(i) {
		return
	}
	r.tries[i]++
	t := r.taskMsg(i, r.tasks.Task(i))
	c.goFunc(func() {
		ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
		defer cancel()
		if err := c.work.PublishTask(ctx, t); err != nil {
			c.log.Error("publish task", "job", t.Job, "task", t.ID, "err", err)
		}
	})
}

// reissueIfLost watches task i until it is merged, and publishes it
// again if it leaves the work queue unmerged (r.mu held): a refused
// result's sender took it and acknowledges it, now or soon. A result
// forged by one that was never given the task publishes nothing: the task
// stays queued until a worker answers it. One watch per task at a time.
func (c *Coordinator) reissueIfLost(r *run, i int) {
	if r.watched[i] {
		return
	}
	r.watched[i] = true
	id := r.tasks.Task(i).ID
	c.goFunc(func() {
		defer func() {
			r.mu.Lock()
			delete(r.watched, i)
			r.mu.Unlock()
		}()
		for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
			r.mu.Lock()
			over := r.done[i] || r.finished
			r.mu.Unlock()
			if over {
				return
			}
			ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
			has, err := c.work.HasTask(ctx, r.id, id)
			cancel()
			if err != nil && c.ctx.Err() != nil {
				return
			}
			if err == nil && !has {
				r.mu.Lock()
				if !r.done[i] && !r.finished {
					c.reissue(r, i)
				}
				r.mu.Unlock()
				return
			}
			select {
			case <-c.ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	})
}

// lostAfter is how long a job goes without a result merged before the
// coordinator looks for its lost tasks (findLost).
const lostAfter = time.Minute

// findLost publishes again the tasks of jobs without progress for
// lostAfter that are neither merged nor in the work queue: a worker took
// them and acknowledged them unanswered (a rogue's way of stalling a job;
// an honest worker acknowledges a task only once its result is stored).
// Only the tasks of open stages are looked for (a later stage's are not
// published yet), at most lostBatch of a job each time.
func (c *Coordinator) findLost(now time.Time) {
	for _, r := range c.running() {
		r.mu.Lock()
		since := r.pickedUp
		if r.lastMerge.After(since) {
			since = r.lastMerge
		}
		var look []int
		if r.planned && !r.finished && now.Sub(since) >= lostAfter {
			for i, done := range r.done[:r.openEnd] {
				if len(look) == lostBatch {
					break
				}
				if !done && !r.watched[i] {
					look = append(look, i)
				}
			}
		}
		r.mu.Unlock()
		if len(look) == 0 {
			continue
		}
		c.goFunc(func() {
			ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
			defer cancel()
			for _, i := range look {
				has, err := c.work.HasTask(ctx, r.id, r.taskID(i))
				if err != nil {
					return
				}
				if !has {
					r.mu.Lock()
					if !r.done[i] && !r.finished {
						c.log.Warn("task lost: neither merged nor queued; published again", "job", r.id, "task", r.tasks.Task(i).ID)
						c.reissue(r, i)
					}
					r.mu.Unlock()
				}
			}
		})
	}
}

// taskID returns task i's id.
func (r *run) taskID(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tasks.Task(i).ID
}

const lostBatch = 1000

// Token returns the token this coordinator gives task t (job.TaskToken
// under its key): for a tool or test that publishes a task as the
// coordinator would.
func (c *Coordinator) Token(t job.Task) string {
	return job.TaskToken(c.key, t.Job, t.ID, t.Epoch, t.Try, t.Check)
}

// quarantine refuses worker's results from now on, for every job, and
// deletes what it computed from the result cache (r.mu held).
func (c *Coordinator) quarantine(r *run, worker, why string) {
	r.refused++
	if !slices.Contains(r.quarantined, worker) {
		r.quarantined = append(r.quarantined, worker)
	}
	c.quarantineWorker(worker, why)
}

// quarantineWorker refuses worker's results from now on, for every job,
// and deletes what it computed from the result cache, once.
func (c *Coordinator) quarantineWorker(worker, why string) {
	c.qmu.Lock()
	_, known := c.quarantined[worker]
	if !known {
		c.quarantined[worker] = why
	}
	c.qmu.Unlock()
	if known {
		return
	}
	c.log.Error("worker quarantined: its results are refused from now on", "worker", worker, "why", why)
	if err := c.cfg.DB.Keep([]byte(quarantinePrefix+worker), []byte(why)); err != nil {
		c.log.Error("store quarantine", "worker", worker, "err", err)
	}
	n, err := PurgeWorker(c.cfg.DB, worker)
	if err != nil {
		c.log.Error("purge a quarantined worker's results", "worker", worker, "err", err)
	}
	c.log.Warn("purged a quarantined worker's results from the cache", "worker", worker, "results", n)
}

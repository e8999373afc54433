package broker

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
)

// Results too big for one message travel as parts on the results queue
// (PublishResult), which the coordinator acknowledges as they come and
// gathers in memory until each result is whole (ConsumeResults). Parts
// travel there, and not aside, because that is all a worker may publish
// and a coordinator may read of results under the permissions of
// docs/operations.md.
//
// Acknowledging a part when it comes is safe: the worker acknowledges its
// task only once every part is stored, so a worker that dies half way
// leaves the task to be delivered again; and a coordinator that dies
// holding parts, or drops them, loses nothing for good: a coordinator
// resuming the job publishes again each task neither merged nor queued
// (pkg/coordinator, publishUnfinished), and the task, whose worker has
// acknowledged it, is not queued. But until then the job waits: the
// assembler drops parts only when they can no longer make a result, or
// when memory must be bounded.

// Bounds of the parts a coordinator holds.
const (
	// assemblyLimit bounds the bytes of parts held. Past it, the results
	// gathered are dropped, those of tasks already handed over first, then
	// the least recently added to, until the parts fit (or only the one
	// being added to is left). Dropping a result that would have been
	// whole loses its task until the coordinator resumes the job: the
	// bound is for a flood of big results, far above what jobs send at
	// once.
	assemblyLimit = 256 << 20
	// partsWithin bounds the time PublishResult takes to store the parts
	// of a result.
	partsWithin = 2 * time.Minute
	// staleAfter is how long the parts of a result that is not whole are
	// kept without a new part: they are dropped once that long has passed
	// both by this process's clock and by the times the server stored the
	// messages that came since. The first says that no redelivery (the
	// results' AckWait is 30 s) is on its way; the second, as staleAfter
	// passes partsWithin and the queue is read in the order it was stored,
	// that no part of the attempt is still to come behind a backlog.
	staleAfter = 5 * time.Minute
	// closedKept is how many attempts, whole or dropped, are remembered
	// so that their parts delivered again are ignored.
	closedKept = 4096
)

// attemptKey names one attempt at publishing a task's result, by one
// worker (the parts of another worker never complete it).
type attemptKey struct{ job, task, worker, attempt string }

// assembly is a result being gathered from its parts.
type assembly struct {
	res    job.Result // its fields, from its first part (Data nil)
	pieces [][]byte   // by index
	come   []bool     // by index: whether its part came
	count  int
	size   int
	have   int       // parts come
	bytes  int       // and their bytes
	seen   time.Time // when its last part came, by this process's clock
	stored time.Time // the latest server time of its parts
	// handed says that a result of its task was handed over: it may
	// be dropped at no cost.
	handed bool
}

// assembler gathers results from their parts. It is used by one goroutine
// (the consumer of results); held and open may be read from any.
type assembler struct {
	log        *slog.Logger
	limit      int
	staleAfter time.Duration
	asms       map[attemptKey]*assembly
	closed     map[attemptKey]bool
	order      []attemptKey // of closed, oldest first
	latest     time.Time    // the latest server time of a message
	held       atomic.Int64 // bytes of parts held
	open       atomic.Int64 // results being gathered
}

func newAssembler(log *slog.Logger, limit int, staleAfter time.Duration) *assembler {
	return &assembler{log: log, limit: limit, staleAfter: staleAfter, asms: map[attemptKey]*assembly{}, closed: map[attemptKey]bool{}}
}

// add keeps part p of result r (r.Data is the part's piece), stored by the
// server at stored and come now, and returns the whole result, with ok, if
// it was the last of its parts to come. The parts of an attempt that is
// whole or dropped are ignored.
func (a *assembler) add(r job.Result, p part, stored, now time.Time) (whole job.Result, ok bool) {
	k := attemptKey{r.Job, r.Task, r.Worker, p.attempt}
	a.sweep(k, stored, now)
	if a.closed[k] {
		return job.Result{}, false
	}
	asm := a.asms[k]
	if asm == nil {
		res := r
		res.Data = nil
		asm = &assembly{res: res, pieces: make([][]byte, p.count), come: make([]bool, p.count), count: p.count, size: p.size}
		a.asms[k] = asm
		a.open.Add(1)
	} else if asm.count != p.count || asm.size != p.size || asm.res.Check != r.Check || asm.res.Failed != r.Failed {
		a.drop(k, asm, slog.LevelWarn, "its parts disagree", "parts", p.count, "size", p.size, "check", r.Check)
		return job.Result{}, false
	}
	if asm.come[p.index] {
		return job.Result{}, false // delivered again
	}
	if asm.bytes+len(r.Data) > asm.size {
		a.drop(k, asm, slog.LevelWarn, "its parts hold more than its size", "size", asm.size)
		return job.Result{}, false
	}
	asm.pieces[p.index], asm.come[p.index] = r.Data, true
	asm.have++
	asm.bytes += len(r.Data)
	asm.seen = now
	asm.stored = later(asm.stored, stored)
	a.held.Add(int64(len(r.Data)))
	if asm.have < asm.count {
		a.bound(k)
		return job.Result{}, false
	}
	if asm.bytes != asm.size {
		a.drop(k, asm, slog.LevelWarn, "its parts hold less than its size", "size", asm.size, "bytes", asm.bytes)
		return job.Result{}, false
	}
	whole = asm.res
	whole.Data = make([]byte, 0, asm.size)
	for _, piece := range asm.pieces {
		whole.Data = append(whole.Data, piece...)
	}
	a.close(k, asm)
	a.handedOver(r.Job, r.Task)
	return whole, true
}

// whole notes a result that came whole, in one message, stored by the
// server at stored and come now.
func (a *assembler) whole(r job.Result, stored, now time.Time) {
	a.sweep(attemptKey{}, stored, now)
	a.handedOver(r.Job, r.Task)
}

// handedOver marks the results being gathered for a task whose result was
// handed over.
func (a *assembler) handedOver(jobID, task string) {
	for k, asm := range a.asms {
		if k.job == jobID && k.task == task {
			asm.handed = true
		}
	}
}

// sweep drops, but for the attempt cur, the results with no new part for
// staleAfter.
func (a *assembler) sweep(cur attemptKey, stored, now time.Time) {
	a.latest = later(a.latest, stored)
	for k, asm := range a.asms {
		if k != cur && now.Sub(asm.seen) >= a.staleAfter && a.latest.Sub(asm.stored) >= a.staleAfter {
			a.drop(k, asm, slog.LevelWarn, "no part came for a while: its publisher gave up, or its other parts went to a coordinator before this one",
				"parts", asm.count, "have", asm.have, "handed_over", asm.handed)
		}
	}
}

// bound drops, but for the attempt cur, results being gathered until the
// parts held fit the limit: those of tasks handed over first, then the
// least recently added to.
func (a *assembler) bound(cur attemptKey) {
	for int(a.held.Load()) > a.limit {
		var victim attemptKey
		var v *assembly
		for k, asm := range a.asms {
			if k != cur && (v == nil || asm.handed && !v.handed || asm.handed == v.handed && asm.seen.Before(v.seen)) {
				victim, v = k, asm
			}
		}
		if v == nil {
			return
		}
		if v.handed {
			a.drop(victim, v, slog.LevelWarn, "parts held past their bound, and its task's result was handed over",
				"held", a.held.Load(), "limit", a.limit)
		} else {
			a.drop(victim, v, slog.LevelError, "parts held past their bound: the task is published again when the coordinator resumes the job",
				"held", a.held.Load(), "limit", a.limit)
		}
	}
}

// drop forgets the result of attempt k, logging why at level.
func (a *assembler) drop(k attemptKey, asm *assembly, level slog.Level, why string, args ...any) {
	args = append([]any{"job", k.job, "task", k.task, "attempt", k.attempt, "bytes", asm.bytes, "why", why}, args...)
	a.log.Log(context.Background(), level, "dropping the parts of a result", args...)
	a.close(k, asm)
}

// close forgets the result of attempt k, and remembers that it is closed.
func (a *assembler) close(k attemptKey, asm *assembly) {
	delete(a.asms, k)
	a.open.Add(-1)
	a.held.Add(-int64(asm.bytes))
	a.closed[k] = true
	a.order = append(a.order, k)
	if len(a.order) > closedKept {
		delete(a.closed, a.order[0])
		a.order = a.order[1:]
	}
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

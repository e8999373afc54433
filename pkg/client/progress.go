package client

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// progress draws one status line on a terminal: tasks done of total, rate
// and ETA. It stays silent for the first second, with --quiet,
// and when stderr is not a terminal. A job that has done no task for
// stallAfter while no worker runs one says so: "no worker has taken a task
// for 30s (0 workers seen)".
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	tty     bool
	start   time.Time
	last    *job.Record
	drawn   bool
	stop    chan struct{}
	stopped chan struct{}

	workers    WorkerList // nil: no stall notes
	stallAfter time.Duration
	lastDone   int
	changed    time.Time // when lastDone last changed
	// before is the tasks the job had done before this run saw it (a
	// resumed job's), cached ones not counted: neither they nor the tasks
	// answered from the result cache say how fast the rest will go.
	before int
	probed time.Time // when the workers were last listed
	note   string    // why the job stalls, or ""
}

// DefaultStallAfter is how long a job may do no task, while no worker runs
// one, before its progress line says so.
const DefaultStallAfter = 30 * time.Second

// stallProbeEvery is how often a stalled job's progress lists the workers.
const stallProbeEvery = 5 * time.Second

func newProgress(o Options, workers WorkerList) *progress {
	p := &progress{w: o.Stderr, start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{}),
		workers: workers, stallAfter: o.StallAfter, changed: time.Now()}
	if p.stallAfter <= 0 {
		p.stallAfter = DefaultStallAfter
	}
	p.tty = isTerminal(o.Stderr)
	p.on = o.Progress || !o.Quiet && p.tty
	if !p.on {
		close(p.stopped)
		return p
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.checkStall()
				p.draw()
			}
		}
	}()
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) update(j *job.Record) {
	p.mu.Lock()
	if p.last == nil {
		p.before = j.Done - j.CachedTasks
	}
	if p.last == nil || j.Done != p.lastDone {
		p.lastDone, p.changed, p.note = j.Done, time.Now(), ""
	}
	p.last = j
	p.mu.Unlock()
}

// checkStall lists the workers, at most every stallProbeEvery, while the
// job has done no task for stallAfter, and notes a stall when none of
// them runs a task.
func (p *progress) checkStall() {
	p.mu.Lock()
	j, since, probed := p.last, time.Since(p.changed), p.probed
	p.mu.Unlock()
	if p.workers == nil || j == nil || j.State.Final() || since < p.stallAfter || time.Since(probed) < stallProbeEvery {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stallProbeEvery)
	list, err := p.workers.List(ctx)
	cancel()
	alive, busy := 0, 0
	now := time.Now()
	for _, w := range list {
		if w.Alive(now) {
			alive++
			busy += w.Busy
		}
	}
	note := ""
	if err == nil && busy == 0 {
		note = fmt.Sprintf("no worker has taken a task for %s (%s seen)", since.Round(time.Second), tasks.Count(alive, "worker"))
	}
	p.mu.Lock()
	if time.Since(p.changed) >= p.stallAfter { // no task done meanwhile
		p.note = note
	}
	p.probed = now
	p.mu.Unlock()
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start)
	if p.last == nil || p.tty && elapsed < time.Second {
		return
	}
	j := p.last
	line := fmt.Sprintf("%s %s: %s", j.ID, j.Spec.Kind, j.State)
	if j.Tasks > 0 {
		line = fmt.Sprintf("%s %s: %d/%d tasks (%.0f%%)%s", j.ID, j.Spec.Kind, j.Done, j.Tasks, 100*float64(j.Done)/float64(j.Tasks), stageOf(j))
		if j.CachedTasks > 0 {
			line += fmt.Sprintf(" (%d from the cache)", j.CachedTasks)
		}
		rate, eta := rateETA(j, p.before, elapsed)
		line += fmt.Sprintf(", %.1f tasks/s", rate)
		if j.Failed > 0 {
			line += fmt.Sprintf(", %d failed", j.Failed)
		}
		if eta > 0 {
			line += ", ETA " + eta.Round(time.Second).String()
		}
	}
	line += ", " + elapsed.Round(100*time.Millisecond).String()
	if j.Note != "" {
		line += "; " + j.Note
	}
	if p.note != "" {
		line += ": " + p.note
	}
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

func (p *progress) finish() {
	if p.on {
		close(p.stop)
	}
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// rateETA returns the rate at which a job computes its tasks, those done
// in elapsed, less the before done when this run first saw it and those
// answered from the result cache, and the time the rest will take at that
// rate: 0 while no task has been computed (a result cache answers tens of
// tasks in a second, and a job resumed from it would otherwise promise
// seconds for hours of work) or when every task is done.
func rateETA(j *job.Record, before int, elapsed time.Duration) (float64, time.Duration) {
	computed := j.Done - j.CachedTasks - before
	if computed <= 0 || elapsed <= 0 {
		return 0, 0
	}
	rate := float64(computed) / elapsed.Seconds()
	if j.Done >= j.Tasks {
		return rate, 0
	}
	return rate, time.Duration(float64(j.Tasks-j.Done) / rate * float64(time.Second))
}

// stageOf is ", stage s/n" for a job whose tasks run in stages (counted
// from 1: the first stage is 1/n), "" for any other.
func stageOf(j *job.Record) string {
	if j.Stages == 0 {
		return ""
	}
	return fmt.Sprintf(", stage %d/%d", min(j.Stage+1, j.Stages), j.Stages)
}

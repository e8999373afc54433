package client

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
)

// progress draws one status line on a terminal: tasks done of total, rate
// and ETA. It stays silent for the first second, with --quiet,
// and when stderr is not a terminal.
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
}

func newProgress(o Options) *progress {
	p := &progress{w: o.Stderr, start: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
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
	p.last = j
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
		rate := float64(j.Done) / elapsed.Seconds()
		line = fmt.Sprintf("%s %s: %d/%d tasks (%.0f%%), %.1f tasks/s", j.ID, j.Spec.Kind, j.Done, j.Tasks, 100*float64(j.Done)/float64(j.Tasks), rate)
		if j.Failed > 0 {
			line += fmt.Sprintf(", %d failed", j.Failed)
		}
		if rate > 0 && j.Done < j.Tasks {
			eta := time.Duration(float64(j.Tasks-j.Done) / rate * float64(time.Second))
			line += ", ETA " + eta.Round(time.Second).String()
		}
	}
	line += ", " + elapsed.Round(100*time.Millisecond).String()
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

package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Conn is a long-lived connection to a cluster for a program that submits
// and follows many jobs, such as the web server (analyze serve). Without
// Options.NATS it runs an embedded cluster, coordinator and workers
// included, which runs every job of its directory: those submitted through
// the Conn and those left unfinished by an earlier process. The commands
// (Run, Jobs, Cancel, ...) open a connection per command instead. Each
// call ends at once, with the reason, on a request the server denies for
// the user's permissions (see session.guard).
type Conn struct {
	s *session

	mu sync.Mutex
	// reports keeps the reports read from their objects: an object handed
	// over in memory (embedded) can be taken only once.
	reports map[string][]byte
}

// maxReports bounds Conn.reports.
const maxReports = 64

// Connect opens a connection as o says (NATS, Auth, Data, Workers, Queue,
// Log, MetricsAddr; the printing options are ignored).
func Connect(ctx context.Context, o Options) (*Conn, error) {
	o.Stdout, o.Stderr = io.Discard, io.Discard
	s, err := open(ctx, &o, nil, true)
	if err != nil {
		return nil, err
	}
	return &Conn{s: s, reports: map[string][]byte{}}, nil
}

// Close closes the connection; an embedded cluster hands its running tasks
// back, and they resume with the job when a cluster opens the directory
// again.
func (c *Conn) Close() { c.s.close() }

// Workers returns the workers that announced themselves and the depth of
// the work queue, as analyze workers prints them.
func (c *Conn) Workers(ctx context.Context) (WorkersReport, error) {
	ctx, done := c.s.guard(ctx)
	ws, alive, err := c.s.workerStates(ctx)
	if err != nil {
		return WorkersReport{}, done(err)
	}
	q, err := c.s.queueState(ctx)
	return WorkersReport{Workers: ws, Alive: alive, Queue: q}, done(err)
}

// Embedded tells whether the jobs run in this process.
func (c *Conn) Embedded() bool { return c.s.cluster != nil }

// Submit submits a job and returns its record. As with Run, the newest
// unfinished job with the same spec is returned instead of a second one.
func (c *Conn) Submit(ctx context.Context, spec tasks.Spec) (*job.Record, error) {
	return c.SubmitWith(ctx, func(context.Context, tasks.Inputs) (tasks.Spec, error) { return spec, nil })
}

// SubmitWith is Submit for jobs with inputs: build uploads them (see
// sudoku.SubmitCorpus) and returns the spec.
func (c *Conn) SubmitWith(ctx context.Context, build func(context.Context, tasks.Inputs) (tasks.Spec, error)) (_ *job.Record, err error) {
	ctx, done := c.s.guard(ctx)
	defer func() { err = done(err) }()
	spec, err := build(ctx, c.s.store)
	if err == nil {
		err = tasks.CheckSpec(spec) // the kinds' submit sides check it; this is for a spec made by hand
	}
	if err != nil {
		return nil, err
	}
	j, err := findUnfinished(ctx, c.s.jobs, spec)
	if err != nil || j != nil {
		return j, err
	}
	j = job.New(spec)
	if err := c.s.jobs.Create(ctx, j); err != nil {
		return nil, err
	}
	return j, nil
}

// Jobs returns every job's record, oldest first.
func (c *Conn) Jobs(ctx context.Context) ([]*job.Record, error) {
	ctx, done := c.s.guard(ctx)
	jobs, err := c.s.jobs.List(ctx)
	return jobs, done(err)
}

// Job returns a job's record; an unknown id is job.ErrNotFound. A report
// too large for the record is read from its object.
func (c *Conn) Job(ctx context.Context, id string) (_ *job.Record, err error) {
	ctx, done := c.s.guard(ctx)
	defer func() { err = done(err) }()
	j, _, err := c.s.jobs.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if j.State == job.Done && j.ReportObject != "" && len(j.Report) == 0 {
		c.mu.Lock()
		defer c.mu.Unlock()
		if r, ok := c.reports[id]; ok {
			j.Report = r
			return j, nil
		}
		var buf bytes.Buffer
		if err := c.s.store.DownloadTo(ctx, j.ReportObject, 0, &buf); err != nil {
			return nil, fmt.Errorf("job %s: report: %w", id, err)
		}
		j.Report = bytes.TrimSpace(buf.Bytes())
		if len(c.reports) >= maxReports {
			clear(c.reports)
		}
		c.reports[id] = j.Report
	}
	return j, nil
}

// Watch sends every job record as it is written, the existing ones first,
// until ctx is done.
func (c *Conn) Watch(ctx context.Context) (<-chan *job.Record, error) {
	// The guard lasts as long as the watch: it ends with ctx.
	gctx, done := c.s.guard(ctx)
	ch, err := c.s.jobs.WatchAll(gctx)
	if err != nil {
		return nil, done(err)
	}
	return ch, nil
}

// Cancel asks for a job to be cancelled and returns its record.
func (c *Conn) Cancel(ctx context.Context, id string) (*job.Record, error) {
	ctx, done := c.s.guard(ctx)
	j, err := c.s.jobs.Cancel(ctx, id)
	return j, done(err)
}

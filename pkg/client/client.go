// Package client is what the analyze command does with a job: submit it to a
// NATS cluster, or run it on an embedded cluster in this process, follow its
// progress and print its report. It also lists, inspects and cancels jobs.
package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Options say where jobs run and how they are shown.
type Options struct {
	// NATS is the server URL; empty means an embedded cluster in-process.
	NATS string
	// Auth holds the credentials and TLS settings for NATS.
	Auth broker.Auth
	// Data is the embedded cluster's directory (ignored with NATS).
	Data string
	// Workers is the number of embedded worker slots (0: one per CPU).
	Workers int
	// JSON prints exactly one JSON object on Stdout.
	JSON bool
	// Quiet turns progress off.
	Quiet bool
	// Detach returns once the job is submitted (not in embedded mode).
	Detach bool
	// Verify is the share of the job's tasks (0 to 1) that a cluster's
	// coordinator has a second worker compute (tasks.Spec.Verify).
	Verify float64
	// Queue overrides the JetStream settings of an embedded cluster.
	Queue *broker.Config
	// Outputs maps a job's output names (such as "out" or "rejects") to
	// local files to write them to once the job is done. The path
	// StdoutPath ("-") is Stdout; the report then goes to Stderr, so that
	// Stdout holds the output alone.
	Outputs map[string]string
	// Check, if set, judges a finished job's JSON report after it was
	// printed (e.g. --strict: any reject is an error), when every task
	// succeeded.
	Check func(report []byte) error
	// Render, if set, writes files drawn from a finished job's JSON report
	// (the sweep's chart) once the report is printed, whether or not
	// every task succeeded: an incomplete report says what it leaves out.
	Render func(report []byte) error

	Stdout, Stderr io.Writer
	// Progress forces progress on (true) or leaves the choice to whether
	// Stderr is a terminal (false).
	Progress bool
	Log      *slog.Logger
	// Joinable lets other commands on the same data directory run their
	// jobs on this embedded cluster (analyze serve; embedded.Options).
	Joinable bool
	// StallAfter is how long a job may do no task while no worker runs one
	// before its progress line says so (0: DefaultStallAfter).
	StallAfter time.Duration
	// MetricsAddr, if set, is where an embedded cluster that runs a job
	// serves its metrics, /healthz and /readyz (HOST:PORT).
	MetricsAddr string

	// ran tells that this client submitted or resumed the job it follows
	// (RunWith): once the job is done, it releases the job's inputs.
	ran bool
}

// DefaultDataDir is the per-user directory the embedded cluster keeps its
// state in when no --data is given.
func DefaultDataDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "wopr")
}

// ErrJobFailed is returned when a job ends failed, cancelled or with failed
// tasks; the report (if any) has been printed.
var ErrJobFailed = errors.New("job did not complete")

// session is a connection to a cluster, embedded or remote.
type session struct {
	jobs    Records
	store   Store
	queue   Queue
	workers WorkerList
	coords  Coordinators
	// guardCtx is the connection's Guard.
	guardCtx func(context.Context) (context.Context, context.CancelFunc)
	cluster  *embedded.Cluster // nil: remote
	// joined is the process whose embedded cluster this session joined
	// (see join), or nil.
	joined   *embedded.Holder
	shutdown func()
	once     sync.Once
	closed   chan struct{}
	// sinks are the files, to be renamed to the outputs' paths, that an
	// embedded coordinator writes the job's outputs to (embedded.Cluster.Sink),
	// by output name.
	sinks map[string]*os.File
}

// broker is the connection of a session: its duties (broker.Broker).
type brokerDuties interface {
	Jobs() *broker.Jobs
	Objects() *broker.Objects
	Work() *broker.Work
	Workers() *broker.Workers
	Leases() *broker.Leases
	Guard(ctx context.Context) (context.Context, context.CancelFunc)
}

func newSession(b brokerDuties, cluster *embedded.Cluster, shutdown func()) *session {
	return &session{jobs: b.Jobs(), store: b.Objects(), queue: b.Work(), workers: b.Workers(), coords: b.Leases(),
		guardCtx: b.Guard, cluster: cluster, shutdown: shutdown, closed: make(chan struct{})}
}

// guard returns ctx, ended early when the server denies a request for the
// user's permissions or the connection fails for good
// (broker.Broker.Guard), and done, which releases it and turns an error
// that this early end caused into its reason: a command says at once
// which permission it lacks instead of waiting for an answer that never
// comes.
func (s *session) guard(ctx context.Context) (_ context.Context, done func(error) error) {
	gctx, stop := s.guardCtx(ctx)
	return gctx, func(err error) error {
		cause := context.Cause(gctx)
		stop()
		if err != nil && ctx.Err() == nil && cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
		return err
	}
}

// release starts closing the session in the background: nothing more is
// read from the cluster (an embedded one flushes its stores meanwhile).
func (s *session) release() {
	s.once.Do(func() {
		go func() {
			s.shutdown()
			close(s.closed)
		}()
	})
}

// close closes the session and waits until it is closed.
func (s *session) close() {
	s.release()
	<-s.closed
}

// open connects to o.NATS, or starts an embedded cluster. With workers false
// the embedded cluster has no coordinator or workers (to read job records).
func open(ctx context.Context, o *Options, accept func(string) bool, workers bool) (*session, error) {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.NATS != "" {
		// Long enough for a 3-node cluster that lost a node to elect
		// the leaders of wopr's streams again (up to 9 s).
		octx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		b, err := broker.Attach(octx, broker.Endpoint{URL: o.NATS, Auth: o.Auth, Name: "wopr-analyze", Log: o.Log}, broker.DefaultConfig())
		if errors.Is(err, broker.ErrAuthorization) || errors.Is(err, broker.ErrTLS) {
			return nil, err // it names the server
		}
		if err != nil {
			return nil, fmt.Errorf("nats at %s: %w", broker.RedactURL(o.NATS), err)
		}
		return newSession(b, nil, b.Close), nil
	}
	dir := o.Data
	if dir == "" {
		dir = DefaultDataDir()
	}
	if !workers {
		c, err := embedded.StartBare(ctx, dir)
		if s, joined, jerr := join(ctx, o, dir, err, false); joined {
			return s, jerr
		}
		if err != nil {
			return nil, err
		}
		b := c.Broker
		return newSession(b, c, func() { _ = c.Close(context.Background()) }), nil
	}
	m, err := serveMetrics(o)
	if err != nil {
		return nil, err
	}
	c, err := embedded.Start(ctx, embedded.Options{Dir: dir, Workers: o.Workers, Accept: accept, Queue: o.Queue, Log: o.Log,
		Metrics: m.reg, Joinable: o.Joinable})
	if s, joined, jerr := join(ctx, o, dir, err, true); joined {
		m.close()
		return s, jerr
	}
	if err != nil {
		m.close()
		return nil, err
	}
	m.readyWith(c)
	b := c.Broker
	return newSession(b, c, func() {
		// Finish quickly: running tasks are handed back and resume with
		// the job next time.
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = c.Close(cctx)
		m.close()
	}), nil
}

// join opens a session on the cluster of the process that holds dir, when
// starting one failed (err) because that process holds it and lets other
// commands join (analyze serve): its jobs run there. joined is false when
// the command cannot join, and err is then its own. With say, a note on
// stderr tells where the job runs.
func join(ctx context.Context, o *Options, dir string, err error, say bool) (_ *session, joined bool, _ error) {
	var inUse *embedded.InUseError
	if !errors.As(err, &inUse) || inUse.Holder == nil || !inUse.Holder.Joinable {
		return nil, false, nil
	}
	url, auth, jerr := embedded.Join(dir)
	if jerr != nil {
		return nil, true, fmt.Errorf("%w; and %w", err, jerr)
	}
	b, berr := broker.Attach(ctx, broker.Endpoint{URL: url, Auth: auth, Name: "wopr-analyze", Log: o.Log}, broker.DefaultConfig())
	if berr != nil {
		return nil, true, fmt.Errorf("data directory %s is in use by %q (pid %d), whose cluster this command could not join: %w",
			dir, inUse.Holder.Command, inUse.Holder.PID, berr)
	}
	if say && !o.Quiet {
		fmt.Fprintf(o.Stderr, "analyze: data directory %s is in use by %q (pid %d): the job runs on its cluster\n", dir, inUse.Holder.Command, inUse.Holder.PID)
	}
	s := newSession(b, nil, b.Close)
	s.joined = inUse.Holder
	return s, true, nil
}

// inspect runs f on a session that reads and changes job records (in
// embedded mode: the server alone, no coordinator or workers), under the
// session's guard.
func inspect(ctx context.Context, o *Options, f func(context.Context, *session) error) error {
	s, err := open(ctx, o, nil, false)
	if err != nil {
		return err
	}
	defer s.close()
	ctx, done := s.guard(ctx)
	return done(f(ctx, s))
}

// Run submits a job, follows it and prints its report. In embedded mode an
// unfinished job with the same spec from an earlier run (interrupted) is
// resumed instead of starting afresh.
func Run(ctx context.Context, o Options, spec tasks.Spec) error {
	return RunWith(ctx, o, func(context.Context, tasks.Inputs) (tasks.Spec, error) { return spec, nil })
}

// RunWith is Run for jobs with inputs: build uploads them (see
// tasks.Inputs) once connected and returns the spec.
func RunWith(ctx context.Context, o Options, build func(context.Context, tasks.Inputs) (tasks.Spec, error)) (err error) {
	var (
		mu   sync.Mutex
		mine = map[string]bool{}
	)
	accept := func(id string) bool {
		mu.Lock()
		defer mu.Unlock()
		return mine[id]
	}
	s, err := open(ctx, &o, accept, true)
	if err != nil {
		return err
	}
	defer func() {
		s.close()
		s.dropSinks() // once nothing writes to them
	}()
	ctx, done := s.guard(ctx)
	defer func() { err = done(err) }()
	spec, err := build(ctx, s.store)
	if err == nil {
		err = tasks.CheckSpec(spec)
	}
	if err != nil {
		return err
	}
	spec.Verify = o.Verify
	o.ran = true

	// The same job unfinished (interrupted, detached, or another user's):
	// resume it (embedded) or follow it (cluster) rather than run it twice.
	j, err := findUnfinished(ctx, s.jobs, spec)
	if err != nil {
		return err
	}
	if j != nil && (o.Progress || !o.Quiet && isTerminal(o.Stderr)) {
		if s.cluster != nil {
			fmt.Fprintf(o.Stderr, "resuming job %s from an earlier run (%d of %d tasks done)\n", j.ID, j.Done, j.Tasks)
		} else {
			fmt.Fprintf(o.Stderr, "following job %s, submitted earlier with the same parameters (%d of %d tasks done)\n", j.ID, j.Done, j.Tasks)
		}
	}
	if o.Detach && len(o.Outputs) > 0 {
		fmt.Fprintln(o.Stderr, "analyze: --detach: the outputs are written by a client that follows the job: run the same command\n"+
			"again without --detach (it follows the job, or, once the job is done, is answered from the cache)")
	}
	fresh := j == nil
	if fresh {
		// Reserve the id before the record exists, so the embedded
		// coordinator takes the job as soon as it appears.
		j = job.New(spec)
	}
	if s.cluster != nil {
		// Before the coordinator may take the job up: its outputs go to
		// the files as it runs.
		if err := s.sink(j.ID, o.Outputs); err != nil {
			return err
		}
	}
	if s.cluster != nil || fresh {
		mu.Lock()
		mine[j.ID] = true
		mu.Unlock()
	}
	if fresh {
		if err := s.jobs.Create(ctx, j); err != nil {
			return err
		}
	} else if s.cluster != nil {
		if err := s.cluster.Resume(ctx, j.ID); err != nil {
			return err
		}
	}
	if o.Detach && s.cluster == nil {
		if o.JSON {
			return printJSON(o.Stdout, map[string]string{"job": j.ID})
		}
		fmt.Fprintln(o.Stdout, j.ID)
		return nil
	}
	return follow(ctx, s, j.ID, o)
}

// findUnfinished returns the newest unfinished job with this spec.
func findUnfinished(ctx context.Context, jobs Records, spec tasks.Spec) (*job.Record, error) {
	records, err := jobs.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, j := range slices.Backward(records) {
		if !j.State.Final() && !j.CancelRequested && j.Spec.Same(spec) {
			return j, nil
		}
	}
	return nil, nil
}

// follow waits for a job to end, showing progress, and prints its report.
func follow(ctx context.Context, s *session, id string, o Options) error {
	p := newProgress(o, s.workers)
	j, err := s.jobs.Wait(ctx, id, p.update)
	p.finish()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; job %s keeps its state (see 'analyze status %s'): %w", id, id, ctx.Err())
		}
		return err
	}
	return printReport(ctx, s, o, j)
}

// sink has the embedded coordinator write the outputs of job id that the
// user asked for (name -> path) straight to temporary files beside their
// paths, as the job makes them: those of paths that fetchOutputs would
// replace by renaming a file onto them.
func (s *session) sink(id string, outputs map[string]string) error {
	for name, path := range outputs {
		if path == StdoutPath || !replaceable(path) {
			continue
		}
		f, err := createTemp(path)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if s.sinks == nil {
			s.sinks = map[string]*os.File{}
		}
		s.sinks[name] = f
		s.cluster.Sink(tasks.OutputObject(id, name), f)
	}
	return nil
}

// dropSinks removes the temporary files of outputs that were not written.
func (s *session) dropSinks() {
	for name, f := range s.sinks {
		f.Close()
		os.Remove(f.Name())
		delete(s.sinks, name)
	}
}

// fetchOutputs writes the job's outputs that the user asked for to files:
// a new or regular file atomically (a temporary file renamed into place),
// anything else (a device such as /dev/null, a pipe, a symbolic link such
// as /dev/stdout) by writing to it, so that it stays what it is. An
// embedded coordinator wrote them to their temporary files already (see
// sink); others are copied from the object store, a part at a time. The
// files are closed after the session is released, while the cluster
// closes.
func fetchOutputs(ctx context.Context, s *session, o Options, j *job.Record) error {
	type output struct {
		path string
		f    *os.File
		tmp  bool // f is a temporary file to rename to path
	}
	var outs []output
	defer func() {
		for _, out := range outs {
			if out.f != nil {
				out.f.Close()
				if out.tmp {
					os.Remove(out.f.Name())
				}
			}
		}
	}()
	for name, path := range o.Outputs {
		obj, ok := j.Outputs[name]
		if !ok {
			return fmt.Errorf("job %s has no output %q", j.ID, name)
		}
		var out output
		if f := s.sinks[name]; f != nil {
			s.cluster.Unsink(obj)
			delete(s.sinks, name)
			outs = append(outs, output{path: path, f: f, tmp: true})
			if j.OutputParts[name] == 0 {
				continue // written to f
			}
			// Written to the store after all (by a coordinator that took
			// the job up before f was there): copied to f.
			out = outs[len(outs)-1]
			if err := f.Truncate(0); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
		} else if path == StdoutPath {
			w := bufio.NewWriterSize(o.Stdout, 1<<20)
			if err := s.store.DownloadTo(ctx, obj, j.OutputParts[name], w); err != nil {
				return fmt.Errorf("write standard output: %w", err)
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("write standard output: %w", err)
			}
			continue
		} else {
			out = output{path: path, tmp: replaceable(path)}
			var err error
			if out.tmp {
				out.f, err = createTemp(path)
			} else {
				out.f, err = os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			}
			if err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			outs = append(outs, out)
		}
		w := bufio.NewWriterSize(out.f, 1<<20)
		if err := s.store.DownloadTo(ctx, obj, j.OutputParts[name], w); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if j.ReportObject != "" && len(j.Report) == 0 {
		var buf bytes.Buffer
		if err := s.store.DownloadTo(ctx, j.ReportObject, 0, &buf); err != nil {
			return err
		}
		j.Report = bytes.TrimSpace(buf.Bytes())
	}
	if s.cluster != nil && o.ran {
		if err := s.releaseInputs(ctx, j); err != nil {
			fmt.Fprintf(o.Stderr, "analyze: job %s: its inputs stay in the store (for 14 days): %v\n", j.ID, err)
		}
	}
	s.release()
	for i, out := range outs {
		err := out.f.Close()
		if err == nil && out.tmp {
			err = os.Rename(out.f.Name(), out.path)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", out.path, err)
		}
		outs[i].f = nil
	}
	return nil
}

// releaseInputs has the kind of job j, done, delete from the store what
// only j needed of its inputs (tasks.ReleasesInputs), before the session
// closes. Only on the embedded default, whose store no other client
// shares.
func (s *session) releaseInputs(ctx context.Context, j *job.Record) error {
	k, _ := tasks.Lookup(j.Spec.Kind)
	r, ok := k.(tasks.ReleasesInputs)
	if !ok {
		return nil
	}
	if j.State != job.Done {
		return nil
	}
	jobs, err := s.jobs.List(ctx)
	if err != nil || !othersFinished(j, jobs) {
		return err
	}
	return r.ReleaseInputs(ctx, s.store, j.Spec.Params)
}

// othersFinished tells whether every job of jobs other than j is final:
// an unfinished one reads its inputs when it is resumed, and may share
// pieces with j's.
func othersFinished(j *job.Record, jobs []*job.Record) bool {
	for _, o := range jobs {
		if o.ID != j.ID && !o.State.Final() {
			return false
		}
	}
	return true
}

// replaceable tells whether an output may be written by renaming a new
// file onto path: it does not exist yet, or it is a regular file. Renaming
// onto /dev/null, a pipe or a symbolic link would replace it by a file, so
// those are written to (truncated first, if what they lead to is a file).
func replaceable(path string) bool {
	st, err := os.Lstat(path)
	return err != nil || st.Mode().IsRegular()
}

// partialMark names the temporary files of outputs being written:
// ".<output's name>.wopr-partial-<random>", beside the output.
const partialMark = ".wopr-partial-"

// createTemp creates a new file beside path to be renamed to it, with the
// permissions a new file gets from the user's umask (os.CreateTemp would
// make it private). The file is locked while this process has it open
// (the lock goes with the process, however it ends), and the temporary
// files of path left by processes that died writing them (unlocked) are
// removed: a run killed while it wrote a large output would otherwise
// leave it behind, as big as what it had written.
func createTemp(path string) (*os.File, error) {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)+partialMark
	for {
		f, err := os.OpenFile(filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		removeAbandoned(dir, prefix, f.Name())
		return f, nil
	}
}

// removeAbandoned removes the files of dir whose names start with prefix,
// other than mine, that no process holds locked.
func removeAbandoned(dir, prefix, mine string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := filepath.Join(dir, e.Name())
		if !strings.HasPrefix(e.Name(), prefix) || name == mine {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.Remove(name)
		}
		f.Close()
	}
}

func printReport(ctx context.Context, s *session, o Options, j *job.Record) error {
	if j.State == job.Done {
		if err := fetchOutputs(ctx, s, o, j); err != nil {
			return err
		}
		if o.JSON {
			if _, err := o.reportTo().Write(append(j.Report, '\n')); err != nil {
				return err
			}
		} else {
			fmt.Fprint(o.reportTo(), j.Text)
		}
		if o.Render != nil {
			if err := o.Render(j.Report); err != nil {
				return err
			}
		}
		if j.Failed > 0 {
			return fmt.Errorf("job %s: %d of %d tasks failed: %w", j.ID, j.Failed, j.Tasks, ErrJobFailed)
		}
		if o.Check != nil {
			return o.Check(j.Report)
		}
		return nil
	}
	if o.JSON {
		// Still exactly one object on stdout: the job's state.
		if err := printJSON(o.reportTo(), j.Summary()); err != nil {
			return err
		}
	}
	switch j.State {
	case job.Failed:
		return fmt.Errorf("job %s failed: %s: %w", j.ID, j.Error, ErrJobFailed)
	case job.Cancelled:
		return fmt.Errorf("job %s was cancelled: %w", j.ID, ErrJobFailed)
	}
	return fmt.Errorf("job %s is %s (%d of %d tasks done)", j.ID, j.State, j.Done, j.Tasks)
}

// StdoutPath is the output path that stands for standard output (Stdout).
const StdoutPath = "-"

// reportTo is where the report and the summary go: Stdout, unless an
// output goes there.
func (o Options) reportTo() io.Writer {
	for _, path := range o.Outputs {
		if path == StdoutPath {
			return o.Stderr
		}
	}
	return o.Stdout
}

func printJSON(w io.Writer, v any) error {
	data, err := tasks.MarshalPlain(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Jobs lists every job.
func Jobs(ctx context.Context, o Options) error {
	return inspect(ctx, &o, func(ctx context.Context, s *session) error { return listJobs(ctx, o, s.jobs) })
}

func listJobs(ctx context.Context, o Options, records Records) error {
	jobs, err := records.List(ctx)
	if err != nil {
		return err
	}
	if o.JSON {
		list := make([]job.Summary, 0, len(jobs))
		for _, j := range jobs {
			list = append(list, j.Summary())
		}
		return printJSON(o.Stdout, map[string]any{"jobs": list})
	}
	if len(jobs) == 0 {
		fmt.Fprintln(o.Stdout, "no jobs")
		return nil
	}
	fmt.Fprintf(o.Stdout, "%-23s %-10s %-10s %13s %9s  %s\n", "ID", "KIND", "STATE", "TASKS", "SECONDS", "PARAMS")
	for _, j := range jobs {
		fmt.Fprintf(o.Stdout, "%-23s %-10s %-10s %6d/%-6d %9.2f  %s\n", j.ID, j.Spec.Kind, j.State, j.Done, j.Tasks, j.Elapsed().Seconds(), j.Spec.Params)
	}
	return nil
}

// Status prints a job's state and progress.
func Status(ctx context.Context, o Options, id string) error {
	return inspect(ctx, &o, func(ctx context.Context, s *session) error { return status(ctx, o, s.jobs, id) })
}

func status(ctx context.Context, o Options, jobs Records, id string) error {
	j, _, err := jobs.Get(ctx, id)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.Stdout, j.Summary())
	}
	fmt.Fprintf(o.Stdout, "job %s: %s %s\n", j.ID, j.Spec.Kind, j.Spec.Params)
	fmt.Fprintf(o.Stdout, "state %s, %d of %d tasks done (%d from the result cache), %d failed, %d worker cache hits, %.2f s\n",
		j.State, j.Done, j.Tasks, j.CachedTasks, j.Failed, j.CacheHits, j.Elapsed().Seconds())
	if j.Error != "" {
		fmt.Fprintf(o.Stdout, "error: %s\n", j.Error)
	}
	for _, f := range j.Failures {
		fmt.Fprintf(o.Stdout, "failed task %s: %s\n", f.Task, f.Reason)
	}
	return nil
}

// Report prints a finished job's report, or waits for it with wait.
// On the embedded default nothing runs a job between commands: waiting for
// an unfinished one resumes it in this process, as its own command would.
func Report(ctx context.Context, o Options, id string, wait bool) error {
	resume := false
	err := inspect(ctx, &o, func(ctx context.Context, s *session) error {
		j, _, err := s.jobs.Get(ctx, id)
		if err != nil {
			return err
		}
		switch {
		case j.State.Final() || !wait:
			return printReport(ctx, s, o, j)
		case s.cluster == nil:
			return follow(ctx, s, id, o)
		}
		resume = true
		return nil
	})
	if err != nil || !resume {
		return err
	}
	s, err := open(ctx, &o, func(job string) bool { return job == id }, true)
	if err != nil {
		return err
	}
	defer s.close()
	ctx, done := s.guard(ctx)
	if err := s.cluster.Resume(ctx, id); err != nil {
		return done(err)
	}
	return done(follow(ctx, s, id, o))
}

// Cancel asks for a job to be cancelled.
func Cancel(ctx context.Context, o Options, id string) error {
	return inspect(ctx, &o, func(ctx context.Context, s *session) error { return cancel(ctx, o, s, id) })
}

func cancel(ctx context.Context, o Options, s *session, id string) error {
	j, err := s.jobs.Cancel(ctx, id)
	if err != nil {
		return err
	}
	if s.cluster != nil && !j.State.Final() {
		// No coordinator runs here: mark it cancelled directly.
		j, err = s.jobs.Update(ctx, id, func(r *job.Record) error {
			if r.State.Final() {
				return job.ErrNoChange
			}
			r.State, r.Finished = job.Cancelled, time.Now()
			return nil
		})
		if err != nil {
			return err
		}
		_ = s.queue.PurgeJob(ctx, id)
	}
	if o.JSON {
		return printJSON(o.Stdout, j.Summary())
	}
	if j.State.Final() {
		fmt.Fprintf(o.Stdout, "job %s is %s\n", j.ID, j.State)
	} else {
		fmt.Fprintf(o.Stdout, "job %s: cancellation requested\n", j.ID)
	}
	return nil
}

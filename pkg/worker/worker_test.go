package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// fake is the cluster as a worker sees it: a work queue of deliveries that
// the test fills, and a broker that records the results published. Every
// answer a delivery gets is logged in order, with the results, so that a
// test can check that a result went out before its task's ack.
type fake struct {
	mu      sync.Mutex
	queue   chan *delivery
	log     []string
	records map[string]*job.Record
	ackWait time.Duration
	fail    error // PublishResult fails with it
}

func newFake() *fake {
	return &fake{queue: make(chan *delivery, 100), records: map[string]*job.Record{}, ackWait: time.Minute}
}

func (f *fake) note(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, fmt.Sprintf(format, args...))
}

func (f *fake) notes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func (f *fake) Next(ctx context.Context, wait time.Duration) (job.Delivery, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case d := <-f.queue:
		return d, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, nil
	}
}

func (f *fake) AckWait() time.Duration { return f.ackWait }

func (f *fake) PublishResult(_ context.Context, r job.Result) error {
	if f.fail != nil {
		return f.fail
	}
	if r.Failed != "" {
		f.note("failed %s: %s", r.Task, r.Failed)
	} else {
		f.note("result %s: %s (check %s)", r.Task, r.Data, r.Check)
	}
	return nil
}

func (f *fake) Get(_ context.Context, id string) (*job.Record, uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.records[id]; ok {
		return r, 1, nil
	}
	return &job.Record{ID: id, State: job.Running}, 1, nil
}

func (f *fake) Flush(time.Duration) error { return nil }

// delivery is one delivery of a task, which notes how it was answered.
type delivery struct {
	f         *fake
	task      job.Task
	err       error
	delivered uint64
	beats     chan struct{}
}

func (f *fake) deliver(t job.Task, delivered uint64) *delivery {
	return f.deliverErr(t, delivered, nil)
}

// deliverErr delivers a message that reads as err (set before the worker
// can read it).
func (f *fake) deliverErr(t job.Task, delivered uint64, err error) *delivery {
	d := &delivery{f: f, task: t, err: err, delivered: delivered, beats: make(chan struct{}, 100)}
	f.queue <- d
	return d
}

func (d *delivery) Task() (job.Task, error) { return d.task, d.err }
func (d *delivery) Delivered() uint64       { return d.delivered }
func (d *delivery) Heartbeat() error {
	select {
	case d.beats <- struct{}{}:
	default:
	}
	return nil
}
func (d *delivery) Ack(context.Context) error { d.f.note("ack %s", d.task.ID); return nil }
func (d *delivery) HandBack() error           { d.f.note("hand back %s", d.task.ID); return nil }
func (d *delivery) Retry(after time.Duration) error {
	d.f.note("retry %s after %v", d.task.ID, after)
	return nil
}
func (d *delivery) Terminate(reason string) error {
	d.f.note("terminate %s: %s", d.task.ID, reason)
	return nil
}

// echo is a job kind for these tests: a task's result is its payload;
// payloads "permanent", "transient", "panic" and "block" fail or wait.
type echo struct{}

func (echo) Name() string { return "workertest.echo" }
func (echo) Version() int { return 1 }
func (echo) Plan(context.Context, json.RawMessage, tasks.PlanEnv) (tasks.Plan, error) {
	return nil, errors.New("not planned in these tests")
}
func (echo) NewRunner(tasks.Env) tasks.Runner { return echoRunner{} }

type echoRunner struct{}

func (echoRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	switch string(payload) {
	case "permanent":
		return tasks.Output{}, tasks.Permanent(errors.New("never"))
	case "transient":
		return tasks.Output{}, errors.New("not now")
	case "panic":
		var none []int
		_ = none[len(payload)] // a bug: an index out of range
	case "block":
		<-ctx.Done()
		return tasks.Output{}, ctx.Err()
	case "hits":
		return tasks.Output{Data: payload, CacheHits: 3}, nil
	}
	return tasks.Output{Data: payload}, nil
}

func init() { tasks.Register(echo{}) }

func task(id, payload string) job.Task {
	return job.Task{Job: "j", ID: id, Kind: "workertest.echo", Epoch: 1, Check: job.PayloadCheck([]byte(payload)), Payload: []byte(payload)}
}

func startWorker(t *testing.T, f *fake, slots int) *Worker {
	t.Helper()
	w, err := Start(Config{Name: "w", Concurrency: slots, Source: f, Results: f, Jobs: f, Conn: f})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	return w
}

// waitNotes polls the fake's log until it has n entries, for up to a minute.
func waitNotes(t *testing.T, f *fake, n int) []string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		notes := f.notes()
		if len(notes) >= n {
			return notes
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answers, want %d: %q", len(notes), n, notes)
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
}

// A task's result, with its task's check, is published before the task is
// acknowledged.
func TestResultBeforeAck(t *testing.T) {
	f := newFake()
	startWorker(t, f, 1)
	f.deliver(task("t1", "42"), 1)
	got := waitNotes(t, f, 2)
	want := []string{"result t1: 42 (check " + job.PayloadCheck([]byte("42")) + ")", "ack t1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("answers %q, want %q", got, want)
	}
}

// A task that can never succeed (an error marked permanent, a panic, a
// kind no worker knows) is reported with the reason, then terminated; the
// worker goes on. A message that is not a task is delivered again until it
// is dead: no failure can be sent without its task's token.
func TestPermanentFailuresReported(t *testing.T) {
	f := newFake()
	w := startWorker(t, f, 1)
	f.deliver(task("p", "permanent"), 1)
	f.deliver(task("x", "panic"), 1)
	f.deliverErr(job.Task{Job: "j", ID: "u"}, 1, errors.New("malformed message"))
	unknown := task("k", "1")
	unknown.Kind = "no.such.kind"
	f.deliver(unknown, 1)
	f.deliver(task("ok", "7"), 1)
	got := strings.Join(waitNotes(t, f, 9), "\n")
	for _, want := range []string{
		"failed p: never\nterminate p: never",
		"failed x: panic: runtime error: index out of range [5] with length 0",
		"retry u after 1s",
		`failed k: unknown job kind "no.such.kind"`,
		"ack ok",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("answers lack %q:\n%s", want, got)
		}
	}
	if done, failed := w.Counts(); done != 1 || failed != 3 {
		t.Errorf("counts %d done, %d failed; want 1 and 3", done, failed)
	}
}

// A transient failure is retried later, the later the more often it was
// delivered; a result that cannot be published hands the task back.
func TestTransientFailuresRetried(t *testing.T) {
	f := newFake()
	startWorker(t, f, 1)
	f.deliver(task("a", "transient"), 1)
	f.deliver(task("b", "transient"), 3)
	got := waitNotes(t, f, 2)
	if got[0] != "retry a after 500ms" || got[1] != "retry b after 2s" {
		t.Errorf("answers %q, want retries after 500ms and 2s", got)
	}
	g := newFake()
	g.fail = errors.New("no server")
	startWorker(t, g, 1)
	g.deliver(task("c", "1"), 1)
	if got := waitNotes(t, g, 1); got[0] != "hand back c" {
		t.Errorf("answers %q, want the task handed back", got)
	}
}

// A running task sends heartbeats every quarter of AckWait; when its job
// is cancelled, it stops and is handed back; a leftover copy of a task of
// a finished job is acknowledged without running.
func TestHeartbeatsAndCancelledJobs(t *testing.T) {
	f := newFake()
	f.ackWait = 40 * time.Millisecond
	startWorker(t, f, 1)
	d := f.deliver(task("b", "block"), 1)
	for range 3 {
		select {
		case <-d.beats:
		case <-time.After(time.Minute):
			t.Fatal("no heartbeat")
		}
	}
	f.mu.Lock()
	f.records["j"] = &job.Record{ID: "j", State: job.Running, CancelRequested: true}
	f.mu.Unlock()
	if got := waitNotes(t, f, 1); got[0] != "hand back b" {
		t.Errorf("answers %q, want the task of the cancelled job handed back", got)
	}
	f.deliver(task("late", "1"), 1)
	if got := waitNotes(t, f, 2); got[1] != "ack late" {
		t.Errorf("answers %q, want the leftover acknowledged without a result", got)
	}
}

// Close with a context that ends hands the running tasks back.
func TestCloseHandsBack(t *testing.T) {
	f := newFake()
	f.ackWait = 40 * time.Millisecond
	w, err := Start(Config{Name: "w", Concurrency: 1, Source: f, Results: f, Jobs: f, Conn: f})
	if err != nil {
		t.Fatal(err)
	}
	d := f.deliver(task("b", "block"), 1)
	select {
	case <-d.beats: // it runs
	case <-time.After(time.Minute):
		t.Fatal("no heartbeat")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Close(ctx); err == nil {
		t.Error("Close with an ended context: no error, want the tasks handed back said")
	}
	if got := waitNotes(t, f, 1); got[0] != "hand back b" {
		t.Errorf("answers %q, want the running task handed back", got)
	}
}

// counts is a Metrics that counts the calls by hook and kind.
type counts struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *counts) add(key string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[key] += n
}

func (c *counts) get() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

func (c *counts) TaskDone(kind string, seconds float64) {
	c.add("done "+kind, 1)
	if seconds < 0 || seconds > 60 {
		c.add("bad seconds "+kind, 1)
	}
}
func (c *counts) TaskFailed(kind string)         { c.add("failed "+kind, 1) }
func (c *counts) TaskRetried(kind string)        { c.add("retried "+kind, 1) }
func (c *counts) TaskRedelivered(kind string)    { c.add("redelivered "+kind, 1) }
func (c *counts) CacheHits(kind string, n int64) { c.add("hits "+kind, n) }

// Each hook counts what happened to the tasks, by kind; a kind the worker
// does not know is labelled "unknown", so that a label's values stay those
// of the kinds linked in.
func TestMetricsCounted(t *testing.T) {
	f := newFake()
	m := &counts{n: map[string]int64{}}
	w, err := Start(Config{Name: "w", Concurrency: 1, Source: f, Results: f, Jobs: f, Conn: f, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	f.deliver(task("a", "1"), 1)
	f.deliver(task("b", "hits"), 2)
	f.deliver(task("p", "permanent"), 1)
	f.deliver(task("r", "transient"), 3)
	unknown := task("k", "1")
	unknown.Kind = "no.such.kind"
	f.deliver(unknown, 4)
	const echo = "workertest.echo"
	want := map[string]int64{
		"done " + echo: 2, "hits " + echo: 3, "failed " + echo: 1, "retried " + echo: 1,
		"redelivered " + echo: 2, "redelivered unknown": 1, "failed unknown": 1,
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got := m.get()
		if maps.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics %v, want %v", got, want)
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
}

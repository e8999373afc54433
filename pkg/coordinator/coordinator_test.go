package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// fakeBroker is the cluster as the coordinator sees it, in memory: job
// records, the work queue (what was published, and what is still queued),
// and the queues of results and dead letters, which the test feeds.
type fakeBroker struct {
	mu        sync.Mutex
	records   map[string]*job.Record
	watchers  []chan *job.Record
	published []job.Task
	queued    map[string]bool // job/task
	purged    []string
	objects   memObjects

	results chan job.Result
	dead    chan job.Task

	// holdAt, if set, holds every publish once that many tasks are
	// published, until its context is done (a coordinator stopped while
	// it publishes a job).
	holdAt int
	// looks counts the calls of HasTask.
	looks int
}

func newFakeBroker() *fakeBroker {
	return &fakeBroker{records: map[string]*job.Record{}, queued: map[string]bool{}, objects: memObjects{},
		results: make(chan job.Result, 100), dead: make(chan job.Task, 10)}
}

func (f *fakeBroker) EnsureConsumers(context.Context) error { return nil }

func (f *fakeBroker) ConsumeResults(ctx context.Context, handle func(job.Result)) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case r := <-f.results:
			handle(r)
		}
	}
}

func (f *fakeBroker) ConsumeDead(ctx context.Context, handle func(job.Task, uint64)) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case t := <-f.dead:
			handle(t, 6)
		}
	}
}

// clone copies a record, as a decoded KV value would be.
func clone(r *job.Record) *job.Record {
	data, _ := json.Marshal(r)
	var c job.Record
	_ = json.Unmarshal(data, &c)
	return &c
}

func (f *fakeBroker) WatchAll(ctx context.Context) (<-chan *job.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan *job.Record, 1000)
	for _, r := range f.records {
		ch <- clone(r)
	}
	f.watchers = append(f.watchers, ch)
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, w := range f.watchers {
			if w == ch {
				f.watchers = append(f.watchers[:i], f.watchers[i+1:]...)
				close(ch)
			}
		}
	})
	return ch, nil
}

// put stores a record and tells the watchers; f.mu is held.
func (f *fakeBroker) put(r *job.Record) {
	f.records[r.ID] = clone(r)
	for _, w := range f.watchers {
		w <- clone(r)
	}
}

func (f *fakeBroker) List(context.Context) ([]*job.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var list []*job.Record
	for _, r := range f.records {
		list = append(list, clone(r))
	}
	job.Sort(list)
	return list, nil
}

func (f *fakeBroker) Get(_ context.Context, id string) (*job.Record, uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.records[id]
	if !ok {
		return nil, 0, fmt.Errorf("job %q: %w", id, job.ErrNotFound)
	}
	return clone(r), 1, nil
}

func (f *fakeBroker) Update(_ context.Context, id string, change func(*job.Record) error) (*job.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.records[id]
	if !ok {
		return nil, fmt.Errorf("job %q: %w", id, job.ErrNotFound)
	}
	c := clone(r)
	if err := change(c); err != nil {
		if errors.Is(err, job.ErrNoChange) {
			return c, nil
		}
		return c, err
	}
	f.put(c)
	return clone(c), nil
}

func (f *fakeBroker) submit(t *testing.T, kind string, params any) string {
	t.Helper()
	raw, _ := json.Marshal(params)
	r := job.New(tasks.Spec{Kind: kind, Params: raw})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.put(r)
	return r.ID
}

func (f *fakeBroker) PublishTask(ctx context.Context, t job.Task) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.holdAt > 0 && len(f.published) >= f.holdAt {
		f.mu.Unlock()
		<-ctx.Done()
		f.mu.Lock()
		return ctx.Err()
	}
	f.published = append(f.published, t)
	f.queued[t.Job+"/"+t.ID] = true
	return nil
}

func (f *fakeBroker) HasTask(_ context.Context, jobID, task string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	return f.queued[jobID+"/"+task], nil
}

func (f *fakeBroker) PurgeJob(_ context.Context, jobID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.purged = append(f.purged, jobID)
	for k := range f.queued {
		if strings.HasPrefix(k, jobID+"/") {
			delete(f.queued, k)
		}
	}
	return nil
}

func (f *fakeBroker) Reconnects() uint64 { return 0 }
func (f *fakeBroker) publishedTasks() []job.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]job.Task(nil), f.published...)
}

type memObjects map[string][]byte

func (m memObjects) Get(_ context.Context, name string) ([]byte, error) { return m[name], nil }
func (m memObjects) Put(_ context.Context, name string, data []byte) error {
	m[name] = data
	return nil
}

// Create gathers the object to put it whole once the writer is closed.
func (m memObjects) Create(_ context.Context, name string) (io.WriteCloser, error) {
	return &memWriter{m: m, name: name}, nil
}

type memWriter struct {
	m    memObjects
	name string
	data []byte
}

func (w *memWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	return len(p), nil
}

func (w *memWriter) Close() error { return w.m.Put(context.Background(), w.name, w.data) }

// squares is a job kind for these tests: task i's result is i*i, the
// report their sum. Its report fails on a result merged twice or missing,
// and its plan waits at a gate if asked to.
type squares struct{}

type squaresParams struct {
	N    int    `json:"n"`
	Gate string `json:"gate,omitempty"` // the plan waits for it
	Bad  int    `json:"bad,omitempty"`  // with Bad > 0, task Bad-1's result cannot be merged
	From int    `json:"from,omitempty"` // task i squares From+i
	Dup  bool   `json:"dup,omitempty"`  // the last task has the id of the first
	// StageOf, if set, is the stage of each task: the plan is then a
	// tasks.Staged.
	StageOf []int `json:"stage_of,omitempty"`
}

func (squares) Name() string { return "coordtest.squares" }
func (squares) Version() int { return 1 }

var (
	gatesMu sync.Mutex
	gates   = map[string]chan struct{}{}
	waiting = map[string]chan struct{}{}
	nGates  int // gates made, for newGate's names
)

// newGate names a gate no run of the tests has used: with -count=N, a
// name used before would be the gate the first run closed.
func newGate(base string) string {
	gatesMu.Lock()
	defer gatesMu.Unlock()
	nGates++
	return base + "-" + strconv.Itoa(nGates)
}

// gateChans returns the gate a plan waits at and the channel closed when it
// starts waiting.
func gateChans(name string) (gate, started chan struct{}) {
	gatesMu.Lock()
	defer gatesMu.Unlock()
	if gates[name] == nil {
		gates[name], waiting[name] = make(chan struct{}), make(chan struct{})
	}
	return gates[name], waiting[name]
}

func (squares) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p squaresParams
	if err := json.Unmarshal(raw, &p); err != nil || p.N < 1 {
		return nil, tasks.Invalid("coordtest.squares: want n of 1 or more, got %s", raw)
	}
	if p.Gate != "" {
		gate, started := gateChans(p.Gate)
		gatesMu.Lock()
		select {
		case <-started:
		default:
			close(started)
		}
		gatesMu.Unlock()
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	sp := &squaresPlan{p: p, merged: map[string]int{}}
	for i := range p.N {
		sp.tasks = append(sp.tasks, tasks.Task{ID: "s" + strconv.Itoa(i), Payload: []byte(strconv.Itoa(p.From + i))})
	}
	if p.Dup {
		sp.tasks[p.N-1].ID = sp.tasks[0].ID
	}
	if p.StageOf != nil {
		return stagedSquares{sp}, nil
	}
	return sp, nil
}

// stagedSquares is a squaresPlan in stages (squaresParams.StageOf).
type stagedSquares struct{ *squaresPlan }

func (s stagedSquares) Stage(i int) int { return s.p.StageOf[i] }

func (squares) NewRunner(tasks.Env) tasks.Runner { return nil } // the tests answer for the workers

type squaresPlan struct {
	p      squaresParams
	tasks  []tasks.Task
	merged map[string]int
	err    error
}

func (sp *squaresPlan) Tasks() []tasks.Task { return sp.tasks }

// Progress implements tasks.Progresses.
func (sp *squaresPlan) Progress() string { return fmt.Sprintf("%d squares merged", len(sp.merged)) }

func (sp *squaresPlan) Merge(id string, data []byte) error {
	if sp.p.Bad > 0 && id == "s"+strconv.Itoa(sp.p.Bad-1) {
		return errors.New("damaged")
	}
	if _, dup := sp.merged[id]; dup {
		sp.err = fmt.Errorf("task %s merged twice", id)
		return sp.err
	}
	v, err := strconv.Atoi(string(data))
	sp.merged[id] = v
	return err
}

// Check refuses a result that is not a square (tasks.Checks).
func (sp *squaresPlan) Check(id string, data []byte) error {
	v, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	for r := 0; r*r <= v; r++ {
		if r*r == v {
			return nil
		}
	}
	return fmt.Errorf("%d is not a square", v)
}

type squaresReport struct {
	Sum    int `json:"sum"`
	Merged int `json:"merged"`
}

func (r *squaresReport) Text() string { return fmt.Sprintf("sum %d\n", r.Sum) }

func (sp *squaresPlan) Report(_ context.Context, sum tasks.Summary) (tasks.Report, error) {
	if sp.err != nil {
		return nil, sp.err
	}
	r := &squaresReport{}
	for _, t := range sp.tasks {
		v, ok := sp.merged[t.ID]
		if !ok && !sum.Failed(t.ID) {
			return nil, fmt.Errorf("task %s never merged", t.ID)
		}
		r.Sum += v
		if ok {
			r.Merged++
		}
	}
	return r, nil
}

func init() { tasks.Register(squares{}) }

// start runs a coordinator on f with an in-memory store.
func start(t *testing.T, f *fakeBroker) *Coordinator {
	t.Helper()
	return startWith(t, f, Config{})
}

// startWith runs a coordinator on f with the limits of cfg and its
// store (cfg.DB, or one in memory).
func startWith(t *testing.T, f *fakeBroker, cfg Config) *Coordinator {
	t.Helper()
	db, own := cfg.DB, cfg.DB == nil
	if own {
		var err error
		if db, err = store.Open("", store.Options{InMemory: true}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Start(context.Background(), Config{Jobs: f, Work: f, Objects: f.objects, Conn: f, DB: db, ProgressEvery: 10 * time.Millisecond,
		MaxTasks: cfg.MaxTasks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Error(err)
		}
		if !own {
			return
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// waitRecord polls job id's record until cond holds, for up to a minute.
func waitRecord(t *testing.T, f *fakeBroker, id string, what string, cond func(*job.Record) bool) *job.Record {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r, _, err := f.Get(context.Background(), id)
		if err == nil && cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: gave up waiting for %s (record %+v, %v)", id, what, r, err)
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
}

// published waits until the tasks of job id are published n times in all.
func published(t *testing.T, f *fakeBroker, id string, n int) []job.Task {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var mine []job.Task
		for _, task := range f.publishedTasks() {
			if task.Job == id {
				mine = append(mine, task)
			}
		}
		if len(mine) >= n {
			return mine
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: %d tasks published, want %d", id, len(mine), n)
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
}

// answer is a worker's result for task t.
func answer(t job.Task) job.Result {
	i, _ := strconv.Atoi(string(t.Payload))
	return job.Result{Job: t.Job, Task: t.ID, Check: t.Check, Worker: "test", Epoch: t.Epoch, Try: t.Try, Token: t.Token, Data: []byte(strconv.Itoa(i * i))}
}

type report struct {
	squaresReport
	tasks.Common
}

func reportOf(t *testing.T, r *job.Record) report {
	t.Helper()
	if r.State != job.Done {
		t.Fatalf("job %s: %s (%s), want done", r.ID, r.State, r.Error)
	}
	var rep report
	if err := json.Unmarshal(r.Report, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func final(r *job.Record) bool { return r.State.Final() }

// Every result is merged once however often it comes; the report has the
// kind's figures and the runtime's, in JSON and in text.
func TestEachResultMergedOnce(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 5})
	for _, task := range published(t, f, id, 5) {
		for range 3 {
			f.results <- answer(task)
		}
	}
	r := waitRecord(t, f, id, "the end", final)
	rep := reportOf(t, r)
	if rep.Sum != 0+1+4+9+16 || rep.Merged != 5 || rep.Tasks != 5 || !rep.Complete || rep.FailedTasks != 0 || r.Done != 5 {
		t.Errorf("report %+v, record done %d; want sum 30 over 5 tasks, complete", rep, r.Done)
	}
	if !strings.HasPrefix(r.Text, "sum 30\n") || !strings.Contains(r.Text, "tasks                      5, 0 failed, 0 from the result cache\n") {
		t.Errorf("text %q", r.Text)
	}
	if len(f.publishedTasks()) != 5 {
		t.Errorf("%d tasks published, want 5", len(f.publishedTasks()))
	}
}

// A result that does not name its task's payload check is not merged: not
// one computed for another version of the task, and not one without a
// check at all. The task is published again, and its right result counts.
func TestResultOfAnotherTaskNotMerged(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 2})
	ts := published(t, f, id, 2)
	for _, check := range []string{"", "00000000-1"} {
		bad := answer(ts[1])
		bad.Check, bad.Data = check, []byte("1000")
		f.results <- bad
	}
	f.results <- answer(ts[0]) // handled after the wrong ones
	if r := waitRecord(t, f, id, "t0 merged", func(r *job.Record) bool { return r.Done >= 1 }); r.Done != 1 {
		t.Errorf("%d tasks done after the wrong results and t0, want 1", r.Done)
	}
	again := published(t, f, id, 4) // s1 twice more
	for _, task := range again[2:] {
		if task.ID != ts[1].ID || task.Check != ts[1].Check {
			t.Errorf("published again %s (check %s), want %s (%s)", task.ID, task.Check, ts[1].ID, ts[1].Check)
		}
	}
	f.results <- answer(ts[1])
	if rep := reportOf(t, waitRecord(t, f, id, "the end", final)); rep.Sum != 1 {
		t.Errorf("sum %d, want 1: a wrong result was merged", rep.Sum)
	}
}

// A job whose plan takes long does not hold up another job: the small job
// is published, merged and reported while the first is still planning, and
// results for the first that come meanwhile wait for its plan.
func TestSlowPlanDoesNotBlockOtherJobs(t *testing.T) {
	f := newFakeBroker()
	c := start(t, f)
	gateName := newGate(t.Name())
	gate, started := gateChans(gateName)
	slow := f.submit(t, "coordtest.squares", squaresParams{N: 3, Gate: gateName, From: 10})
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the slow plan never started")
	}
	// A result for the slow job (as from an earlier life) before its plan.
	early := job.Task{Job: slow, ID: "s2", Check: job.PayloadCheck([]byte("12")), Payload: []byte("12")}
	early.Token = job.TaskToken(c.key, early.Job, early.ID, early.Epoch, early.Try, early.Check)
	f.results <- answer(early)
	small := f.submit(t, "coordtest.squares", squaresParams{N: 4})
	for _, task := range published(t, f, small, 4) {
		f.results <- answer(task)
	}
	if rep := reportOf(t, waitRecord(t, f, small, "the small job's end", final)); rep.Sum != 14 {
		t.Errorf("small job: sum %d, want 14", rep.Sum)
	}
	if r, _, _ := f.Get(context.Background(), slow); r.State != job.Submitted {
		t.Fatalf("slow job %s while its plan waits, want submitted", r.State)
	}
	close(gate)
	r := waitRecord(t, f, slow, "the slow job running", func(r *job.Record) bool { return r.State == job.Running && r.Done == 1 })
	if r.Done != 1 {
		t.Errorf("slow job: %d done once planned, want the early result's 1", r.Done)
	}
	for _, task := range published(t, f, slow, 2) {
		f.results <- answer(task)
	}
	if rep := reportOf(t, waitRecord(t, f, slow, "the slow job's end", final)); rep.Sum != 100+121+144 || rep.Merged != 3 {
		t.Errorf("slow job: sum %d over %d, want 365 over 3", rep.Sum, rep.Merged)
	}
}

// A task that no worker could finish fails with the reason; the job ends
// incomplete, and says which task failed and why.
func TestDeadLetterFailsTask(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 3})
	ts := published(t, f, id, 3)
	f.dead <- ts[1]
	f.results <- answer(ts[0])
	f.results <- answer(ts[2])
	r := waitRecord(t, f, id, "the end", final)
	rep := reportOf(t, r)
	if rep.Complete || rep.FailedTasks != 1 || len(r.Failures) != 1 || r.Failures[0].Task != ts[1].ID ||
		!strings.Contains(r.Failures[0].Reason, "gave up after 6 deliveries") || rep.Sum != 4 {
		t.Errorf("report %+v, failures %+v", rep, r.Failures)
	}
	if !strings.Contains(r.Text, "INCOMPLETE: 1 of 3 tasks failed") {
		t.Errorf("text %q does not say the job is incomplete", r.Text)
	}
}

// A result that its plan cannot merge fails the job with the reason, and
// the job's tasks leave the queue.
func TestMergeErrorFailsJob(t *testing.T) {
	f := newFakeBroker()
	c := start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 3, Bad: 2})
	ts := published(t, f, id, 3)
	f.results <- answer(ts[1])
	r := waitRecord(t, f, id, "the end", final)
	if r.State != job.Failed || !strings.Contains(r.Error, "merge the result of task s1: damaged") {
		t.Errorf("state %s, error %q; want failed naming the task", r.State, r.Error)
	}
	// The result is not kept for the next job, and its worker is
	// quarantined.
	n := 0
	if err := c.cfg.DB.Keys([]byte("cache/"), func([]byte) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("%d results cached (%v), want none", n, err)
	}
	c.qmu.Lock()
	_, quarantined := c.quarantined["test"]
	c.qmu.Unlock()
	if !quarantined {
		t.Error("the worker whose result could not be merged is not quarantined")
	}
	if has, _ := f.HasTask(context.Background(), id, ts[0].ID); has {
		t.Error("the failed job's tasks are still queued")
	}
}

// A job cancelled while it runs is marked so, its tasks purged, and its
// later results ignored.
func TestCancel(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 3})
	ts := published(t, f, id, 3)
	if _, err := f.Update(context.Background(), id, func(r *job.Record) error { r.CancelRequested = true; return nil }); err != nil {
		t.Fatal(err)
	}
	r := waitRecord(t, f, id, "cancelled", final)
	if r.State != job.Cancelled {
		t.Fatalf("state %s, want cancelled", r.State)
	}
	for _, task := range ts {
		f.results <- answer(task)
	}
	if has, _ := f.HasTask(context.Background(), id, ts[0].ID); has {
		t.Error("tasks still queued after the cancel")
	}
	// The results are taken and ignored: a later job still runs.
	next := f.submit(t, "coordtest.squares", squaresParams{N: 1})
	for _, task := range published(t, f, next, 1) {
		f.results <- answer(task)
	}
	reportOf(t, waitRecord(t, f, next, "the next job's end", final))
	if r, _, _ := f.Get(context.Background(), id); r.State != job.Cancelled || r.Done != 0 {
		t.Errorf("cancelled job: %s with %d done, want cancelled with 0", r.State, r.Done)
	}
}

// Bad parameters and an unknown kind fail the job with the reason, and
// nothing is published.
func TestBadJobsFail(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	bad := f.submit(t, "coordtest.squares", squaresParams{N: 0})
	unknown := f.submit(t, "no.such.kind", nil)
	dup := f.submit(t, "coordtest.squares", squaresParams{N: 3, Dup: true})
	if r := waitRecord(t, f, dup, "failed", final); r.State != job.Failed ||
		r.Error != `kind coordtest.squares made tasks 0 and 2 with the id "s0": ids must be unique` {
		t.Errorf("two tasks of one id: %s, %q", r.State, r.Error)
	}
	if r := waitRecord(t, f, bad, "failed", final); r.State != job.Failed || !strings.Contains(r.Error, "want n of 1 or more") {
		t.Errorf("bad parameters: %s, %q", r.State, r.Error)
	}
	if r := waitRecord(t, f, unknown, "failed", final); r.State != job.Failed || !strings.Contains(r.Error, `unknown job kind "no.such.kind"`) {
		t.Errorf("unknown kind: %s, %q", r.State, r.Error)
	}
	if n := len(f.publishedTasks()); n != 0 {
		t.Errorf("%d tasks published, want none", n)
	}
}

// A plan of more tasks than the coordinator's limit fails its job, with
// the figures, and publishes nothing.
func TestPlanOverLimitFailsJob(t *testing.T) {
	f := newFakeBroker()
	startWith(t, f, Config{MaxTasks: 4})
	id := f.submit(t, "coordtest.squares", squaresParams{N: 5})
	r := waitRecord(t, f, id, "failed", func(r *job.Record) bool { return r.State.Final() })
	if want := "kind coordtest.squares made 5 tasks, more than the 4 a job may have"; r.State != job.Failed || r.Error != want {
		t.Errorf("job %s %q, want failed %q", r.State, r.Error, want)
	}
	if n := len(f.publishedTasks()); n != 0 {
		t.Errorf("%d tasks published, want none", n)
	}
	ok := waitRecord(t, f, f.submit(t, "coordtest.squares", squaresParams{N: 4}), "running", func(r *job.Record) bool { return r.State == job.Running })
	if ok.Tasks != 4 {
		t.Errorf("a job of 4 tasks: %d tasks, want 4", ok.Tasks)
	}
}

// A coordinator stopped while it publishes a job's tasks leaves a mark of
// how far it went; the next one looks in the queue only for the tasks
// below it and publishes the rest straight away, rather than looking for
// every task of the job. Every task is then answered and merged once.
func TestResumePublishesFromMark(t *testing.T) {
	const n, held = 5000, 3000
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	f := newFakeBroker()
	f.holdAt = held
	first := startWith(t, f, Config{DB: db})
	id := f.submit(t, "coordtest.squares", squaresParams{N: n})
	published(t, f, id, held)
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.holdAt, f.looks = 0, 0
	f.mu.Unlock()
	startWith(t, f, Config{DB: db})
	// Every task published (the last one last), then answered: no task is
	// merged while the restarted coordinator publishes.
	deadline := time.Now().Add(time.Minute)
	var list []job.Task
	for last := fmt.Sprintf("s%d", n-1); ; {
		list = f.publishedTasks()
		if slices.ContainsFunc(list, func(t job.Task) bool { return t.ID == last && t.Epoch == 2 }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks published, the last not yet", len(list))
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
	f.mu.Lock()
	looks := f.looks
	f.mu.Unlock()
	seen := map[string]bool{}
	for _, task := range list {
		if !seen[task.ID] {
			seen[task.ID] = true
			f.results <- answer(task)
		}
	}
	if len(seen) != n {
		t.Fatalf("%d of %d tasks published", len(seen), n)
	}
	r := waitRecord(t, f, id, "done", func(r *job.Record) bool { return r.State.Final() })
	var rep squaresReport
	if err := json.Unmarshal(r.Report, &rep); err != nil || r.State != job.Done || rep.Merged != n {
		t.Fatalf("job %s %q, %d merged (%v), want done with %d", r.State, r.Error, rep.Merged, err, n)
	}
	if looks > held {
		t.Errorf("the restarted coordinator looked for %d tasks in the queue, want at most the %d published before", looks, held)
	}
	t.Logf("%d tasks looked for in the queue after the restart, of %d", looks, n)
}

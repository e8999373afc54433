package embedded_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// stagedKind is a job kind whose plan runs in stages (tasks.Staged): task
// j of stage s, "s<s>-<j>", returns 1000*s+j, and the report is their sum.
// Its runner writes down when each task starts and ends (stageLogs), so
// that a test can tell whether a task started before every task of the
// stage before its own had ended.
type stagedKind struct{}

type stagedParams struct {
	Sizes []int  `json:"sizes"` // tasks of each stage
	Tag   string `json:"tag"`   // of the job's log, and its gate
	// Poison names a task that fails at once (tasks.Permanent).
	Poison string `json:"poison,omitempty"`
	// Gated, if set, is a stage whose tasks from GatedFrom on wait for
	// the gate Tag (see gate).
	Gated     *int `json:"gated,omitempty"`
	GatedFrom int  `json:"gated_from,omitempty"`
	// Late, with Gated: its tasks from Late on wait for the gate
	// Tag+lateGate instead (0: none).
	Late    int  `json:"late,omitempty"`
	Indexed bool `json:"indexed,omitempty"`
}

type stagedPayload struct {
	Stage int    `json:"stage"`
	J     int    `json:"j"`
	Tag   string `json:"tag"`
	Mode  string `json:"mode,omitempty"` // "poison", "gate" or "late"
}

func (stagedKind) Name() string { return "test.staged" }
func (stagedKind) Version() int { return 1 }

func (stagedKind) Plan(_ context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p stagedParams
	if err := json.Unmarshal(raw, &p); err != nil || len(p.Sizes) == 0 {
		return nil, tasks.Invalid("test.staged: bad params %s", raw)
	}
	sp := &stagedPlan{p: p, merged: map[string]int{}}
	for s, size := range p.Sizes {
		for j := range size {
			pl := stagedPayload{Stage: s, J: j, Tag: p.Tag}
			id := stagedID(s, j)
			switch {
			case id == p.Poison:
				pl.Mode = "poison"
			case p.Gated != nil && *p.Gated == s && p.Late > 0 && j >= p.Late:
				pl.Mode = "late"
			case p.Gated != nil && *p.Gated == s && j >= p.GatedFrom:
				pl.Mode = "gate"
			}
			payload, _ := json.Marshal(pl)
			sp.tasks = append(sp.tasks, tasks.Task{ID: id, Payload: payload})
			sp.stage = append(sp.stage, s)
		}
	}
	if p.Indexed {
		return indexedStaged{sp}, nil
	}
	return sp, nil
}

func stagedID(s, j int) string { return fmt.Sprintf("s%d-%d", s, j) }

// stagedPlan fails its report if a result was merged twice, is not its
// task's, or is missing for a task that did not fail.
type stagedPlan struct {
	p      stagedParams
	tasks  []tasks.Task
	stage  []int
	merged map[string]int
	err    error
}

func (sp *stagedPlan) Tasks() []tasks.Task { return sp.tasks }
func (sp *stagedPlan) Stage(i int) int     { return sp.stage[i] }

func (sp *stagedPlan) Merge(id string, data []byte) error {
	v, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	if _, dup := sp.merged[id]; dup {
		sp.err = fmt.Errorf("task %s merged twice", id)
		return sp.err
	}
	sp.merged[id] = v
	return nil
}

func (sp *stagedPlan) Report(_ context.Context, sum tasks.Summary) (tasks.Report, error) {
	if sp.err != nil {
		return nil, sp.err
	}
	r := &sumFigures{}
	for i, t := range sp.tasks {
		v, merged := sp.merged[t.ID]
		switch {
		case sum.Failed(t.ID) && merged:
			return nil, fmt.Errorf("task %s failed, but its result was merged", t.ID)
		case sum.Failed(t.ID):
			continue
		case !merged:
			return nil, fmt.Errorf("task %s: its result was never merged", t.ID)
		}
		var j int
		fmt.Sscanf(t.ID[strings.IndexByte(t.ID, '-')+1:], "%d", &j)
		if want := 1000*sp.stage[i] + j; v != want {
			return nil, fmt.Errorf("task %s merged as %d, its result is %d", t.ID, v, want)
		}
		r.Sum += v
		r.Merged++
	}
	return r, nil
}

// indexedStaged is a stagedPlan that the runtime reads as a
// tasks.Indexed.
type indexedStaged struct{ *stagedPlan }

func (s indexedStaged) Len() int              { return len(s.tasks) }
func (s indexedStaged) Task(i int) tasks.Task { return s.tasks[i] }
func (s indexedStaged) Index(id string) (int, bool) {
	for i, t := range s.tasks {
		if t.ID == id {
			return i, true
		}
	}
	return 0, false
}

func (stagedKind) NewRunner(tasks.Env) tasks.Runner { return stagedRunner{} }

type stagedRunner struct{}

func (stagedRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var p stagedPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	id := stagedID(p.Stage, p.J)
	l := stageLogOf(p.Tag)
	l.add(id, p.Stage, false)
	defer l.add(id, p.Stage, true)
	switch p.Mode {
	case "poison":
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("task %s is poisoned", id))
	case "gate", "late":
		tag := p.Tag
		if p.Mode == "late" {
			tag += lateGate
		}
		select {
		case <-gate(tag):
		case <-ctx.Done():
			return tasks.Output{}, ctx.Err()
		}
	}
	return tasks.Output{Data: []byte(strconv.Itoa(1000*p.Stage + p.J))}, nil
}

func init() { tasks.Register(stagedKind{}) }

// stageEvent is a task of a staged job starting or ending (its run
// returning, with its result or an error).
type stageEvent struct {
	id    string
	stage int
	end   bool
}

// stageLog is what the runs of a staged job's tasks did, in order.
type stageLog struct {
	mu     sync.Mutex
	events []stageEvent
}

var stageLogs sync.Map // tag -> *stageLog

func stageLogOf(tag string) *stageLog {
	l, _ := stageLogs.LoadOrStore(tag, &stageLog{})
	return l.(*stageLog)
}

func (l *stageLog) add(id string, stage int, end bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, stageEvent{id: id, stage: stage, end: end})
}

// checkOrder fails t if a task of the job tagged tag started before every
// task of the stage before its own had ended (sizes: the tasks of each
// stage), and returns how often each task started.
func checkOrder(t *testing.T, tag string, sizes []int) map[string]int {
	t.Helper()
	l := stageLogOf(tag)
	l.mu.Lock()
	defer l.mu.Unlock()
	starts := map[string]int{}
	ended := make([]map[string]bool, len(sizes))
	for s := range ended {
		ended[s] = map[string]bool{}
	}
	for k, e := range l.events {
		if e.end {
			ended[e.stage][e.id] = true
			continue
		}
		starts[e.id]++
		if s := e.stage; s > 0 && len(ended[s-1]) < sizes[s-1] {
			t.Errorf("event %d: task %s of stage %d started when %d of the %d tasks of stage %d had ended",
				k, e.id, s, len(ended[s-1]), sizes[s-1], s-1)
		}
	}
	return starts
}

// openWhenAlone opens gate tag once job id has done tasks done and the
// work queue holds queued tasks, waiting or with a worker: those waiting
// for the gate, when no other task was published. A runtime that
// published the tasks of a later stage too would have run them meanwhile.
func openWhenAlone(t *testing.T, b *broker.Broker, id string, done int, queued uint64, tag string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		j, _, err := b.Jobs().Get(ctxFor(t), id)
		if err != nil {
			t.Fatal(err)
		}
		n, err := b.Work().QueuedTasks(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if j.Done >= done && n == queued {
			openGate(tag)
			return
		}
		if time.Now().After(deadline) {
			openGate(tag) // the test ends: its tasks too
			t.Fatalf("job %s: %d tasks done and %d queued, want %d done and only the %d at the gate", id, j.Done, n, done, queued)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}

// stagedTotal is the sum of the results of the tasks of sizes, but those
// of the stages from `from` on.
func stagedTotal(sizes []int, from int) (sum, n int) {
	for s, size := range sizes[:from] {
		for j := range size {
			sum += 1000*s + j
			n++
		}
	}
	return sum, n
}

// The tasks of a staged plan run a stage at a time: none starts before
// every task of the stage before its own has ended, with one worker slot
// or three, and whether the plan holds its tasks or makes them when asked
// (tasks.Indexed). The last task of stage 0 waits until the others are
// done and nothing else is queued, which a runtime that published stage
// 1 with it would not meet without running stage 1's tasks. The report is
// complete and right, each task merged once and run once.
func TestStagesRunInOrder(t *testing.T) {
	sizes := []int{4, 6, 3}
	for _, tc := range []struct {
		slots   int
		indexed bool
	}{{1, false}, {3, false}, {3, true}} {
		t.Run(fmt.Sprintf("slots=%d/indexed=%v", tc.slots, tc.indexed), func(t *testing.T) {
			c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: tc.slots})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			tag, zero := uniqueTag("stages"), 0
			id := submit(t, c.Broker, "test.staged", stagedParams{Sizes: sizes, Tag: tag, Gated: &zero, GatedFrom: sizes[0] - 1, Indexed: tc.indexed})
			openWhenAlone(t, c.Broker, id, sizes[0]-1, 1, tag)
			j := wait(t, c.Broker, id)
			rep := sumReportOf(t, j)
			sum, n := stagedTotal(sizes, len(sizes))
			if rep.Sum != sum || rep.Merged != n || !rep.Complete || rep.Tasks != n {
				t.Errorf("sum %d over %d tasks (complete %v, %d tasks); want %d over %d", rep.Sum, rep.Merged, rep.Complete, rep.Tasks, sum, n)
			}
			for id, k := range checkOrder(t, tag, sizes) {
				if k != 1 {
					t.Errorf("task %s ran %d times, want once", id, k)
				}
			}
		})
	}
}

// A task that fails fails every task of the later stages without running
// them, each named with its reason; the job ends, incomplete, with the
// results of the other tasks of its stage and of the stages before.
func TestStageFailureFailsLaterStages(t *testing.T) {
	c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	sizes := []int{3, 4, 5}
	tag := uniqueTag("stage-failure")
	j := wait(t, c.Broker, submit(t, c.Broker, "test.staged", stagedParams{Sizes: sizes, Tag: tag, Poison: "s1-2"}))
	rep := sumReportOf(t, j)
	sum, n := stagedTotal(sizes, 2)
	if rep.Sum != sum-1002 || rep.Merged != n-1 || rep.Complete {
		t.Errorf("sum %d over %d tasks (complete %v); want %d over %d, incomplete", rep.Sum, rep.Merged, rep.Complete, sum-1002, n-1)
	}
	reasons := map[string]string{}
	for _, f := range j.Failures {
		reasons[f.Task] = f.Reason
	}
	if r := reasons["s1-2"]; !strings.Contains(r, "poisoned") {
		t.Errorf("task s1-2 failed with %q, want poisoned", r)
	}
	for k := range sizes[2] {
		id := stagedID(2, k)
		if r, want := reasons[id], "not run: task s1-2 of stage 1 failed"; r != want {
			t.Errorf("task %s: failure %q, want %q", id, r, want)
		}
	}
	if j.Failed != 1+sizes[2] || len(reasons) != 1+sizes[2] {
		t.Errorf("%d tasks failed (%v), want %d", j.Failed, reasons, 1+sizes[2])
	}
	for id := range checkOrder(t, tag, sizes) {
		if strings.HasPrefix(id, "s2-") {
			t.Errorf("task %s of stage 2 ran", id)
		}
	}
}

// A coordinator stopped in the middle of a stage, with the job's queue
// lost and the stage's last tasks finishing while it is down, is replaced
// by a new one on the same store: it merges what the first stored and
// what came meanwhile, publishes the stage's tasks that neither merged nor
// queued, and the next stage once they are all merged. Every task is
// merged once, and no task starts before the stage before its own ended:
// the stage's last two tasks wait until nothing else is queued.
func TestStagedJobResumes(t *testing.T) {
	r := newBare(t, *testQueue())
	for _, name := range []string{"worker-a", "worker-b"} {
		w := r.startWorker(name, 2, 0)
		t.Cleanup(func() { _ = w.Close(context.Background()) })
	}
	sizes := []int{3, 8, 4}
	tag, one := uniqueTag("stages-restart"), 1
	id := submit(t, r.client, "test.staged", stagedParams{Sizes: sizes, Tag: tag, Gated: &one, GatedFrom: 2, Late: 6})
	waitFor(t, r.client, id, "stage 0 and the open tasks of stage 1 merged", func(j *job.Record) bool { return j.Done >= sizes[0]+2 })
	r.stopCoord()
	if err := r.client.Work().PurgeJob(r.ctx, id); err != nil {
		t.Fatal(err)
	}
	openGate(tag)
	r.startCoord()
	openWhenAlone(t, r.client, id, sizes[0]+6, 2, tag+lateGate)
	j := wait(t, r.client, id)
	rep := sumReportOf(t, j)
	sum, n := stagedTotal(sizes, len(sizes))
	if rep.Sum != sum || rep.Merged != n || !rep.Complete || j.Epoch != 2 {
		t.Errorf("sum %d over %d tasks (complete %v) in epoch %d; want %d over %d in epoch 2", rep.Sum, rep.Merged, rep.Complete, j.Epoch, sum, n)
	}
	starts := checkOrder(t, tag, sizes)
	for s, size := range sizes {
		for k := range size {
			if id := stagedID(s, k); starts[id] == 0 {
				t.Errorf("task %s never ran", id)
			}
		}
	}
}

// BenchmarkStageTurn measures what a stage costs beyond its tasks on the
// embedded default: 42 tasks that do nothing, in one stage, or in 21 of 2
// tasks each (a count's plies, in miniature). The difference between the
// two, divided by 20, is the cost of a stage's turn: its last result
// merged, the next stage published, its tasks fetched.
func BenchmarkStageTurn(b *testing.B) {
	c, err := embedded.Start(context.Background(), embedded.Options{Dir: b.TempDir(), Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close(context.Background()) })
	for _, stages := range []int{1, 21} {
		b.Run(fmt.Sprintf("stages=%d", stages), func(b *testing.B) {
			sizes := make([]int, stages)
			for s := range sizes {
				sizes[s] = 42 / stages
			}
			for b.Loop() {
				raw, _ := json.Marshal(stagedParams{Sizes: sizes, Tag: uniqueTag("stage-turn")})
				j, err := c.Broker.Jobs().Submit(context.Background(), tasks.Spec{Kind: "test.staged", Params: raw})
				if err != nil {
					b.Fatal(err)
				}
				if j, err = c.Broker.Jobs().Wait(context.Background(), j.ID, nil); err != nil || j.State != job.Done || j.Failed != 0 {
					b.Fatalf("job %v: %v", j, err)
				}
			}
		})
	}
}

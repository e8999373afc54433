package embedded_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// sumKind is a job kind for runtime tests: task i returns i*i, the report is
// the sum. Payloads steer failures: "poison" fails permanently, "flaky"
// fails transiently forever, "gate" blocks until the test opens the gate.
type sumKind struct{}

type sumParams struct {
	N      int   `json:"n"`
	Poison []int `json:"poison,omitempty"`
	Flaky  []int `json:"flaky,omitempty"`
	Panics []int `json:"panics,omitempty"`
	Gated  bool  `json:"gated,omitempty"`
	Open   int   `json:"open,omitempty"` // with Gated: tasks below Open are not gated
	// Late, with Gated: tasks from Late on wait for the gate Tag+lateGate
	// instead (0: none).
	Late  int            `json:"late,omitempty"`
	Tag   string         `json:"tag,omitempty"`
	Extra map[string]int `json:"extra,omitempty"`
	// SlowPlan names a gate that the plan waits for (see planning).
	SlowPlan string `json:"slow_plan,omitempty"`
	// Indexed makes a plan that makes its tasks when asked
	// (tasks.Indexed).
	Indexed bool `json:"indexed,omitempty"`
}

// sumFigures is the kind's report: the sum of the results merged, and how
// many were.
type sumFigures struct {
	Sum    int `json:"sum"`
	Merged int `json:"merged"`
}

func (r *sumFigures) Text() string { return fmt.Sprintf("sum %d of %d tasks\n", r.Sum, r.Merged) }

// sumReport is the report as a job's record has it: the kind's figures and
// what the runtime adds.
type sumReport struct {
	sumFigures
	tasks.Common
}

// runs counts how often each payload ran, across all workers of the test
// binary; gates (one per job tag) block "gate" tasks until opened.
var (
	mu    sync.Mutex
	runs  = map[string]int{}
	gates = map[string]chan struct{}{}
)

func gate(tag string) chan struct{} {
	mu.Lock()
	defer mu.Unlock()
	g := gates[tag]
	if g == nil {
		g = make(chan struct{})
		gates[tag] = g
	}
	return g
}

func openGate(tag string) { close(gate(tag)) }

// lateGate ends the tag of the gate of late tasks (sumParams.Late).
const lateGate = "/late"

// planStarts (one per gate tag) are closed when a plan starts waiting for
// its gate.
var planStarts = map[string]chan struct{}{}

func planning(tag string) chan struct{} {
	mu.Lock()
	defer mu.Unlock()
	c := planStarts[tag]
	if c == nil {
		c = make(chan struct{})
		planStarts[tag] = c
	}
	return c
}

// planStops (one per gate tag) are closed when a plan waiting for its
// gate stops because its context is done.
var planStops = map[string]chan struct{}{}

func planStopped(tag string) chan struct{} {
	mu.Lock()
	defer mu.Unlock()
	c := planStops[tag]
	if c == nil {
		c = make(chan struct{})
		planStops[tag] = c
	}
	return c
}

var tags atomic.Int64

// uniqueTag makes a gate tag of its own for each run of a test (go test
// -count N runs a test N times in one process; a gate opens only once).
func uniqueTag(base string) string { return fmt.Sprintf("%s-%d", base, tags.Add(1)) }

func runCount(payload string) int {
	mu.Lock()
	defer mu.Unlock()
	return runs[payload]
}

func (sumKind) Name() string { return "test.sum" }
func (sumKind) Version() int { return 1 }

func (sumKind) Plan(ctx context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p sumParams
	if err := json.Unmarshal(raw, &p); err != nil || p.N < 0 {
		return nil, tasks.Invalid("test.sum: bad params %s", raw)
	}
	if p.SlowPlan != "" {
		// Planning takes until the test opens the gate (as a plan that
		// reads a big input would take seconds).
		started := planning(p.SlowPlan)
		mu.Lock()
		select {
		case <-started:
		default:
			close(started)
		}
		mu.Unlock()
		select {
		case <-gate(p.SlowPlan):
		case <-ctx.Done():
			close(planStopped(p.SlowPlan))
			return nil, ctx.Err()
		}
	}
	sp := &sumPlan{p: p, salt: planSalt.Load()}
	if p.Indexed {
		return indexedSum{sp}, nil
	}
	return sp, nil
}

// indexedSum is a sumPlan that the runtime reads as a tasks.Indexed.
type indexedSum struct{ *sumPlan }

func (s indexedSum) Len() int              { return s.p.N }
func (s indexedSum) Task(i int) tasks.Task { return s.Tasks()[i] }
func (s indexedSum) Index(id string) (int, bool) {
	i, err := strconv.Atoi(strings.TrimPrefix(id, "t"))
	return i, err == nil && i >= 0 && i < s.p.N && "t"+strconv.Itoa(i) == id
}

// sumPlan checks the runtime's side of the contract: Report fails the job
// if a result was merged twice, differs from what its task computes, or is
// missing for a task that did not fail.
type sumPlan struct {
	p      sumParams
	salt   int64
	merged map[string]int
	err    error
}

func (sp *sumPlan) Merge(id string, data []byte) error {
	v, err := strconv.Atoi(string(data))
	if err != nil {
		return err
	}
	if sp.merged == nil {
		sp.merged = map[string]int{}
	}
	if _, dup := sp.merged[id]; dup {
		sp.err = fmt.Errorf("task %s merged twice", id)
		return sp.err
	}
	sp.merged[id] = v
	return nil
}

type sumPayload struct {
	I    int    `json:"i"`
	Mode string `json:"mode,omitempty"`
	Tag  string `json:"tag,omitempty"`
	Salt int64  `json:"salt,omitempty"`
}

// planSalt is added to every task's result; a test changes it to play a
// build whose plan differs for the same parameters.
var planSalt atomic.Int64

func (sp *sumPlan) Tasks() []tasks.Task {
	mode := map[int]string{}
	for _, i := range sp.p.Poison {
		mode[i] = "poison"
	}
	for _, i := range sp.p.Flaky {
		mode[i] = "flaky"
	}
	for _, i := range sp.p.Panics {
		mode[i] = "panic"
	}
	var ts []tasks.Task
	for i := range sp.p.N {
		m := mode[i]
		if m == "" && sp.p.Gated && i >= sp.p.Open {
			m = "gate"
			if sp.p.Late > 0 && i >= sp.p.Late {
				m = "late"
			}
		}
		payload, _ := json.Marshal(sumPayload{I: i, Mode: m, Tag: sp.p.Tag, Salt: sp.salt})
		ts = append(ts, tasks.Task{ID: "t" + strconv.Itoa(i), Payload: payload})
	}
	return ts
}

func (sp *sumPlan) Report(_ context.Context, sum tasks.Summary) (tasks.Report, error) {
	if sp.err != nil {
		return nil, sp.err
	}
	r := &sumFigures{}
	for _, t := range sp.Tasks() {
		v, merged := sp.merged[t.ID]
		switch {
		case sum.Failed(t.ID) && merged:
			return nil, fmt.Errorf("task %s failed, but its result was merged", t.ID)
		case sum.Failed(t.ID):
			continue
		case !merged:
			return nil, fmt.Errorf("task %s: its result was never merged", t.ID)
		}
		var p sumPayload
		if err := json.Unmarshal(t.Payload, &p); err != nil {
			return nil, err
		}
		if want := p.I*p.I + int(p.Salt); v != want {
			return nil, fmt.Errorf("task %s merged as %d, its result is %d", t.ID, v, want)
		}
		r.Sum += v
		r.Merged++
	}
	return r, nil
}

func (sumKind) NewRunner(tasks.Env) tasks.Runner { return sumRunner{} }

type sumRunner struct{}

func (sumRunner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var p sumPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return tasks.Output{}, tasks.Permanent(err)
	}
	mu.Lock()
	runs[string(payload)]++
	mu.Unlock()
	switch p.Mode {
	case "poison":
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("task %d is poisoned", p.I))
	case "flaky":
		return tasks.Output{}, errors.New("flaky failure")
	case "panic":
		var none []int
		_ = none[p.I] // a bug: an index out of range

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
	return tasks.Output{Data: []byte(strconv.FormatInt(int64(p.I*p.I)+p.Salt, 10))}, nil
}

func init() { tasks.Register(sumKind{}) }

package embedded_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// sumKind is a job kind for runtime tests: task i returns i*i, the report is
// the sum. Payloads steer failures: "poison" fails permanently, "flaky"
// fails transiently forever, "gate" blocks until the test opens the gate.
type sumKind struct{}

type sumParams struct {
	N      int            `json:"n"`
	Poison []int          `json:"poison,omitempty"`
	Flaky  []int          `json:"flaky,omitempty"`
	Panics []int          `json:"panics,omitempty"`
	Gated  bool           `json:"gated,omitempty"`
	Open   int            `json:"open,omitempty"` // with Gated: tasks below Open are not gated
	Tag    string         `json:"tag,omitempty"`
	Extra  map[string]int `json:"extra,omitempty"`
}

type sumReport struct {
	Sum    int `json:"sum"`
	Merged int `json:"merged"`
	// Live counts the results merged as they came (tasks.Merger).
	Live           int             `json:"live"`
	Failures       []tasks.Failure `json:"failures"`
	ElapsedSeconds float64         `json:"elapsed_seconds"`
}

func (r *sumReport) Text() string { return fmt.Sprintf("sum %d of %d tasks\n", r.Sum, r.Merged) }

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

func (sumKind) Plan(_ context.Context, raw json.RawMessage) (tasks.Plan, error) {
	var p sumParams
	if err := json.Unmarshal(raw, &p); err != nil || p.N < 0 {
		return nil, tasks.Invalid("test.sum: bad params %s", raw)
	}
	return &sumPlan{p: p, salt: planSalt.Load()}, nil
}

// sumPlan is a tasks.Merger: Merge keeps each result, and Report fails
// the job if one was merged twice or differs from the task's result.
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
		}
		payload, _ := json.Marshal(sumPayload{I: i, Mode: m, Tag: sp.p.Tag, Salt: sp.salt})
		ts = append(ts, tasks.Task{ID: "t" + strconv.Itoa(i), Payload: payload})
	}
	return ts
}

func (sp *sumPlan) Report(results func(string) ([]byte, bool), sum tasks.Summary) (tasks.Report, error) {
	if sp.err != nil {
		return nil, sp.err
	}
	r := &sumReport{Failures: sum.Failures, ElapsedSeconds: sum.Elapsed.Seconds(), Live: len(sp.merged)}
	for _, t := range sp.Tasks() {
		data, ok := results(t.ID)
		m, merged := sp.merged[t.ID]
		if !ok {
			if merged {
				return nil, fmt.Errorf("task %s merged as %d, but it has no result", t.ID, m)
			}
			continue
		}
		v, err := strconv.Atoi(string(data))
		if err != nil {
			return nil, err
		}
		if merged && m != v {
			return nil, fmt.Errorf("task %s merged as %d, its result is %d", t.ID, m, v)
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
		var m map[string]int
		m["task"] = p.I // a bug: assignment to a nil map

	case "gate":
		select {
		case <-gate(p.Tag):
		case <-ctx.Done():
			return tasks.Output{}, ctx.Err()
		}
	}
	return tasks.Output{Data: []byte(strconv.FormatInt(int64(p.I*p.I)+p.Salt, 10))}, nil
}

func init() { tasks.Register(sumKind{}) }

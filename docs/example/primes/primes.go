// Package primes is the worked example of docs/kinds.md: a job kind that
// counts the primes below N, split into ranges that workers sieve.
package primes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// Params are what a user submits.
type Params struct {
	N    int `json:"n"`    // count the primes below N
	Span int `json:"span"` // numbers per task (0: a million)
}

// Kind is the "example.primes" kind.
type Kind struct{}

func init() { tasks.Register(Kind{}) }

// Name implements tasks.Kind.
func (Kind) Name() string { return "example.primes" }

// Version implements tasks.Kind: change it when Run's results change.
func (Kind) Version() int { return 1 }

// span is a task's payload: the numbers from From to To-1.
type span struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// result is what Run returns for a span.
type result struct {
	Primes  int `json:"primes"`
	Largest int `json:"largest"` // 0 if none
}

// Spec checks the parameters of a new job, as a command submits it, and
// returns the job's spec.
func (p Params) Spec() (tasks.Spec, error) {
	if _, err := p.check(); err != nil {
		return tasks.Spec{}, err
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return tasks.Spec{}, err
	}
	spec := tasks.Spec{Kind: Kind{}.Name(), Params: raw}
	return spec, tasks.CheckSpec(spec) // not more tasks than a job may have
}

// check validates the parameters and fills in the default span.
func (p Params) check() (Params, error) {
	if p.N < 2 || p.N > 1e10 {
		return p, tasks.Invalid("n %d: want 2 to 10,000,000,000", p.N)
	}
	if p.Span == 0 {
		p.Span = 1_000_000
	}
	if p.Span < 1 {
		return p, tasks.Invalid("span %d: want 1 or more", p.Span)
	}
	return p, nil
}

// Size implements tasks.Sizer: how many spans the parameters give, so
// that a job of more than a job may have (tasks.MaxTasks) is refused
// before it is planned.
func (Kind) Size(raw json.RawMessage) (tasks.Size, error) {
	var p Params
	if err := json.Unmarshal(raw, &p); err != nil {
		return tasks.Size{}, tasks.Invalid("example.primes parameters: %v", err)
	}
	p, err := p.check()
	if err != nil {
		return tasks.Size{}, err
	}
	return tasks.Size{Tasks: (p.N + p.Span - 1) / p.Span, By: fmt.Sprintf("n %d, span %d", p.N, p.Span)}, nil
}

// Plan implements tasks.Kind: it checks the parameters again and cuts
// [0, N) into spans. Ids and payloads depend on the parameters only.
func (Kind) Plan(_ context.Context, raw json.RawMessage, _ tasks.PlanEnv) (tasks.Plan, error) {
	var p Params
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, tasks.Invalid("example.primes parameters: %v", err)
	}
	p, err := p.check()
	if err != nil {
		return nil, err
	}
	plan := &plan{n: p.N, results: map[string]result{}}
	for from := 0; from < p.N; from += p.Span {
		payload, _ := json.Marshal(span{From: from, To: min(from+p.Span, p.N)})
		plan.tasks = append(plan.tasks, tasks.Task{ID: fmt.Sprintf("s%d", from/p.Span), Payload: payload})
	}
	return plan, nil
}

// plan is a job in progress: its tasks and the results merged so far.
type plan struct {
	n       int
	tasks   []tasks.Task
	results map[string]result
}

// Tasks implements tasks.Plan.
func (p *plan) Tasks() []tasks.Task { return p.tasks }

// Merge implements tasks.Plan: the runtime calls it once per task that
// succeeded, in any order.
func (p *plan) Merge(id string, data []byte) error {
	var r result
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("result of %s: %w", id, err)
	}
	p.results[id] = r
	return nil
}

// Report is the kind's report. The runtime adds what every job has
// (tasks, failures, elapsed seconds, complete) to its JSON and its text.
type Report struct {
	N       int `json:"n"`
	Primes  int `json:"primes"`
	Largest int `json:"largest"`
}

// Report implements tasks.Plan. A failed task (in sum.Failures) has no
// result: the count leaves its span out, and the runtime says so.
func (p *plan) Report(_ context.Context, sum tasks.Summary) (tasks.Report, error) {
	rep := &Report{N: p.n}
	for _, r := range p.results {
		rep.Primes += r.Primes
		rep.Largest = max(rep.Largest, r.Largest)
	}
	return rep, nil
}

// Text implements tasks.Report.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "primes below %s\n", tasks.Thousands(uint64(r.N)))
	tasks.Row(&b, "primes", "%s", tasks.Thousands(uint64(r.Primes)))
	tasks.Row(&b, "largest", "%s", tasks.Thousands(uint64(r.Largest)))
	return b.String()
}

// NewRunner implements tasks.Kind: one runner per worker slot, which may
// keep buffers from task to task.
func (Kind) NewRunner(tasks.Env) tasks.Runner { return &runner{} }

type runner struct{ composite []bool }

// Run sieves a span: it crosses out the multiples of every number up to
// the square root of its end. It checks ctx now and then, so that a
// cancelled job stops it.
func (r *runner) Run(ctx context.Context, payload []byte) (tasks.Output, error) {
	var s span
	if err := json.Unmarshal(payload, &s); err != nil || s.From < 0 || s.To < s.From {
		return tasks.Output{}, tasks.Permanent(fmt.Errorf("example.primes task %q: not a span", payload))
	}
	if cap(r.composite) < s.To-s.From {
		r.composite = make([]bool, s.To-s.From)
	}
	c := r.composite[:s.To-s.From]
	clear(c)
	for d := 2; d*d < s.To; d++ {
		if d%4096 == 0 && ctx.Err() != nil {
			return tasks.Output{}, ctx.Err()
		}
		for m := max(d*d, (s.From+d-1)/d*d); m < s.To; m += d {
			c[m-s.From] = true
		}
	}
	var res result
	for i, crossed := range c {
		if n := s.From + i; n >= 2 && !crossed {
			res.Primes++
			res.Largest = n
		}
	}
	data, err := json.Marshal(res)
	return tasks.Output{Data: data}, err
}

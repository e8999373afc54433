// Package taskstest runs a job kind's plan in one process, without a queue
// or a coordinator, for the tests of the kinds.
package taskstest

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// RunPlan runs every task of plan, in order, with one runner of kind k made
// with env, merges each result, and returns the plan's report; sum.Tasks is
// set to the number of tasks. The tasks named in sum.Failures are not run
// and not merged, as for a job whose tasks failed (a plan that is told of
// failures, tasks.MergesFailures, is told in their place). Like the coordinator, it
// drops the payload of each task whose result it merged (see tasks.Plan).
// Any error fails the test.
func RunPlan(tb testing.TB, k tasks.Kind, plan tasks.Plan, env tasks.Env, sum tasks.Summary) tasks.Report {
	tb.Helper()
	r := k.NewRunner(env)
	list := plan.Tasks()
	for i, task := range list {
		if sum.Failed(task.ID) {
			if f, ok := plan.(tasks.MergesFailures); ok {
				if err := f.MergeFailure(task.ID); err != nil {
					tb.Fatalf("merge the failure of task %s: %v", task.ID, err)
				}
			}
			continue
		}
		out, err := r.Run(context.Background(), task.Payload)
		if err != nil {
			tb.Fatalf("task %s: %v", task.ID, err)
		}
		if err := plan.Merge(task.ID, out.Data); err != nil {
			tb.Fatalf("merge task %s: %v", task.ID, err)
		}
		list[i].Payload = nil
	}
	sum.Tasks = len(list)
	rep, err := plan.Report(context.Background(), sum)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// Results runs every task of plan, in order, with one runner of kind k made
// with env, and returns each task's result by its ID, merged nowhere: for
// tests that merge them in orders of their own. Any error fails the test.
func Results(tb testing.TB, k tasks.Kind, plan tasks.Plan, env tasks.Env) map[string][]byte {
	tb.Helper()
	r := k.NewRunner(env)
	results := map[string][]byte{}
	for _, task := range plan.Tasks() {
		out, err := r.Run(context.Background(), task.Payload)
		if err != nil {
			tb.Fatalf("task %s: %v", task.ID, err)
		}
		results[task.ID] = out.Data
	}
	return results
}

// Outputs keeps a job's outputs in memory (tasks.Outputs).
type Outputs struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Put implements tasks.Outputs.
func (o *Outputs) Put(_ context.Context, name string, data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string][]byte{}
	}
	o.m[name] = data
	return nil
}

// Create implements tasks.Outputs: the output is kept once the writer is
// closed.
func (o *Outputs) Create(_ context.Context, name string) (io.WriteCloser, error) {
	return &outputWriter{o: o, name: name}, nil
}

type outputWriter struct {
	o    *Outputs
	name string
	data []byte
}

func (w *outputWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	return len(p), nil
}

func (w *outputWriter) Close() error {
	if w.data == nil {
		w.data = []byte{}
	}
	return w.o.Put(context.Background(), w.name, w.data)
}

// Get returns the output name, and whether the job wrote it.
func (o *Outputs) Get(name string) ([]byte, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	data, ok := o.m[name]
	return data, ok
}

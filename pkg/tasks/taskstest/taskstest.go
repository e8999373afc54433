// Package taskstest runs a job kind's plan in one process, without a queue
// or a coordinator, for the tests of the kinds.
package taskstest

import (
	"context"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// RunPlan runs every task of plan, in order, with one runner of kind k made
// with env, and returns the plan's report of their results; sum.Tasks is set
// to the number of tasks. The tasks named in sum.Failures are not run and
// their results are missing, as for a job whose tasks failed. Like the
// coordinator, it drops the payload of each task whose result it has (see
// tasks.Plan). Any error fails the test.
func RunPlan(tb testing.TB, k tasks.Kind, plan tasks.Plan, env tasks.Env, sum tasks.Summary) tasks.Report {
	tb.Helper()
	r := k.NewRunner(env)
	failed := map[string]bool{}
	for _, f := range sum.Failures {
		failed[f.Task] = true
	}
	results := map[string][]byte{}
	list := plan.Tasks()
	for i, task := range list {
		if failed[task.ID] {
			continue
		}
		out, err := r.Run(context.Background(), task.Payload)
		if err != nil {
			tb.Fatalf("task %s: %v", task.ID, err)
		}
		results[task.ID] = out.Data
		list[i].Payload = nil
	}
	sum.Tasks = len(list)
	rep, err := plan.Report(func(id string) ([]byte, bool) { d, ok := results[id]; return d, ok }, sum)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

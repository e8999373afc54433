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
// to the number of tasks. Any error fails the test.
func RunPlan(tb testing.TB, k tasks.Kind, plan tasks.Plan, env tasks.Env, sum tasks.Summary) tasks.Report {
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
	sum.Tasks = len(plan.Tasks())
	rep, err := plan.Report(func(id string) ([]byte, bool) { d, ok := results[id]; return d, ok }, sum)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

package primes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/docs/example/primes"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// The counts of primes below powers of ten, and the largest below each.
var known = []struct{ n, primes, largest int }{
	{10, 4, 7}, {100, 25, 97}, {1000, 168, 997}, {10_000, 1229, 9973}, {1_000_000, 78498, 999983},
}

// The kind's plan and runner, run in this process, give the known counts
// however the range is split; a failed task's span is left out.
func TestKnownCounts(t *testing.T) {
	for _, k := range known {
		for _, span := range []int{0, 7, 1000, 65536} {
			raw, _ := json.Marshal(primes.Params{N: k.n, Span: span})
			plan, err := primes.Kind{}.Plan(context.Background(), raw, tasks.PlanEnv{})
			if err != nil {
				t.Fatal(err)
			}
			rep := taskstest.RunPlan(t, primes.Kind{}, plan, tasks.Env{}, tasks.Summary{}).(*primes.Report)
			if rep.Primes != k.primes || rep.Largest != k.largest {
				t.Errorf("n %d, span %d: %d primes, largest %d; want %d and %d", k.n, span, rep.Primes, rep.Largest, k.primes, k.largest)
			}
		}
	}
	raw, _ := json.Marshal(primes.Params{N: 100, Span: 50})
	plan, _ := primes.Kind{}.Plan(context.Background(), raw, tasks.PlanEnv{})
	failed := []tasks.Failure{{Task: plan.Tasks()[1].ID, Reason: "test"}}
	rep := taskstest.RunPlan(t, primes.Kind{}, plan, tasks.Env{}, tasks.Summary{Failures: failed}).(*primes.Report)
	if rep.Primes != 15 { // the primes below 50
		t.Errorf("with the span from 50 failed: %d primes, want 15", rep.Primes)
	}
	for _, bad := range []primes.Params{{N: 1}, {N: 100, Span: -1}} {
		raw, _ := json.Marshal(bad)
		if _, err := (primes.Kind{}).Plan(context.Background(), raw, tasks.PlanEnv{}); err == nil {
			t.Errorf("%+v planned without error", bad)
		}
	}
}

// Spec refuses what Plan refuses, before any job exists, and the spec it
// returns plans the job the parameters ask for.
func TestSpec(t *testing.T) {
	for _, bad := range []primes.Params{{N: 1}, {N: 100, Span: -1}} {
		if _, err := bad.Spec(); !errors.Is(err, tasks.ErrInvalid) {
			t.Errorf("%+v: Spec gave %v, want an error wrapping tasks.ErrInvalid", bad, err)
		}
	}
	spec, err := primes.Params{N: 100, Span: 30}.Spec()
	if err != nil || spec.Kind != "example.primes" {
		t.Fatalf("Spec: %+v, %v; want a spec of example.primes", spec, err)
	}
	plan, err := primes.Kind{}.Plan(context.Background(), spec.Params, tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(plan.Tasks()); n != 4 {
		t.Errorf("the spec's plan has %d tasks, want 4 spans of 30", n)
	}
}

// The kind runs on the runtime as it is: an embedded cluster counts the
// primes below a million, and the report has the runtime's fields too.
func TestOnEmbeddedCluster(t *testing.T) {
	ctx := context.Background()
	c, err := embedded.Start(ctx, embedded.Options{Dir: t.TempDir(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	raw, _ := json.Marshal(primes.Params{N: 1_000_000, Span: 100_000})
	j, err := c.Broker.Jobs().Submit(ctx, tasks.Spec{Kind: "example.primes", Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = c.Broker.Jobs().Wait(ctx, j.ID, nil); err != nil || j.State != job.Done {
		t.Fatalf("job %v: %v", j, err)
	}
	var rep struct {
		primes.Report
		tasks.Common
	}
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Primes != 78498 || rep.Tasks != 10 || !rep.Complete {
		t.Errorf("report %+v, want 78,498 primes from 10 tasks, complete", rep)
	}
	if !strings.Contains(j.Text, "primes                     78,498\n") || !strings.Contains(j.Text, "tasks                      10, 0 failed") {
		t.Errorf("text:\n%s", j.Text)
	}
}

// docs/kinds.md shows this package's code as it is.
func TestDocumentShowsTheCode(t *testing.T) {
	doc, err := os.ReadFile("../../kinds.md")
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile("primes.go")
	if err != nil {
		t.Fatal(err)
	}
	block := append(append([]byte("```go\n"), code...), "```\n"...)
	if !bytes.Contains(doc, block) {
		t.Error("docs/kinds.md does not hold docs/example/primes/primes.go as it is, in one ```go block: copy it there again")
	}
}

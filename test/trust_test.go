package test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// A process holding a worker's credentials, on a cluster with the
// documented permissions (and a second worker added as the page says),
// takes tasks and answers them falsely: a failure claimed, a result
// without its token, garbage, a count with draws + 1,000,000, a result
// under the other worker's name. The job still ends with the embedded
// run's figures, the rogue quarantined, and a rerun (from the cache) has
// the same figures.
func TestRogueWorker(t *testing.T) {
	runsBinaries(t)
	conf := permissionsConf(t)
	// A second worker, as docs/operations.md says: its block whole, its
	// own results subject.
	start, end := strings.Index(conf, "  WORKER = {"), strings.Index(conf, "  CLIENT = {")
	if start < 0 || end < 0 {
		t.Fatalf("no WORKER block before CLIENT in the documented permissions:\n%s", conf)
	}
	second := strings.Replace(strings.Replace(conf[start:end], "WORKER = {", "WORKER_2 = {", 1),
		`"wopr.results.*.worker"`, `"wopr.results.*.worker-2"`, 1)
	if second == conf[start:end] || !strings.Contains(second, "worker-2") {
		t.Fatal("the documented WORKER block has no wopr.results.*.worker subject")
	}
	conf = conf[:end] + second + conf[end:]
	conf = strings.Replace(conf, "  users: [\n", "  users: [\n    {user: worker-2, password: $WOPR_WORKER_2_PASSWORD, permissions: $WORKER_2}\n", 1)
	url, server, _ := startNATSConf(t, conf, "WOPR_COORDINATOR_PASSWORD=c-pw", "WOPR_WORKER_PASSWORD=w-pw",
		"WOPR_WORKER_2_PASSWORD=w2-pw", "WOPR_CLIENT_PASSWORD=cl-pw")
	as := func(user, pw string) conn {
		return conn{url: url, env: []string{"WOPR_NATS_USER=" + user, "WOPR_NATS_PASSWORD=" + pw}}
	}
	coordinator, honest, client := as("coordinator", "c-pw"), as("worker-2", "w2-pw"), as("client", "cl-pw")
	dir := t.TempDir()
	startEnv(t, coordinator.env, "coordinator", coordinator.args("--data", filepath.Join(dir, "c"))...)
	r := runEnv(t, client.env, "analyze", client.args(append(countArgs, "--detach")...)...)
	if r.code != 0 {
		t.Fatalf("submit: exit %d: %s", r.code, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := broker.Attach(ctx, broker.Endpoint{URL: url, Auth: broker.Auth{User: "worker", Password: "w-pw"}}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	source, err := b.Work().Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kind, _ := tasks.Lookup("mnk.count")
	runner := kind.NewRunner(tasks.Env{})
	lies := []func(res *job.Result){
		func(res *job.Result) { res.Data, res.Failed = nil, "never" },
		func(res *job.Result) { res.Token = "" },
		func(res *job.Result) { res.Data = []byte("garbage") },
		func(res *job.Result) {
			var c map[string]any
			if err := json.Unmarshal(res.Data, &c); err != nil {
				t.Fatal(err)
			}
			c["draws"] = c["draws"].(float64) + 1_000_000
			res.Data, _ = json.Marshal(c)
		},
	}
	for i, lie := range lies {
		d, err := source.Next(ctx, 30*time.Second)
		if err != nil || d == nil {
			t.Fatalf("the rogue's task %d: %v", i, err)
		}
		task, err := d.Task()
		if err != nil {
			t.Fatal(err)
		}
		out, err := runner.Run(ctx, task.Payload)
		if err != nil {
			t.Fatal(err)
		}
		res := job.Result{Job: task.Job, Task: task.ID, Check: task.Check, Worker: "worker", Epoch: task.Epoch, Try: task.Try,
			Token: task.Token, Data: out.Data}
		lie(&res)
		if err := b.Work().PublishResult(ctx, res); err != nil {
			t.Fatalf("the rogue's result %d: %v", i, err)
		}
		if i == 0 {
			// Under the honest worker's name: the server refuses it.
			other := res
			other.Worker = "worker-2"
			pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
			if err := b.Work().PublishResult(pctx, other); err == nil {
				t.Error("a worker's credentials published a result under another worker's name")
			}
			pcancel()
		}
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}

	startEnv(t, honest.env, "worker", honest.args("--data", filepath.Join(dir, "w"), "-c", "2", "--name", "worker-2")...)
	r = runEnv(t, client.env, "analyze", client.args(countArgs...)...)
	if r.code != 0 {
		t.Fatalf("follow the job: exit %d: %s", r.code, r.stderr)
	}
	got := parseReport(t, r.stdout)
	sameFigures(t, got, reference(t))
	if !got.Complete || got.RefusedResults < 3 || strings.Join(got.QuarantinedWorkers, ",") != "worker" {
		t.Errorf("complete %v, %d results refused, quarantined %v; want complete, 3 or more refused, the rogue",
			got.Complete, got.RefusedResults, got.QuarantinedWorkers)
	}
	// Nothing the rogue sent is in the cache.
	r = runEnv(t, client.env, "analyze", client.args(countArgs...)...)
	if r.code != 0 {
		t.Fatalf("rerun: exit %d: %s", r.code, r.stderr)
	}
	again := parseReport(t, r.stdout)
	sameFigures(t, again, reference(t))
	if again.CachedTasks != again.Tasks {
		t.Errorf("rerun: %d of %d tasks from the cache, want all", again.CachedTasks, again.Tasks)
	}
	if !strings.Contains(server.out.String(), "Violation") {
		t.Error("the server logged no permission violation for the result under another's name")
	}
}

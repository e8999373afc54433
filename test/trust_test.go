package test

import (
	"context"
	"encoding/json"
	"fmt"
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
	url, server, as := trustCluster(t, "worker-2")
	coordinator, honest, client := as("coordinator"), as("worker-2"), as("client")
	dir := t.TempDir()
	startEnv(t, coordinator.env, "coordinator", coordinator.args("--data", filepath.Join(dir, "c"))...)
	r := runEnv(t, client.env, "analyze", client.args(append(countArgs, "--detach")...)...)
	if r.code != 0 {
		t.Fatalf("submit: exit %d: %s", r.code, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	work, source, runner := rogue(ctx, t, url)
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
		if err := work.PublishResult(ctx, res); err != nil {
			t.Fatalf("the rogue's result %d: %v", i, err)
		}
		if i == 0 {
			// Under the honest worker's name: the server refuses it.
			other := res
			other.Worker = "worker-2"
			pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
			if err := work.PublishResult(pctx, other); err == nil {
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

// trustCluster starts nats-server with the documented permissions and,
// for each name of workers, a worker user added as docs/operations.md
// says (its block whole, its own results subject); as gives a user's
// connection (each user's password is its name with "-pw").
func trustCluster(t *testing.T, workers ...string) (url string, server *proc, as func(user string) conn) {
	t.Helper()
	conf := permissionsConf(t)
	start, end := strings.Index(conf, "  WORKER = {"), strings.Index(conf, "  CLIENT = {")
	if start < 0 || end < 0 {
		t.Fatalf("no WORKER block before CLIENT in the documented permissions:\n%s", conf)
	}
	env := []string{"WOPR_COORDINATOR_PASSWORD=coordinator-pw", "WOPR_WORKER_PASSWORD=worker-pw", "WOPR_CLIENT_PASSWORD=client-pw"}
	for i, name := range workers {
		block := fmt.Sprintf("WORKER_%d", i+2)
		more := strings.Replace(strings.Replace(conf[start:end], "WORKER = {", block+" = {", 1),
			`"wopr.results.*.worker"`, `"wopr.results.*.`+name+`"`, 1)
		if !strings.Contains(more, `"wopr.results.*.`+name+`"`) {
			t.Fatal("the documented WORKER block has no wopr.results.*.worker subject")
		}
		pw := "WOPR_" + block + "_PASSWORD"
		conf = conf[:end] + more + conf[end:]
		end += len(more)
		conf = strings.Replace(conf, "  users: [\n", fmt.Sprintf("  users: [\n    {user: %s, password: $%s, permissions: $%s}\n", name, pw, block), 1)
		env = append(env, pw+"="+name+"-pw")
	}
	url, server, _ = startNATSConf(t, conf, env...)
	return url, server, func(user string) conn {
		return conn{url: url, env: []string{"WOPR_NATS_USER=" + user, "WOPR_NATS_PASSWORD=" + user + "-pw"}}
	}
}

// A forgery its kind's check cannot see (a count subtree's result, right,
// but another subtree's) is caught by --verify: a second worker computes
// the task, the two disagree, a third settles it, and the rogue is
// quarantined. Every task of the job is verified, and the figures are the
// embedded run's.
func TestVerifyCatchesConsistentForgery(t *testing.T) {
	runsBinaries(t)
	url, _, as := trustCluster(t, "worker-2", "worker-3")
	coordinator, client := as("coordinator"), as("client")
	dir := t.TempDir()
	startEnv(t, coordinator.env, "coordinator", coordinator.args("--data", filepath.Join(dir, "c"))...)
	// countArgs's job cut at ply 2: fewer tasks, each copy of which goes
	// back and forth until a worker it does not exclude takes it.
	args := []string{"mnk", "count", "--board", "4x4", "--split-depth", "2", "--json", "--verify", "1"}
	if r := runEnv(t, client.env, "analyze", client.args(append(args, "--detach")...)...); r.code != 0 {
		t.Fatalf("submit: exit %d: %s", r.code, r.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	work, source, runner := rogue(ctx, t, url)
	// The rogue holds the first task it is given (so that it is not given
	// it again), and answers the next one whose result differs with the
	// first one's result; then hands back what it holds.
	next := func() (job.Delivery, job.Task) {
		t.Helper()
		d, err := source.Next(ctx, 30*time.Second)
		if err != nil || d == nil {
			t.Fatalf("the rogue's next task: %v", err)
		}
		task, err := d.Task()
		if err != nil {
			t.Fatal(err)
		}
		return d, task
	}
	firstD, first := next()
	held := []job.Delivery{firstD}
	out, err := runner.Run(ctx, first.Payload) // another subtree's figures
	if err != nil {
		t.Fatal(err)
	}
	for forged := false; !forged; {
		d, task := next()
		mine, err := runner.Run(ctx, task.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if string(mine.Data) == string(out.Data) {
			held = append(held, d)
			if len(held) > 10 {
				t.Fatal("ten tasks with the same result as the first: pick a job whose subtrees differ")
			}
			continue
		}
		res := job.Result{Job: task.Job, Task: task.ID, Check: task.Check, Worker: "worker", Epoch: task.Epoch, Try: task.Try,
			Token: task.Token, Data: out.Data}
		if err := work.PublishResult(ctx, res); err != nil {
			t.Fatal(err)
		}
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
		forged = true
	}
	for _, d := range held {
		if err := d.HandBack(); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"worker-2", "worker-3"} {
		w := as(name)
		startEnv(t, w.env, "worker", w.args("--data", filepath.Join(dir, name), "-c", "2", "--name", name)...)
	}
	r := runEnv(t, client.env, "analyze", client.args(args...)...)
	if r.code != 0 {
		t.Fatalf("follow the job: exit %d: %s", r.code, r.stderr)
	}
	got := parseReport(t, r.stdout)
	if got.SplitDepth != 2 {
		t.Errorf("split depth %d, want 2", got.SplitDepth)
	}
	verified, nTasks := got.VerifiedTasks, got.Tasks
	got.SplitDepth, got.Tasks = reference(t).SplitDepth, reference(t).Tasks
	sameFigures(t, got, reference(t))
	got.VerifiedTasks, got.Tasks = verified, nTasks
	if got.VerifiedTasks != got.Tasks || strings.Join(got.QuarantinedWorkers, ",") != "worker" {
		t.Errorf("%d of %d tasks verified, quarantined %v; want all verified, the rogue quarantined",
			got.VerifiedTasks, got.Tasks, got.QuarantinedWorkers)
	}
}

// rogue connects as the documented user "worker" and returns the work
// queue as it sends results and takes tasks, and a runner of the real
// mnk.count, for a test's rogue worker.
func rogue(ctx context.Context, t *testing.T, url string) (*broker.Work, *broker.TaskSource, tasks.Runner) {
	t.Helper()
	b, err := broker.Attach(ctx, broker.Endpoint{URL: url, Auth: broker.Auth{User: "worker", Password: "worker-pw"}}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	source, err := b.Work().Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kind, _ := tasks.Lookup("mnk.count")
	return b.Work(), source, kind.NewRunner(tasks.Env{})
}

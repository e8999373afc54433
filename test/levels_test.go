package test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"syscall"
	"testing"
)

// levelsArgs count 4x4 with k=3 level by level, with a budget so small
// that every shard spills: long enough to be stopped mid-ply.
var levelsArgs = []string{"mnk", "count", "--board", "4x4", "-k", "3", "--method", "levels", "--shards", "4", "--memory", "64KiB", "--json"}

// levelsFigures reads a level count's report without what depends on the
// run (times, cache figures).
func levelsFigures(t *testing.T, out string) map[string]any {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	for _, k := range []string{"elapsed_seconds", "cache_hits", "cached_tasks", "refused_results", "verified_tasks", "quarantined_workers"} {
		delete(r, k)
	}
	plies, _ := r["plies"].([]any)
	for _, p := range plies {
		delete(p.(map[string]any), "seconds")
	}
	return r
}

// A level count survives a worker SIGKILLed mid-ply and a coordinator
// SIGKILLed and started again on its store: the report equals the
// embedded one, and no task failed.
func TestLevelsKillMidPly(t *testing.T) {
	runsBinaries(t)
	out, err := run(t, "analyze", append(levelsArgs, "--data", t.TempDir())...)
	if err != nil {
		t.Fatal(err)
	}
	want := levelsFigures(t, out)
	if want["complete"] != true || want["method"] != "levels" {
		t.Fatalf("embedded report: %v", want)
	}
	c := startCluster(t)
	out, err = run(t, "analyze", append(levelsArgs, "--nats", c.url, "--detach")...)
	if err != nil {
		t.Fatal(err)
	}
	var sub struct{ Job string }
	if err := json.Unmarshal([]byte(out), &sub); err != nil {
		t.Fatal(err)
	}
	id := sub.Job
	waitDone(t, c.url, id, 12) // ply 3 of 16
	_ = c.workers[0].stop(t, syscall.SIGKILL)
	waitDone(t, c.url, id, 24)
	var exit *exec.ExitError
	if err := c.coord.stop(t, syscall.SIGKILL); !errors.As(err, &exit) {
		t.Fatalf("coordinator: %v", err)
	}
	if rec := jobRecord(t, c.url, id); rec["state"] != "running" {
		t.Fatalf("the job ended before the coordinator was killed: %v", rec)
	}
	c.coord = c.startCoordinator(t)
	out, err = run(t, "analyze", "report", id, "--wait", "--nats", c.url, "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := levelsFigures(t, out)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the kills:\n got %v\nwant %v", got, want)
	}
	if rec := jobRecord(t, c.url, id); rec["failed"].(float64) != 0 {
		t.Errorf("failed tasks: %v", rec)
	}
}

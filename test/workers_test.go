package test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A cluster tells what it is doing: a job that no worker takes says so in
// its progress line; analyze status names the coordinator, the workers and
// the jobs by state; analyze workers lists each worker with what it did,
// alive, then stopped.
func TestWorkersAndStalls(t *testing.T) {
	runsBinaries(t)
	url := startNATS(t)
	dir := t.TempDir()
	start(t, "coordinator", "--nats", url, "--data", filepath.Join(dir, "coordinator"))

	// A job with no worker: its progress line says why it does not move.
	cmd := exec.Command(binary("analyze"), "mnk", "count", "--nats", url, "--progress")
	cmd.Env = append(os.Environ(), "WOPR_STALL_AFTER=1s")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	stalled := ""
	for lines.Scan() {
		if strings.Contains(lines.Text(), "no worker has taken a task for") {
			stalled = lines.Text()
			break
		}
	}
	if !strings.Contains(stalled, "(0 workers seen)") {
		t.Fatalf("progress without workers: %q, want a line saying no worker has taken a task (0 workers seen)", stalled)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	out, err := run(t, "analyze", "status", "--nats", url)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"coordinator  ", "(pid ", "workers      0 alive (0 slots, 0 busy)", "jobs         0 submitted, 1 running, 0 done"} {
		if !strings.Contains(out, want) {
			t.Errorf("status of the cluster lacks %q:\n%s", want, out)
		}
	}

	// A worker comes: the job finishes.
	w := start(t, "worker w1", "--nats", url, "--data", filepath.Join(dir, "w1"), "--concurrency", "1", "--name", "w1")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the job after a worker came: %v", err)
	}
	if !strings.Contains(stdout.String(), "255,168") {
		t.Errorf("report %q, want 255,168 games", stdout.String())
	}
	type listing struct {
		Workers []struct {
			Name    string
			Alive   bool
			Slots   int
			Done    int64 `json:"tasks_done"`
			Kinds   []string
			Stopped bool `json:"stopped"`
		}
		Alive int
		Queue struct {
			Queued   uint64
			InFlight int    `json:"in_flight"`
			Dead     uint64 `json:"dead_letters"`
		}
	}
	list := func() listing {
		t.Helper()
		out, err := run(t, "analyze", "workers", "--nats", url, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var l listing
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		return l
	}
	// Its next heartbeat, within 5 s, counts the tasks it did.
	var l listing
	waitFor(t, "w1's heartbeat with the tasks it did", func() bool {
		l = list()
		return len(l.Workers) == 1 && l.Workers[0].Done > 0
	})
	if wk := l.Workers[0]; wk.Name != "w1" || !wk.Alive || wk.Slots != 1 || len(wk.Kinds) == 0 || l.Alive != 1 || l.Queue.Queued != 0 {
		t.Errorf("workers: %+v; want w1 alive with 1 slot, an empty queue", l)
	}
	out, err = run(t, "analyze", "workers", "--nats", url)
	if err != nil || !strings.Contains(out, "w1") || !strings.Contains(out, "alive") || !strings.Contains(out, "1 alive; 0 tasks queued (0 with workers), 0 dead letters") {
		t.Errorf("workers: %v\n%s", err, out)
	}
	// A worker that stops says so as it goes.
	if err := w.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("worker: %v", err)
	}
	if l := list(); len(l.Workers) != 1 || l.Workers[0].Alive || !l.Workers[0].Stopped || l.Alive != 0 {
		t.Errorf("after the worker stopped: %+v; want w1 stopped", l)
	}
	out, err = run(t, "analyze", "status", "--nats", url, "--json")
	var st struct {
		Coordinator *struct{ Host string }
		Alive       int
		Jobs        map[string]int
	}
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || st.Coordinator == nil || st.Alive != 0 || st.Jobs["done"] != 1 {
		t.Errorf("status --json: %v %q", err, out)
	}
}

package test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mnkCoordinator is the name of the coordinator's connection in the
// servers' monitoring (/connz).
const mnkCoordinator = "wopr-coordinator"

// startReplicatedCluster starts a 3-node NATS cluster, a coordinator with
// every stream and bucket on three replicas, and two workers, all given
// the three nodes' URLs, and waits until the coordinator runs.
func startReplicatedCluster(t *testing.T) (*natsCluster, *cluster) {
	t.Helper()
	nc := startNATSCluster(t)
	c := startClusterOn(t, nc.url(), "--replicas", "3")
	waitLog(t, c.coord, "coordinator running")
	return nc, c
}

// midJob waits until a job has done two tasks and fewer than half, and
// returns how many. (Reading a job's record right after a node is killed
// takes as long as the cluster takes to elect leaders again, in which time
// the job could end: a test checks before it kills.)
func midJob(t *testing.T, c *cluster, id string) int {
	t.Helper()
	rec := waitDone(t, c.url, id, 2)
	done, _ := rec["done"].(float64)
	tasks, _ := rec["tasks"].(float64)
	if rec["state"] != "running" || done >= tasks/2 {
		t.Fatalf("the job is too far on to be interrupted mid-job: %v", rec)
	}
	return int(done)
}

// A node of a 3-node cluster SIGKILLed mid-job (not the one the
// coordinator is connected to, but the leader of every stream and
// consumer), the job going on without it for a few tasks, then the node
// started again on its store: the job finishes exactly, no task failed,
// and the node catches up with the others.
func TestKillNATSNodeMidJob(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	nc, c := startReplicatedCluster(t)
	victim := (nc.nodeOf(t, mnkCoordinator) + 1) % len(nc.nodes)
	nc.lead(t, victim)
	id := c.submit(t)
	done := midJob(t, c, id)
	nc.kill(t, victim)
	waitDone(t, c.url, id, done+2) // progress on two nodes
	nc.start(t, victim)
	sameFigures(t, c.report(t, id), want)
	if rec := jobRecord(t, c.url, id); rec["failed"].(float64) != 0 {
		t.Errorf("failed tasks: %v", rec)
	}
	nc.waitHealthy(t)
}

// The node the coordinator is connected to, made the leader of every
// stream and consumer, SIGKILLed mid-job: the coordinator, the workers and
// the client move to the other two nodes, which elect new leaders; the job
// finishes exactly with no task failed, and a job submitted afterwards runs
// on the two nodes left.
func TestKillCoordinatorsNATSNodeMidJob(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	nc, c := startReplicatedCluster(t)
	victim := nc.nodeOf(t, mnkCoordinator)
	nc.lead(t, victim)
	id := c.submit(t)
	midJob(t, c, id)
	nc.kill(t, victim)
	sameFigures(t, c.report(t, id), want)
	if rec := jobRecord(t, c.url, id); rec["failed"].(float64) != 0 {
		t.Errorf("failed tasks: %v", rec)
	}
	if now := nc.nodeOf(t, mnkCoordinator); now == victim {
		t.Errorf("the coordinator is on node %s, which was killed", nc.nodes[now].name)
	}
	out, err := run(t, "analyze", "mnk", "count", "--board", "3x3", "--nats", c.url, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if small := parseReport(t, out); small.Games != 255168 || small.Nodes != 549946 {
		t.Errorf("3x3 on two nodes: %d games, %d nodes; want 255168 and 549946", small.Games, small.Nodes)
	}
}

// waitLog waits for up to a minute until a process has logged a line
// containing s.
func waitLog(t *testing.T, p *proc, s string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.out.String(), s) {
		select {
		case <-p.done:
			t.Fatalf("%s exited before it logged %q: %v\n%s", p.name, s, p.err, p.out.String())
		case <-time.After(20 * time.Millisecond): // polling with a deadline
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %q within a minute:\n%s", p.name, s, p.out.String())
		}
	}
}

// A standby coordinator takes over a Sudoku corpus job when the active one
// is SIGKILLed mid-job: once the dead one's lease has run out, the standby
// resumes the job from the queue and its own (empty) store, running again
// the tasks whose results only the dead one had merged, and the --out and
// --rejects that the client following the job writes are byte-identical to
// an uninterrupted run's.
func TestStandbyCoordinatorTakesOverSudokuJob(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	makeCorpus(t, "royle17.txt.gz", 100_000, corpus)
	f, err := os.OpenFile(corpus, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# comment\n" + strings.Repeat(".", 80) + "\n" + "55" + strings.Repeat(".", 79) + "\n")
	f.Close()
	wantOut, wantRej := filepath.Join(dir, "want.out"), filepath.Join(dir, "want.rej")
	if _, err := run(t, "analyze", "sudoku", "solve", corpus, "--data", filepath.Join(dir, "data"), "--out", wantOut, "--rejects", wantRej, "-q"); err != nil {
		t.Fatal(err)
	}

	c := startCluster(t)
	waitLog(t, c.coord, "coordinator running")
	standby := start(t, "coordinator standby", "--nats", c.url, "--data", filepath.Join(c.dir, "standby"), "--ack-wait", "2s")
	waitLog(t, standby, "standing by until it stops")
	out, rej := filepath.Join(dir, "got.out"), filepath.Join(dir, "got.rej")
	args := []string{"sudoku", "solve", corpus, "--nats", c.url, "--out", out, "--rejects", rej, "--progress", "--chunk", "500"}
	_, killedAt, err := runToMidJob(t, args, func(*exec.Cmd) { _ = c.coord.stop(t, syscall.SIGKILL) })
	if err != nil {
		t.Fatalf("analyze --nats: %v", err)
	}
	if killedAt < 0 {
		t.Fatal("the coordinator was not killed mid-job")
	}
	if !strings.Contains(standby.out.String(), "coordinator running") {
		t.Errorf("the standby did not take over:\n%s", standby.out.String())
	}
	for _, pair := range [][2]string{{out, wantOut}, {rej, wantRej}} {
		got, want := mustRead(t, pair[0]), mustRead(t, pair[1])
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s (%d bytes) differs from the uninterrupted run's %s (%d bytes)", pair[0], len(got), pair[1], len(want))
		}
	}
}

// A worker whose --data cannot be written refuses to start: exit 1 at
// once, before it looks for NATS (there is none here), with one line that
// names the directory and says why. A read-only directory (for root, who
// writes anywhere, the worker runs as nobody), a directory that cannot be
// made (--data under a file), and a disk with no room for the store's
// first file (played by a file size limit: Badger makes a 64 MB memtable
// file as it opens).
func TestWorkerRefusesUnwritableStore(t *testing.T) {
	runsBinaries(t)
	// Not t.TempDir, whose parents only root may enter.
	dir, err := os.MkdirTemp("", "wopr-store")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "ro"), 0o755); os.RemoveAll(dir) })
	readOnly, file := filepath.Join(dir, "ro"), filepath.Join(dir, "file")
	for _, err := range []error{os.Chmod(dir, 0o755), os.Mkdir(readOnly, 0o555), os.WriteFile(file, nil, 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	nowhere := fmt.Sprintf("nats://127.0.0.1:%d", freePorts(t, 1)[0])
	for _, c := range []struct {
		name, data, why string
		cmd             func(args ...string) *exec.Cmd
	}{
		{"read-only", readOnly, "permission denied", func(args ...string) *exec.Cmd {
			cmd := exec.Command(binary("worker"), args...)
			if os.Getuid() == 0 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			}
			return cmd
		}},
		{"under a file", filepath.Join(file, "data"), "not a directory", func(args ...string) *exec.Cmd {
			return exec.Command(binary("worker"), args...)
		}},
		{"no room", filepath.Join(dir, "full"), "file too large", func(args ...string) *exec.Cmd {
			// 8192 blocks of 512 or 1024 bytes: the store's small files
			// fit, its 64 MB memtable does not.
			return exec.Command("/bin/sh", append([]string{"-c", `ulimit -f 8192 && exec "$0" "$@"`, binary("worker")}, args...)...)
		}},
	} {
		cmd := c.cmd("--nats", nowhere, "--data", c.data, "--name", "w1")
		var stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		select {
		case err = <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("%s: the worker still ran 30 s after it started:\n%s", c.name, stderr.String())
			continue
		}
		var exit *exec.ExitError
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		last := lines[len(lines)-1]
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.HasPrefix(last, "worker: ") ||
			!strings.Contains(last, c.data) || !strings.Contains(last, c.why) {
			t.Errorf("%s: %v, output:\n%s\nwant exit code 1 and a last line naming %s and %q", c.name, err, stderr.String(), c.data, c.why)
		}
		if out := stderr.String(); strings.Contains(out, "nats") {
			t.Errorf("%s: the worker looked for NATS before it opened its store:\n%s", c.name, out)
		}
	}
}

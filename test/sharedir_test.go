package test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFor polls cond every 100 ms until it holds, failing the test after a
// minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
}

// Two commands on one data directory: while analyze serve holds it, a job
// command joins its embedded cluster and runs its job there, and the
// inspecting commands read it; while a job command holds it, a second
// one is refused with an error that names the holder and the options.
func TestTwoCommandsOneDirectory(t *testing.T) {
	runsBinaries(t)
	data := filepath.Join(t.TempDir(), "data")
	serve := start(t, "analyze serve", "serve", "--addr", "127.0.0.1:0", "--data", data)
	waitFor(t, "analyze serve", func() bool { return strings.Contains(serve.out.String(), "serving on http://") })
	if st, err := os.Stat(filepath.Join(data, "JOIN")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("JOIN: %v %v; want a file only its owner reads", st, err)
	}

	cmd := exec.Command(binary("analyze"), "mnk", "count", "--board", "3x3", "--json", "--data", data)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("count beside serve: %v: %s", err, stderr.String())
	}
	var rep struct {
		Games int64
		Tasks int
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Games != 255168 {
		t.Fatalf("count beside serve: %s (%v)", out, err)
	}
	if !strings.Contains(stderr.String(), `is in use by "analyze serve`) || !strings.Contains(stderr.String(), "the job runs on its cluster") {
		t.Errorf("stderr %q: want a note that the job runs on serve's cluster", stderr.String())
	}
	if out, err := run(t, "analyze", "jobs", "--data", data); err != nil || !strings.Contains(out, "mnk.count") {
		t.Errorf("jobs beside serve: %v\n%s", err, out)
	}
	if out, err := run(t, "analyze", "status", "--data", data); err != nil || !strings.Contains(out, `the embedded cluster of "analyze serve`) {
		t.Errorf("status beside serve: %v\n%s", err, out)
	}

	// serve stopped, the directory is the next command's: a rerun from
	// the cache.
	if err := serve.stop(t, syscall.SIGINT); err != nil {
		t.Fatalf("serve: %v", err)
	}
	cmd = exec.Command(binary("analyze"), "mnk", "count", "--board", "3x3", "--json", "--data", data)
	stderr = syncBuffer{}
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	var again struct {
		Games       int64
		Tasks       int
		CachedTasks int `json:"cached_tasks"`
	}
	if err != nil || json.Unmarshal(out, &again) != nil || again.Games != 255168 || again.CachedTasks != again.Tasks || strings.Contains(stderr.String(), "in use") {
		t.Errorf("after serve: %v %s %s; want the count from the cache, in this process", err, out, stderr.String())
	}

	// A job command holds the directory (its corpus comes on stdin, which
	// stays open): a second command names it and the ways out.
	holder := exec.Command(binary("analyze"), "sudoku", "solve", "-", "--data", data, "-q")
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	holder.Stdout = &syncBuffer{}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	pid := strconv.Itoa(holder.Process.Pid)
	waitFor(t, "the solve to hold the directory", func() bool {
		lock, _ := os.ReadFile(filepath.Join(data, "LOCK"))
		return strings.Contains(string(lock), `"pid":`+pid+",")
	})
	cmd = exec.Command(binary("analyze"), "mnk", "count", "--board", "3x3", "--data", data)
	stderr = syncBuffer{}
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg := stderr.String()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
		t.Fatalf("a second command: %v, stderr %q; want exit 1 and one line", err, msg)
	}
	for _, want := range []string{"is in use by \"analyze sudoku solve - --data", "(pid " + pid + ",", "another --data DIR", "--nats URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("a second command's error %q lacks %q", msg, want)
		}
	}
	stdin.Write([]byte(euler01 + "\n"))
	stdin.Close()
	if err := holder.Wait(); err != nil {
		t.Errorf("the solve: %v", err)
	}
}

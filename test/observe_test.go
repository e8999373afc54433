package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/metrics"
)

// metricsAddr reads the address a daemon started with --metrics-addr
// 127.0.0.1:0 --log-format json serves on, from its log line "serving
// metrics", waiting for up to 30 s.
func metricsAddr(t *testing.T, p *proc) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for line := range strings.Lines(p.out.String()) {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving metrics" && rec.Addr != "" {
				return rec.Addr
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before it served metrics: %v\n%s", p.name, p.err, p.out.String())
		case <-time.After(10 * time.Millisecond): // polling with a deadline
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s logged no \"serving metrics\" line within 30 s:\n%s", p.name, p.out.String())
		}
	}
}

// status is the code and body of a GET of url (0 if it could not connect).
func status(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitStatus polls url until it answers code, for up to a minute.
func waitStatus(t *testing.T, url string, code int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, body := status(url)
		if got == code {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %q for a minute, want %d", url, got, body, code)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
}

func scrape(t *testing.T, addr string) metrics.Samples {
	t.Helper()
	s, err := metrics.Scrape(context.Background(), "http://"+addr+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A coordinator and a worker started with --metrics-addr on port 0 and
// --log-format json: each logs where it serves, one JSON object a line;
// during a job the worker counts tasks and the coordinator the running
// job; at the end the worker's completed tasks and the observations of its
// duration histogram, and the coordinator's merged results, each equal the
// job's tasks. /readyz follows the connection to NATS: 503 while
// nats-server is down, 200 once it is back.
func TestMetricsOfClusterProcesses(t *testing.T) {
	runsBinaries(t)
	store := filepath.Join(t.TempDir(), "js")
	url, srv := startNATSAt(t, store, "-1")
	dir := t.TempDir()
	obs := []string{"--metrics-addr", "127.0.0.1:0", "--log-format", "json"}
	coord := start(t, "coordinator", append([]string{"--nats", url, "--data", filepath.Join(dir, "coordinator")}, obs...)...)
	worker := start(t, "worker", append([]string{"--nats", url, "--data", filepath.Join(dir, "worker"), "--concurrency", "2", "--name", "w1"}, obs...)...)
	coordAddr, workerAddr := metricsAddr(t, coord), metricsAddr(t, worker)
	for _, addr := range []string{coordAddr, workerAddr} {
		waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)
		if code, body := status("http://" + addr + "/healthz"); code != http.StatusOK {
			t.Errorf("%s/healthz: %d %q, want 200", addr, code, body)
		}
	}

	id := (&cluster{url: url}).submit(t)
	// During the job: tasks done by the worker, the job running.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		done, _ := scrape(t, workerAddr).Get(metrics.TasksCompleted, "kind", "mnk.count")
		running, _ := scrape(t, coordAddr).Get(metrics.JobsByState, "state", "running")
		if done > 0 && running == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("during the job: %v tasks completed, %v jobs running; want some and 1", done, running)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	rep := (&cluster{url: url}).report(t, id)
	if !rep.Complete || rep.Tasks < 2 {
		t.Fatalf("report: %d tasks, complete %v", rep.Tasks, rep.Complete)
	}
	var c metrics.Samples
	for deadline := time.Now().Add(time.Minute); ; {
		c = scrape(t, coordAddr)
		if v, _ := c.Get(metrics.JobsByState, "state", "done"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("coordinator: no wopr_jobs{state=\"done\"} 1 a minute after the job ended")
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	w := scrape(t, workerAddr)
	tasks := float64(rep.Tasks)
	for _, k := range []struct {
		who    string
		s      metrics.Samples
		name   string
		labels []string
		want   float64
	}{
		{"worker", w, metrics.TasksCompleted, []string{"kind", "mnk.count"}, tasks},
		{"worker", w, metrics.TaskDuration + "_count", []string{"kind", "mnk.count"}, tasks},
		{"coordinator", c, metrics.ResultsMerged, []string{"kind", "mnk.count"}, tasks},
		{"coordinator", c, metrics.JobsByState, []string{"state", "running"}, 0},
	} {
		if got, ok := k.s.Get(k.name, k.labels...); got != k.want {
			t.Errorf("%s: %s = %v (present %v), want %v", k.who, metrics.Series(k.name, k.labels...), got, ok, k.want)
		}
	}
	if _, ok := c.Get(metrics.QueuePending); !ok {
		t.Errorf("coordinator: no %s", metrics.QueuePending)
	}
	if _, ok := w.Get(metrics.QueuePending); ok {
		t.Errorf("worker: %s, want it from the coordinator only", metrics.QueuePending)
	}
	if _, ok := w.Get("process_resident_memory_bytes"); !ok {
		t.Error("worker: no process_resident_memory_bytes")
	}

	// nats-server down: not ready, still alive; back: ready again.
	var exit *exec.ExitError
	if err := srv.stop(t, syscall.SIGKILL); !errors.As(err, &exit) {
		t.Fatalf("nats-server: %v", err)
	}
	for _, addr := range []string{coordAddr, workerAddr} {
		waitStatus(t, "http://"+addr+"/readyz", http.StatusServiceUnavailable)
		if code, body := status("http://" + addr + "/healthz"); code != http.StatusOK {
			t.Errorf("%s/healthz with nats-server down: %d %q, want 200", addr, code, body)
		}
	}
	if again, _ := startNATSAt(t, store, url[strings.LastIndex(url, ":")+1:]); again != url {
		t.Fatalf("restarted nats-server at %s, want %s", again, url)
	}
	for _, addr := range []string{coordAddr, workerAddr} {
		waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)
	}

	for _, p := range []*proc{worker, coord} {
		if err := p.stop(t, syscall.SIGTERM); err != nil {
			t.Errorf("%s exit after SIGTERM: %v", p.name, err)
		}
		// --log-format json: every line one JSON object with a time, a
		// level and a message.
		lines := 0
		for line := range strings.Lines(p.out.String()) {
			lines++
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("%s: log line %q is not a JSON object: %v", p.name, line, err)
				continue
			}
			for _, k := range []string{"time", "level", "msg"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("%s: log line %q has no %q", p.name, line, k)
				}
			}
		}
		if lines < 3 {
			t.Errorf("%s: %d log lines, want its start, the connection and its stop:\n%s", p.name, lines, p.out.String())
		}
	}
	if code, _ := status("http://" + workerAddr + "/healthz"); code != 0 {
		t.Errorf("worker's /healthz after it exited: %d, want no connection", code)
	}
}

// analyze without --nats serves the embedded cluster's metrics while its
// job runs, on the address it prints.
func TestAnalyzeServesMetrics(t *testing.T) {
	runsBinaries(t)
	cmd := exec.Command(binary("analyze"), append(countArgs, "--data", t.TempDir(), "--metrics-addr", "127.0.0.1:0")...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	served := regexp.MustCompile(`^analyze: serving metrics on http://(\S+)/metrics$`)
	var addr string
	for addr == "" && lines.Scan() {
		if m := served.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("analyze printed no \"serving metrics on\" line (%v)", lines.Err())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)
	var last float64
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s := scrape(t, addr)
		last, _ = s.Get(metrics.TasksCompleted, "kind", "mnk.count")
		running, _ := s.Get(metrics.JobsByState, "state", "running")
		if last > 0 && running == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("during the job: %v tasks completed, %v jobs running; want some and 1", last, running)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("analyze: %v", err)
	}
	rep := parseReport(t, stdout.String())
	if !rep.Complete || last > float64(rep.Tasks) {
		t.Errorf("report of %d tasks, complete %v; %v tasks completed when scraped", rep.Tasks, rep.Complete, last)
	}
	if code, _ := status("http://" + addr + "/healthz"); code != 0 {
		t.Errorf("/healthz after analyze exited: %d, want no connection", code)
	}
}

// A bad --metrics-addr or --log-format is a usage error: exit 2, one line.
func TestObservabilityUsageErrors(t *testing.T) {
	runsBinaries(t)
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"worker", []string{"--data", t.TempDir(), "--log-format", "xml"}, `--log-format "xml": want text or json`},
		{"coordinator", []string{"--data", t.TempDir(), "--metrics-addr", "9090"}, `--metrics-addr "9090": want HOST:PORT`},
		{"worker", []string{"--data", t.TempDir(), "--metrics-addr", "127.0.0.1:99999"}, "port"},
		{"analyze", []string{"mnk", "count", "--board", "3x3", "--nats", "nats://127.0.0.1:1", "--metrics-addr", "127.0.0.1:0"}, "not with --nats"},
		{"analyze", []string{"mnk", "count", "--board", "3x3", "--data", t.TempDir(), "--metrics-addr", "localhost"}, "want HOST:PORT"},
	} {
		cmd := exec.Command(binary(c.cmd), c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%s %v: %v, stderr %q; want exit code 2 and one line with %q", c.cmd, c.args, err, stderr.String(), c.want)
		}
	}
}

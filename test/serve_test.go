package test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// servingOn waits for analyze serve to print its address and returns the
// base URL.
func servingOn(t *testing.T, p *proc) string {
	t.Helper()
	re := regexp.MustCompile(`serving on (http://127\.0\.0\.1:\d+)/`)
	deadline := time.Now().Add(time.Minute)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("analyze serve exited: %v\n%s", p.err, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("analyze serve printed no address within a minute:\n%s", p.out.String())
		}
	}
}

// analyze serve binds 127.0.0.1 by default, serves the pages with their
// security headers, and stops cleanly on an interrupt.
func TestServeEmbedded(t *testing.T) {
	runsBinaries(t)
	p := start(t, "analyze serve", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--workers", "1")
	url := servingOn(t, p)
	for _, path := range []string{"/", "/play", "/nineboard", "/sudoku", "/jobs"} {
		res, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s, want 200", path, res.Status)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
	if err := p.stop(t, syscall.SIGINT); err != nil {
		t.Errorf("analyze serve after an interrupt: %v, want exit 0\n%s", err, p.out.String())
	}
}

func TestServeUsageErrors(t *testing.T) {
	runsBinaries(t)
	expectUsageErrors(t, []usageCase{
		{[]string{"serve", "--addr", "nonsense"}, "--addr"},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "--addr"},
		{[]string{"serve", "--max-games", "0"}, "--max-games"},
		{[]string{"serve", "--idle-game", "1s"}, "--idle-game"},
		{[]string{"serve", "extra"}, "no arguments"},
		{[]string{"serve", "--nats", "ftp://x"}, "--nats"},
	}, always)
}

// analyze serve --nats is a client of a cluster: a job submitted through
// its API runs on the cluster's coordinator and workers (other processes)
// and its report is the one analyze prints for the same job.
func TestServeOnCluster(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	c := startCluster(t)
	p := start(t, "analyze serve", "serve", "--addr", "127.0.0.1:0", "--nats", c.url)
	url := servingOn(t, p)
	res, err := http.Post(url+"/api/jobs", "application/json",
		strings.NewReader(`{"kind": "mnk.count", "params": {"rows": 4, "cols": 4, "split_depth": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /api/jobs: %s %s, want 202", res.Status, body)
	}
	var sub struct{ ID string }
	if err := json.Unmarshal(body, &sub); err != nil || sub.ID == "" {
		t.Fatalf("POST /api/jobs answered %q: %v", body, err)
	}
	id := sub.ID
	// The CLI, on the same cluster, follows the web's job to its report.
	sameFigures(t, c.report(t, id), want)
	res, err = http.Get(url + "/api/jobs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got struct {
		State  string          `json:"state"`
		Text   string          `json:"text"`
		Report json.RawMessage `json:"report"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.State != "done" || !strings.Contains(got.Text, "15,038,733,958,272") {
		t.Errorf("GET /api/jobs/%s: state %q, text %q; want done and 15,038,733,958,272 games", id, got.State, got.Text)
	}
	sameFigures(t, parseReport(t, string(got.Report)), want)
	// analyze with the same parameters on the same cluster: the same figures.
	out, err := run(t, "analyze", append(countArgs, "--nats", c.url)...)
	if err != nil {
		t.Fatal(err)
	}
	sameFigures(t, parseReport(t, out), want)
}

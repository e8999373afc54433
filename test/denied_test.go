package test

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A client command run with a worker's credentials, which the documented
// permissions do not let submit, list or cancel jobs, says so at once:
// exit 1 and a line naming the permission refused, not a wait until it is
// killed.
func TestClientCommandsRefusedPermission(t *testing.T) {
	runsBinaries(t)
	url, _, _ := startNATSConf(t, permissionsConf(t),
		"WOPR_COORDINATOR_PASSWORD=c-pw", "WOPR_WORKER_PASSWORD=w-pw", "WOPR_CLIENT_PASSWORD=cl-pw")
	coordinator := conn{url: url, env: []string{"WOPR_NATS_USER=coordinator", "WOPR_NATS_PASSWORD=c-pw"}}
	worker := conn{url: url, env: []string{"WOPR_NATS_USER=worker", "WOPR_NATS_PASSWORD=w-pw"}}
	client := conn{url: url, env: []string{"WOPR_NATS_USER=client", "WOPR_NATS_PASSWORD=cl-pw"}}
	startEnv(t, coordinator.env, "coordinator", coordinator.args("--data", filepath.Join(t.TempDir(), "c"))...)
	// A job that waits, no worker running.
	r := runEnv(t, client.env, "analyze", client.args("mnk", "count", "--board", "4x4", "--detach")...)
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || id == "" {
		t.Fatalf("analyze --detach as a client: exit %d: %q %s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"jobs"},
		{"mnk", "count", "--board", "3x3"},
		{"cancel", id},
		{"sudoku", "solve", "../datasets/sudoku/norvig-top95.txt.gz", "-q"},
		{"workers"},
		{"status"},
	} {
		r = runEnv(t, worker.env, "analyze", worker.args(args...)...)
		line := strings.TrimSpace(r.stderr)
		if r.code != 1 || !strings.Contains(line, "permission") || strings.Contains(line, "\n") {
			t.Errorf("analyze %s as a worker: exit %d after %v, stderr %q; want exit 1 and one line naming the permission",
				strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), line)
		}
		t.Logf("analyze %s as a worker: exit %d after %v: %s", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), line)
		if r.elapsed > 10*time.Second {
			t.Errorf("analyze %s as a worker: %v, want the refusal at once", strings.Join(args, " "), r.elapsed.Round(time.Millisecond))
		}
	}

	// The web face as a client with those credentials answers at once too.
	p := startEnv(t, worker.env, "analyze serve", worker.args("serve", "--addr", "127.0.0.1:0")...)
	web := servingOn(t, p)
	asked := time.Now()
	res, err := http.Get(web + "/api/jobs")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode < 500 || !strings.Contains(string(body), "permission") || time.Since(asked) > 10*time.Second {
		t.Errorf("GET /api/jobs of analyze serve as a worker: %s %s after %v, want a 5xx naming the permission at once",
			res.Status, body, time.Since(asked).Round(time.Millisecond))
	}
}

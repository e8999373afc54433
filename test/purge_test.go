package test

import (
	"encoding/json"
	"strings"
	"testing"
)

// analyze cache purge --job deletes what a job merged from the result
// cache: the same job is computed again, to the same figures. --worker
// quarantines a worker; neither, or both, is a usage error.
func TestCachePurge(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	count := func() (id string, cached int) {
		t.Helper()
		out, err := run(t, "analyze", "mnk", "count", "--board", "3x3", "--data", dir, "--json")
		if err != nil {
			t.Fatal(err)
		}
		rep := parseReport(t, out)
		if rep.Games != 255168 {
			t.Fatalf("3x3: %d games, want 255168", rep.Games)
		}
		jobs, err := run(t, "analyze", "jobs", "--data", dir)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(jobs) {
			if f := strings.Fields(line); len(f) > 1 && f[1] == "mnk.count" && id == "" {
				id = f[0]
			}
		}
		return id, rep.CachedTasks
	}
	id, cached := count()
	if _, again := count(); cached != 0 || again == 0 {
		t.Fatalf("cached tasks %d then %d, want none then all", cached, again)
	}
	out, err := run(t, "analyze", "cache", "purge", "--job", id, "--data", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Job    string `json:"job"`
		Purged int    `json:"purged"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Job != id || rep.Purged == 0 {
		t.Fatalf("purge --job %s: %s (%v)", id, out, err)
	}
	if _, cached := count(); cached != 0 {
		t.Errorf("after the purge, %d tasks from the cache, want none", cached)
	}
	out, err = run(t, "analyze", "cache", "purge", "--worker", "w-1", "--data", dir)
	if err != nil || !strings.Contains(out, "quarantined") {
		t.Errorf("purge --worker: %v\n%s", err, out)
	}
	expectUsageErrors(t, []usageCase{
		{[]string{"cache", "purge"}, "want a worker or a job, one of them"},
		{[]string{"cache", "purge", "--worker", "w", "--job", id}, "want a worker or a job, one of them"},
		{[]string{"cache", "purge", "--worker", "a.b"}, `worker "a.b": 1 to 64 letters`},
		{[]string{"cache", "purge", "--verify", "0.5", "--worker", "w"}, "flag provided but not defined"},
	}, always)
}

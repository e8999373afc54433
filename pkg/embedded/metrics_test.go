package embedded_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// probe returns the status code and body of a GET of url.
func probe(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// An embedded cluster with metrics wired: a job's tasks are counted once
// each, as completed, merged and timed; the job is counted done; /readyz
// says 503 before the cluster runs and once it is closed (the
// multi-process test stops a NATS server under a worker).
func TestMetricsOfAJob(t *testing.T) {
	reg := metrics.New()
	srv, err := metrics.Serve("127.0.0.1:0", reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	var cluster atomic.Pointer[embedded.Cluster]
	srv.SetReady(func() error {
		if c := cluster.Load(); c != nil {
			return c.Ready()
		}
		return errors.New("starting")
	})
	base := "http://" + srv.Addr()
	if code, body := probe(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "starting") {
		t.Errorf("/readyz before the cluster: %d %q, want 503 starting", code, body)
	}

	c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: 2, Queue: testQueue(), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	cluster.Store(c)
	if code, body := probe(t, base+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz with the cluster running: %d %q, want 200", code, body)
	}
	if code, _ := probe(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d, want 200", code)
	}

	j, _ := count(t, c.Broker, mnk.CountParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1})
	if j.Tasks < 2 {
		t.Fatalf("job of %d tasks, want several", j.Tasks)
	}
	// The job's record reaches the coordinator's watch just after it is
	// written: poll for the state.
	var got metrics.Samples
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err = metrics.Scrape(context.Background(), base+"/metrics")
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := got.Get(metrics.JobsByState, "state", "done"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			v, _ := got.Get(metrics.JobsByState, "state", "done")
			t.Fatalf("%s{state=\"done\"} = %v for 30 s, want 1", metrics.JobsByState, v)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
	tasks := float64(j.Tasks)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{metrics.TasksCompleted, []string{"kind", "mnk.count"}, tasks},
		{metrics.ResultsMerged, []string{"kind", "mnk.count"}, tasks},
		{metrics.TaskDuration + "_count", []string{"kind", "mnk.count"}, tasks},
		{metrics.TaskDuration + "_bucket", []string{"kind", "mnk.count", "le", "+Inf"}, tasks},
		{metrics.JobsByState, []string{"state", "running"}, 0},
		{metrics.JobsByState, []string{"state", "submitted"}, 0},
		{metrics.JobsByState, []string{"state", "failed"}, 0},
	} {
		if v, ok := got.Get(c.name, c.labels...); v != c.want {
			t.Errorf("%s = %v (present %v), want %v", metrics.Series(c.name, c.labels...), v, ok, c.want)
		}
	}
	for _, absent := range []string{metrics.TasksFailed, metrics.TasksRedelivered, metrics.TasksRetried} {
		for series := range got {
			if strings.HasPrefix(series, absent+"{") {
				t.Errorf("%s = %v, want no such series: nothing failed or came twice", series, got[series])
			}
		}
	}
	if _, ok := got.Get(metrics.QueuePending); !ok {
		t.Errorf("%s: not in the scrape, want the sampled work queue", metrics.QueuePending)
	}

	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, body := probe(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not connected") {
		t.Errorf("/readyz once the cluster is closed: %d %q, want 503 not connected", code, body)
	}
	if code, _ := probe(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz once the cluster is closed: %d, want 200 (the process is alive)", code)
	}
}

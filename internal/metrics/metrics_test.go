package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/pkg/coordinator"
	"github.com/woprlabs/wopr/pkg/worker"
)

// serve serves r on a free port of 127.0.0.1 until the test ends.
func serve(t *testing.T, r *metrics.Registry) *metrics.Server {
	t.Helper()
	s, err := metrics.Serve("127.0.0.1:0", r, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func scrape(t *testing.T, s *metrics.Server) metrics.Samples {
	t.Helper()
	samples, err := metrics.Scrape(context.Background(), "http://"+s.Addr()+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return samples
}

// want checks one series of a scrape.
func want(t *testing.T, s metrics.Samples, value float64, name string, labels ...string) {
	t.Helper()
	got, ok := s.Get(name, labels...)
	if !ok {
		t.Errorf("%s: not in the scrape", metrics.Series(name, labels...))
		return
	}
	if got != value {
		t.Errorf("%s = %v, want %v", metrics.Series(name, labels...), got, value)
	}
}

func TestHooksMoveTheirSeries(t *testing.T) {
	r := metrics.New()
	s := serve(t, r)
	// A fresh registry shows no wopr series: a vector has none until a
	// hook names its labels, and the queue gauges wait for SampleQueue.
	for series := range scrape(t, s) {
		if strings.HasPrefix(series, "wopr_") {
			t.Errorf("fresh registry exposes %s", series)
		}
	}
	r.TaskDone("mnk.count", 0.002)
	r.TaskDone("mnk.count", 0.5)
	r.TaskDone("sudoku.solve", 3)
	r.TaskFailed("mnk.count")
	r.TaskRetried("mnk.count")
	r.TaskRedelivered("sudoku.solve")
	r.TaskRedelivered("sudoku.solve")
	r.CacheHits("mnk.count", 7)
	r.ResultMerged("mnk.count")
	r.TaskCached("mnk.count")
	r.TaskDeadLettered("sudoku.solve")
	r.Jobs("running", 3)
	r.Jobs("done", 2)
	r.Jobs("running", 1)

	got := scrape(t, s)
	want(t, got, 2, metrics.TasksCompleted, "kind", "mnk.count")
	want(t, got, 1, metrics.TasksCompleted, "kind", "sudoku.solve")
	want(t, got, 1, metrics.TasksFailed, "kind", "mnk.count", "reason", metrics.ReasonError)
	want(t, got, 1, metrics.TasksFailed, "kind", "sudoku.solve", "reason", metrics.ReasonMaxDeliver)
	want(t, got, 1, metrics.TasksRetried, "kind", "mnk.count")
	want(t, got, 2, metrics.TasksRedelivered, "kind", "sudoku.solve")
	want(t, got, 7, metrics.CacheHitsTotal, "kind", "mnk.count", "cache", metrics.CacheItem)
	want(t, got, 1, metrics.CacheHitsTotal, "kind", "mnk.count", "cache", metrics.CacheResult)
	want(t, got, 1, metrics.ResultsMerged, "kind", "mnk.count")
	want(t, got, 1, metrics.JobsByState, "state", "running")
	want(t, got, 2, metrics.JobsByState, "state", "done")
	// The histogram: two observations of mnk.count, one under 2.5 ms
	// (bucket bounds 0.001 * 2.5^k), one under a second.
	want(t, got, 2, metrics.TaskDuration+"_count", "kind", "mnk.count")
	want(t, got, 0.502, metrics.TaskDuration+"_sum", "kind", "mnk.count")
	want(t, got, 0, metrics.TaskDuration+"_bucket", "kind", "mnk.count", "le", "0.001")
	want(t, got, 1, metrics.TaskDuration+"_bucket", "kind", "mnk.count", "le", "0.0025")
	want(t, got, 2, metrics.TaskDuration+"_bucket", "kind", "mnk.count", "le", "+Inf")
	want(t, got, 1, metrics.TaskDuration+"_count", "kind", "sudoku.solve")
	// The Go and process collectors.
	if v, ok := got.Get("go_goroutines"); !ok || v < 1 {
		t.Errorf("go_goroutines = %v (present %v), want at least 1", v, ok)
	}
	if _, ok := got.Get("process_start_time_seconds"); !ok {
		t.Error("process_start_time_seconds: not in the scrape")
	}
}

func TestNamesHoldEveryMetric(t *testing.T) {
	names := metrics.Names()
	for _, n := range []string{
		metrics.TasksCompleted, metrics.TasksFailed, metrics.TasksRetried, metrics.TasksRedelivered,
		metrics.TaskDuration + "_bucket", metrics.TaskDuration + "_sum", metrics.TaskDuration + "_count",
		metrics.CacheHitsTotal, metrics.ResultsMerged, metrics.JobsByState, metrics.QueuePending, metrics.QueueInFlight,
		"go_goroutines", "process_resident_memory_bytes",
	} {
		if !slices.Contains(names, n) {
			t.Errorf("Names() lacks %s; got %v", n, names)
		}
	}
	if slices.Contains(names, metrics.TaskDuration) {
		t.Errorf("Names() holds %s, a histogram's name that no series has", metrics.TaskDuration)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestHealthAndReadiness(t *testing.T) {
	s := serve(t, metrics.New())
	base := "http://" + s.Addr()
	if code, body := get(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d %q, want 200", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "starting") {
		t.Errorf("/readyz before SetReady: %d %q, want 503 saying starting", code, body)
	}
	var down atomic.Bool
	s.SetReady(func() error {
		if down.Load() {
			return errors.New("not connected to nats")
		}
		return nil
	})
	if code, body := get(t, base+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz when ready: %d %q, want 200", code, body)
	}
	down.Store(true)
	if code, body := get(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not connected to nats") {
		t.Errorf("/readyz when not: %d %q, want 503 with the reason", code, body)
	}
	if code, _ := get(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while not ready: %d, want 200", code)
	}
	if code, _ := get(t, base+"/nothing"); code != http.StatusNotFound {
		t.Errorf("/nothing: %d, want 404", code)
	}
}

func TestCloseStopsServing(t *testing.T) {
	s, err := metrics.Serve("127.0.0.1:0", metrics.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get("http://" + s.Addr() + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatalf("/healthz after Close: %s, want no connection", resp.Status)
	}
}

func TestServeRefusesBadAddress(t *testing.T) {
	for _, addr := range []string{"", "9090", "localhost", "127.0.0.1:http", "127.0.0.1:70000", "127.0.0.1:-1"} {
		if err := metrics.CheckAddr(addr); err == nil {
			t.Errorf("CheckAddr(%q) = nil, want an error", addr)
		}
		if s, err := metrics.Serve(addr, metrics.New(), nil); err == nil {
			_ = s.Close(context.Background())
			t.Errorf("Serve(%q) = nil error, want one", addr)
		}
	}
	for _, addr := range []string{":9090", "127.0.0.1:0", "[::1]:9090", "localhost:9090"} {
		if err := metrics.CheckAddr(addr); err != nil {
			t.Errorf("CheckAddr(%q) = %v, want nil", addr, err)
		}
	}
}

// fakeQueue counts the samples taken of it.
type fakeQueue struct {
	queued  atomic.Uint64
	samples atomic.Int64
	fail    atomic.Bool
}

func (q *fakeQueue) QueuedTasks(context.Context) (uint64, error) {
	q.samples.Add(1)
	if q.fail.Load() {
		return 0, errors.New("nats down")
	}
	return q.queued.Load(), nil
}

func (q *fakeQueue) InFlight(context.Context) (int, error) {
	if q.fail.Load() {
		return 0, errors.New("nats down")
	}
	return int(q.queued.Load() / 2), nil
}

// waitSample polls the scrape until the queue gauges hold pending and
// inFlight, for up to 10 s.
func waitSample(t *testing.T, s *metrics.Server, pending, inFlight float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := scrape(t, s)
		p, _ := got.Get(metrics.QueuePending)
		f, _ := got.Get(metrics.QueueInFlight)
		if p == pending && f == inFlight {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue gauges: pending %v, in flight %v; want %v and %v", p, f, pending, inFlight)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}

func TestSampleQueue(t *testing.T) {
	r := metrics.New()
	s := serve(t, r)
	q := &fakeQueue{}
	q.queued.Store(40)
	stop := r.SampleQueue(q, 20*time.Millisecond, nil)
	waitSample(t, s, 40, 20)
	q.queued.Store(6)
	waitSample(t, s, 6, 3)
	// A failed sample leaves the last values.
	q.fail.Store(true)
	n := q.samples.Load()
	deadline := time.Now().Add(10 * time.Second)
	for q.samples.Load() < n+2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d samples in 10 s, want 2", q.samples.Load()-n)
		}
		time.Sleep(5 * time.Millisecond) // polling with a deadline
	}
	waitSample(t, s, 6, 3)
	stop() // returns once the sampling goroutine has exited
}

// The registry is what the coordinator and the worker count with, and the
// work queue is what it samples.
var (
	_ coordinator.Metrics = (*metrics.Registry)(nil)
	_ worker.Metrics      = (*metrics.Registry)(nil)
	_ metrics.Queue       = (*broker.Work)(nil)
)

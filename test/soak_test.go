package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/metrics"
	"github.com/woprlabs/wopr/pkg/client"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// The soak: soakClients clients submit soakJobs jobs at once.
const (
	soakClients = 8
	soakJobs    = 1000
)

// soakTasks bounds the tasks of a soak job.
const soakTasks = 48

// soakParams returns soakJobs distinct mnk.count jobs of at most soakTasks
// tasks each, and the report of each as the kind makes it in this process:
// boards of at most 12 cells (16 with k at most 2), every k, split at the
// automatic depth and at every ply. Most are a few tasks of a few
// milliseconds, some none (split below the end of every game); no two are
// the same, so none follows another's record, and the coordinator's cache
// answers only the tasks that two jobs share (a position of the same game).
func soakParams(t *testing.T) ([]mnk.CountParams, []*mnk.CountReport) {
	t.Helper()
	var ps []mnk.CountParams
	var plans []tasks.Plan
	for rows := 1; rows <= 8; rows++ {
		for cols := 1; cols <= 8 && rows*cols <= 16; cols++ {
			for k := 1; k <= max(rows, cols) && (rows*cols <= 12 || k <= 2); k++ {
				for d := -1; d <= rows*cols && len(ps) < soakJobs; d++ {
					p := mnk.CountParams{Rows: rows, Cols: cols, K: k, SplitDepth: d}
					raw, _ := json.Marshal(p)
					plan, err := mnk.Count{}.Plan(context.Background(), raw, tasks.PlanEnv{})
					if err != nil {
						t.Fatalf("%+v: %v", p, err)
					}
					if len(plan.Tasks()) > soakTasks {
						continue
					}
					ps = append(ps, p)
					plans = append(plans, plan)
				}
			}
		}
	}
	if len(ps) < soakJobs {
		t.Fatalf("%d distinct jobs, want %d", len(ps), soakJobs)
	}
	reports := make([]*mnk.CountReport, len(plans))
	var wg sync.WaitGroup
	for w := range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := w; i < len(plans); i += runtime.GOMAXPROCS(0) {
				reports[i] = taskstest.RunPlan(t, mnk.Count{}, plans[i], tasks.Env{}, tasks.Summary{}).(*mnk.CountReport)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return ps, reports
}

// coordinatorLevel is what the soak measures of the coordinator.
type coordinatorLevel struct {
	goroutines, rss, heap float64 // heap: bytes of the heap in use
}

func (l coordinatorLevel) String() string {
	return fmt.Sprintf("%.0f goroutines, %.1f MB resident, %.1f MB heap in use", l.goroutines, l.rss/1e6, l.heap/1e6)
}

func measure(t *testing.T, addr string) coordinatorLevel {
	t.Helper()
	s := scrape(t, addr)
	var l coordinatorLevel
	var ok [3]bool
	l.goroutines, ok[0] = s.Get("go_goroutines")
	l.rss, ok[1] = s.Get("process_resident_memory_bytes")
	l.heap, ok[2] = s.Get("go_memstats_heap_inuse_bytes")
	if ok != [3]bool{true, true, true} {
		t.Fatalf("the coordinator's metrics lack go_goroutines, process_resident_memory_bytes or go_memstats_heap_inuse_bytes: %v", ok)
	}
	return l
}

// Tolerances of the coordinator's level after the soak, over its level
// before. Goroutines: the HTTP connections of the scrapes come and go. The
// heap in use holds, besides what the jobs leave for good (the ids of
// finished jobs, a few dozen bytes each), garbage until the next
// collection: up to a quarter of the live heap (the collector runs at
// GOGC=25, cmd/internal/collector). Resident memory grows to Badger's
// budgets, which the jobs' results fill and which do not grow with the
// number of jobs: its memtable (a 32 MB arena, and its write-ahead file of
// as much, mapped) until it is flushed, and its 32 MB block cache; and the
// Go runtime gives freed pages back to the system a little at a time.
const (
	soakGoroutines = 5
	soakRSS        = 96 << 20
	soakHeapSlack  = 8 << 20
)

// soakHeap is the heap in use allowed after the soak.
func soakHeap(before float64) float64 { return before*1.25 + soakHeapSlack }

// Soak: 8 clients (pkg/client, as analyze uses it) submit 1,000 small
// jobs at once to a nats-server, a coordinator and two workers, then each
// waits for its jobs' reports. Every report equals the job's run in this
// process (taskstest.RunPlan), with no failed task; the coordinator's
// goroutines and memory, read from its /metrics, come back to their level
// before the soak, within the tolerances above. The figures are logged.
func TestSoak(t *testing.T) {
	runsBinaries(t)
	params, want := soakParams(t)

	url := startNATS(t)
	dir := t.TempDir()
	coord := start(t, "coordinator", "--nats", url, "--data", filepath.Join(dir, "coordinator"),
		"--metrics-addr", "127.0.0.1:0", "--log-format", "json")
	for _, name := range []string{"w1", "w2"} {
		start(t, "worker "+name, "--nats", url, "--data", filepath.Join(dir, name), "--concurrency", "1", "--name", name)
	}
	addr := metricsAddr(t, coord)
	waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)
	before := measure(t, addr)

	// The peak, sampled every 100 ms while the jobs run.
	var peak coordinatorLevel
	stopSampling := make(chan struct{})
	var sampling sync.WaitGroup
	sampling.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
			s, err := metrics.Scrape(context.Background(), "http://"+addr+"/metrics")
			if err != nil {
				continue
			}
			g, _ := s.Get("go_goroutines")
			r, _ := s.Get("process_resident_memory_bytes")
			h, _ := s.Get("go_memstats_heap_inuse_bytes")
			peak = coordinatorLevel{max(peak.goroutines, g), max(peak.rss, r), max(peak.heap, h)}
		}
	})

	// 20 to 35 s on an idle 2-core machine; a CI run that shared it with
	// other tests and benchmarks took over 3 minutes (each submission lists
	// the job records to find an unfinished job with its spec, which grows
	// with the records kept).
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	began := time.Now()
	var clients sync.WaitGroup
	var submitted time.Duration
	var mu sync.Mutex
	for c := range soakClients {
		clients.Go(func() {
			opts := func(out *bytes.Buffer) client.Options {
				return client.Options{NATS: url, JSON: true, Quiet: true, Stdout: out, Stderr: out}
			}
			var ids []string
			var mine []int
			for i := c; i < len(params); i += soakClients {
				raw, _ := json.Marshal(params[i])
				var out bytes.Buffer
				o := opts(&out)
				o.Detach = true
				if err := client.Run(ctx, o, tasks.Spec{Kind: "mnk.count", Params: raw}); err != nil {
					t.Errorf("client %d: submit %s: %v", c, raw, err)
					return
				}
				var sub struct{ Job string }
				if err := json.Unmarshal(out.Bytes(), &sub); err != nil {
					t.Errorf("client %d: submit %s printed %q", c, raw, out.String())
					return
				}
				ids, mine = append(ids, sub.Job), append(mine, i)
			}
			mu.Lock()
			submitted = max(submitted, time.Since(began))
			mu.Unlock()
			for n, id := range ids {
				var out bytes.Buffer
				if err := client.Report(ctx, opts(&out), id, true); err != nil {
					t.Errorf("client %d: job %s (%+v): %v", c, id, params[mine[n]], err)
					continue
				}
				var got countReport
				if err := json.Unmarshal(out.Bytes(), &got); err != nil {
					t.Errorf("client %d: job %s: report %q: %v", c, id, out.String(), err)
					continue
				}
				if !got.Complete || got.FailedTasks != 0 || !reflect.DeepEqual(got.CountReport, *want[mine[n]]) {
					t.Errorf("client %d: job %s (%+v): complete %v, %d failed tasks, report\n%+v\nwant %+v",
						c, id, params[mine[n]], got.Complete, got.FailedTasks, got.CountReport, *want[mine[n]])
				}
			}
		})
	}
	clients.Wait()
	elapsed := time.Since(began)
	close(stopSampling)
	sampling.Wait()
	if t.Failed() {
		return
	}

	// Back to the level before, within the tolerances, in a minute.
	var after coordinatorLevel
	deadline := time.Now().Add(time.Minute)
	for {
		after = measure(t, addr)
		if after.goroutines <= before.goroutines+soakGoroutines && after.rss <= before.rss+soakRSS && after.heap <= soakHeap(before.heap) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the coordinator a minute after the soak: %v; before: %v; want at most %d goroutines and %d MB resident more, %.1f MB of heap in use",
				after, before, soakGoroutines, soakRSS>>20, soakHeap(before.heap)/1e6)
			break
		}
		time.Sleep(500 * time.Millisecond) // polling with a deadline
	}
	t.Logf("%d jobs from %d clients: submitted in %.1f s, all reported in %.1f s", len(params), soakClients, submitted.Seconds(), elapsed.Seconds())
	t.Logf("coordinator before: %v", before)
	t.Logf("coordinator peak:   %v", peak)
	t.Logf("coordinator after:  %v", after)
}

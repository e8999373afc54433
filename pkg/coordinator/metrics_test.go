package coordinator

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
)

// counts is a Metrics that counts the calls by hook and kind, and keeps
// the last number of jobs set for each state.
type counts struct {
	mu   sync.Mutex
	n    map[string]int
	jobs map[string]int
}

func newCounts() *counts { return &counts{n: map[string]int{}, jobs: map[string]int{}} }

func (c *counts) add(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[key]++
}

func (c *counts) ResultMerged(kind string)     { c.add("merged " + kind) }
func (c *counts) TaskCached(kind string)       { c.add("cached " + kind) }
func (c *counts) TaskDeadLettered(kind string) { c.add("dead " + kind) }
func (c *counts) Jobs(state string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs[state] = n
}

func (c *counts) get() (map[string]int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n), maps.Clone(c.jobs)
}

// waitCounts polls m until its counts and jobs are want and wantJobs, for
// up to a minute.
func waitCounts(t *testing.T, m *counts, want, wantJobs map[string]int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, jobs := m.get()
		if maps.Equal(got, want) && maps.Equal(jobs, wantJobs) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics %v, jobs %v; want %v and %v", got, jobs, want, wantJobs)
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
}

// The hooks count each result merged once, tasks answered from the cache,
// dead letters, and the job records by state as the watch and the
// reconciliation see them.
func TestMetricsCounted(t *testing.T) {
	f := newFakeBroker()
	db, err := store.Open("", store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	m := newCounts()
	c, err := Start(context.Background(), Config{Jobs: f, Work: f, Objects: f.objects, Conn: f, DB: db, ProgressEvery: 10 * time.Millisecond, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close(context.Background())
		_ = db.Close()
	})
	const kind = "coordtest.squares"
	jobs := func(submitted, running, done int) map[string]int {
		return map[string]int{"submitted": submitted, "running": running, "done": done, "cancelled": 0, "failed": 0}
	}
	waitCounts(t, m, map[string]int{}, jobs(0, 0, 0))

	// Every result three times: merged once each.
	first := f.submit(t, kind, squaresParams{N: 3})
	for _, task := range published(t, f, first, 3) {
		for range 3 {
			f.results <- answer(task)
		}
	}
	waitRecord(t, f, first, "the end", final)
	waitCounts(t, m, map[string]int{"merged " + kind: 3}, jobs(0, 0, 1))

	// The same tasks again: answered from the cache, none published.
	again := f.submit(t, kind, squaresParams{N: 3})
	waitRecord(t, f, again, "the end", final)
	waitCounts(t, m, map[string]int{"merged " + kind: 3, "cached " + kind: 3}, jobs(0, 0, 2))

	// A dead letter, and a job left running.
	dead := f.submit(t, kind, squaresParams{N: 2, From: 10})
	ts := published(t, f, dead, 2)
	f.dead <- ts[0]
	f.results <- answer(ts[1])
	waitRecord(t, f, dead, "the end", final)
	running := f.submit(t, kind, squaresParams{N: 2, From: 20})
	published(t, f, running, 2)
	want := map[string]int{"merged " + kind: 4, "cached " + kind: 3, "dead " + kind: 1}
	waitCounts(t, m, want, jobs(0, 1, 3))

	// A record deleted: the watch does not say so, the reconciliation does.
	f.mu.Lock()
	delete(f.records, first)
	f.mu.Unlock()
	c.reconcile()
	waitCounts(t, m, want, jobs(0, 1, 2))
}

// A reconciliation that listed a record before the watch delivered a later
// version of it keeps the later state: a job's state never goes back.
func TestJobStatesNeverGoBack(t *testing.T) {
	m := newCounts()
	s := newJobStates(m)
	s.see(&job.Record{ID: "a", State: job.Submitted})
	s.see(&job.Record{ID: "b", State: job.Submitted})
	s.see(&job.Record{ID: "a", State: job.Running})
	s.see(&job.Record{ID: "a", State: job.Done})
	s.replace([]*job.Record{{ID: "a", State: job.Running}, {ID: "b", State: job.Submitted}, {ID: "c", State: job.Failed}})
	_, got := m.get()
	want := map[string]int{"submitted": 1, "running": 0, "done": 1, "cancelled": 0, "failed": 1}
	if !maps.Equal(got, want) {
		t.Errorf("jobs %v, want %v", got, want)
	}
	s.replace(nil)
	_, got = m.get()
	want = map[string]int{"submitted": 0, "running": 0, "done": 0, "cancelled": 0, "failed": 0}
	if !maps.Equal(got, want) {
		t.Errorf("jobs after every record went: %v, want %v", got, want)
	}
}

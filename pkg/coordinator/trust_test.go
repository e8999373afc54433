package coordinator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// by is the answer to t of worker w, right unless told otherwise.
func by(w string, t job.Task) job.Result {
	r := answer(t)
	r.Worker = w
	return r
}

// copies waits for the n-th publication of task id of job jobID and
// returns it.
func copyOf(t *testing.T, f *fakeBroker, jobID, id string, n int) job.Task {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var got []job.Task
		for _, task := range f.publishedTasks() {
			if task.Job == jobID && task.ID == id {
				got = append(got, task)
			}
		}
		if len(got) >= n {
			return got[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s/%s published %d times, want %d", jobID, id, len(got), n)
		}
		time.Sleep(time.Millisecond) // polling with a deadline
	}
}

// A result without its task's token, or with another task's, is refused:
// only a worker that was given a task answers it. The job ends with the
// right answer, the refusals counted.
func TestForgedResultsRefused(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 3})
	ts := published(t, f, id, 3)
	forged := by("rogue", ts[0])
	forged.Token, forged.Data = "", []byte("1000000")
	f.results <- forged
	stolen := by("rogue", ts[0])
	stolen.Token, stolen.Data = ts[1].Token, []byte("1000000") // another task's token
	f.results <- stolen
	wrongTry := by("rogue", ts[0])
	wrongTry.Try, wrongTry.Data = 1, []byte("1000000") // a try never published
	f.results <- wrongTry
	for _, task := range ts {
		f.results <- by("w1", task)
	}
	rec := waitRecord(t, f, id, "the end", final)
	rep := reportOf(t, rec)
	if rep.Sum != 0+1+4 || rep.RefusedResults != 3 || !rep.Complete {
		t.Errorf("sum %d, %d refused, complete %v; want 5, 3 refused, complete", rep.Sum, rep.RefusedResults, rep.Complete)
	}
}

// A result that fails its kind's check is refused and quarantines its
// worker: the task goes to another worker, every later result of the
// quarantined one is refused, in this job and the next, and what it
// computed before is gone from the result cache.
func TestCheckFailureQuarantines(t *testing.T) {
	f := newFakeBroker()
	c := start(t, f)
	earlier := f.submit(t, "coordtest.squares", squaresParams{N: 2, From: 20})
	for _, task := range published(t, f, earlier, 2) {
		f.results <- by("rogue", task)
	}
	waitRecord(t, f, earlier, "the earlier job's end", final)

	id := f.submit(t, "coordtest.squares", squaresParams{N: 3, From: 2})
	ts := published(t, f, id, 3)
	bad := by("rogue", ts[0])
	bad.Data = []byte("5") // not a square
	f.results <- bad
	again := copyOf(t, f, id, ts[0].ID, 2)
	if again.Try != 1 || len(again.NotBy) != 1 || again.NotBy[0] != "rogue" {
		t.Fatalf("task published again as try %d, not by %v; want try 1, not by rogue", again.Try, again.NotBy)
	}
	f.results <- by("rogue", ts[1]) // right, but from a quarantined worker
	f.results <- by("w1", again)
	f.results <- by("w1", copyOf(t, f, id, ts[1].ID, 2))
	f.results <- by("w1", ts[2])
	rep := reportOf(t, waitRecord(t, f, id, "the end", final))
	if rep.Sum != 4+9+16 || !rep.Complete || rep.RefusedResults != 2 || strings.Join(rep.QuarantinedWorkers, ",") != "rogue" {
		t.Errorf("sum %d, complete %v, %d refused, quarantined %v; want 29, complete, 2 refused, rogue",
			rep.Sum, rep.Complete, rep.RefusedResults, rep.QuarantinedWorkers)
	}
	if !strings.Contains(rec(t, f, id).Text, "quarantined workers") {
		t.Errorf("the report does not say who was quarantined:\n%s", rec(t, f, id).Text)
	}
	// The earlier job's results, the rogue's, are no longer in the cache:
	// the same job computes them again.
	n := 0
	if err := c.cfg.DB.Keys([]byte("cache/"), func([]byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("%d results cached, want the 3 that w1 computed", n)
	}
	rerun := f.submit(t, "coordtest.squares", squaresParams{N: 2, From: 20})
	if got := len(published(t, f, rerun, 2)); got != 2 {
		t.Errorf("%d tasks of the rerun published, want 2", got)
	}
}

// A failure is not believed on one worker's word, and a job may ask for
// a share of its tasks to be computed by two workers: what two workers
// agree on is merged, and a worker whose result differs from theirs is
// quarantined.
func TestSecondOpinions(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	raw := []byte(`{"n":3}`)
	r := job.New(tasks.Spec{Kind: "coordtest.squares", Params: raw, Verify: 1})
	f.mu.Lock()
	f.put(r)
	f.mu.Unlock()
	ts := published(t, f, r.ID, 3)

	// s0: a failure claimed, computed by another worker.
	fail := by("w1", ts[0])
	fail.Failed, fail.Data = "never", nil
	f.results <- fail
	f.results <- by("w2", copyOf(t, f, r.ID, "s0", 2))
	// s1: two workers agree.
	f.results <- by("w1", ts[1])
	f.results <- by("w2", copyOf(t, f, r.ID, "s1", 2))
	// s2: w1 lies (a square, so the check passes); w2 and w3 agree.
	lie := by("w1", ts[2])
	lie.Data = []byte("9")
	f.results <- lie
	f.results <- by("w2", copyOf(t, f, r.ID, "s2", 2))
	c3 := copyOf(t, f, r.ID, "s2", 3)
	if strings.Join(c3.NotBy, ",") != "w1,w2" {
		t.Fatalf("third copy of s2 not by %v, want w1,w2", c3.NotBy)
	}
	f.results <- by("w3", c3)
	rep := reportOf(t, waitRecord(t, f, r.ID, "the end", final))
	if rep.Sum != 0+1+4 || !rep.Complete || rep.VerifiedTasks != 3 || strings.Join(rep.QuarantinedWorkers, ",") != "w1" {
		t.Errorf("sum %d, complete %v, %d verified, quarantined %v; want 5, complete, 3 verified, w1",
			rep.Sum, rep.Complete, rep.VerifiedTasks, rep.QuarantinedWorkers)
	}

	// Two workers that fail a task fail it.
	r2 := f.submit(t, "coordtest.squares", squaresParams{N: 1, From: 7})
	t0 := published(t, f, r2, 1)[0]
	for i, w := range []string{"w2", "w3"} {
		res := by(w, copyOf(t, f, r2, t0.ID, i+1))
		res.Failed, res.Data = "never", nil
		f.results <- res
	}
	if rep := reportOf(t, waitRecord(t, f, r2, "the end", final)); rep.Complete || rep.FailedTasks != 1 {
		t.Errorf("a task two workers failed: complete %v, %d failed; want incomplete, 1", rep.Complete, rep.FailedTasks)
	}
}

// A quarantine outlives the coordinator: one started again on the same
// store refuses the worker's results.
func TestQuarantineKept(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Keep([]byte(quarantinePrefix+"rogue"), []byte("a test")); err != nil {
		t.Fatal(err)
	}
	f := newFakeBroker()
	c, err := Start(context.Background(), Config{Jobs: f, Work: f, Objects: f.objects, Conn: f, DB: db, ProgressEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	id := f.submit(t, "coordtest.squares", squaresParams{N: 1, From: 3})
	task := published(t, f, id, 1)[0]
	f.results <- by("rogue", task)
	f.results <- by("w1", copyOf(t, f, id, task.ID, 2))
	if rep := reportOf(t, waitRecord(t, f, id, "the end", final)); rep.Sum != 9 || rep.RefusedResults != 1 {
		t.Errorf("sum %d, %d refused; want 9, 1", rep.Sum, rep.RefusedResults)
	}
}

func rec(t *testing.T, f *fakeBroker, id string) *job.Record {
	t.Helper()
	r, _, err := f.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A task that a worker took and acknowledged without an answer (a rogue's
// way to stall a job) is found missing from the queue once the job makes
// no progress, and published again; one still queued is left alone.
func TestLostTaskPublishedAgain(t *testing.T) {
	f := newFakeBroker()
	c := start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 3})
	ts := published(t, f, id, 3)
	f.mu.Lock()
	delete(f.queued, id+"/"+ts[0].ID) // taken and acknowledged, unanswered
	f.mu.Unlock()
	f.results <- by("w1", ts[1])
	waitRecord(t, f, id, "one task done", func(r *job.Record) bool { return r.Done == 1 })
	c.findLost(time.Now()) // progress a moment ago: nothing looked up
	c.findLost(time.Now().Add(lostAfter))
	again := copyOf(t, f, id, ts[0].ID, 2)
	f.results <- by("w1", again)
	f.results <- by("w1", ts[2])
	if rep := reportOf(t, waitRecord(t, f, id, "the end", final)); rep.Sum != 0+1+4 || !rep.Complete {
		t.Errorf("sum %d, complete %v; want 5, complete", rep.Sum, rep.Complete)
	}
	n := 0
	for _, task := range f.publishedTasks() {
		if task.Job == id && task.ID == ts[2].ID {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a task still queued published %d times, want once", n)
	}
}

package embedded_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// heapBound is how much the heap of the test process (with the cluster
// in it) may grow while a job too big is refused: its plan would take
// gigabytes.
const heapBound = 256 << 20

func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A job of a hundred million tasks, its record written straight to the
// cluster (past the submit side's check), fails before it is planned,
// with a message that names its parameters and the limit, and the
// coordinator's memory stays flat. The cluster runs the next job.
func TestTooManyTasksFailsBeforePlanning(t *testing.T) {
	c := startCluster(t, t.TempDir(), 1)
	runtime.GC()
	base := heap()
	p := mnk.DefaultSimulateParams()
	p.Games, p.GamesPerTask = 100_000_000, 1
	id := submit(t, c.Broker, "mnk.simulate", p)
	var peak uint64
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if h := heap(); h > peak {
			peak = h
		}
		if peak > base+heapBound {
			t.Fatalf("heap grew from %d MB to %d MB while the job was taken up, want at most %d MB more",
				base>>20, peak>>20, heapBound>>20)
		}
		j, _, err := c.Broker.Jobs().Get(ctxFor(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State.Final() {
			want := "--games 100000000 --games-per-task 1: 100,000,000 tasks, more than the 1,000,000 a job may have"
			if j.State != job.Failed || !strings.Contains(j.Error, "--games-per-task 1") || !strings.Contains(j.Error, "1,000,000 a job may have") {
				t.Fatalf("job %s: %q, want failed with %q", j.State, j.Error, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s after 2 minutes, want failed at once", j.State)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline, sampling the heap
	}
	t.Logf("heap %d MB before, %d MB at most while the job was refused", base>>20, peak>>20)
	next := sumReportOf(t, wait(t, c.Broker, submit(t, c.Broker, "test.sum", sumParams{N: 3, Tag: uniqueTag("after-refusal")})))
	if next.Sum != sumOfSquares(3) {
		t.Errorf("next job: sum %d, want %d", next.Sum, sumOfSquares(3))
	}
}

// Cancelling a job while it is being planned stops its plan at once (the
// plan's context is done), not when the plan is made.
func TestCancelStopsPlanning(t *testing.T) {
	c := startCluster(t, t.TempDir(), 1)
	tag := uniqueTag("cancel-plan")
	id := submit(t, c.Broker, "test.sum", sumParams{N: 10, SlowPlan: tag, Tag: tag})
	select {
	case <-planning(tag):
	case <-time.After(time.Minute):
		t.Fatal("the plan never started")
	}
	if _, err := c.Broker.Jobs().Cancel(ctxFor(t), id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-planStopped(tag):
	case <-time.After(30 * time.Second):
		openGate(tag) // let it end
		t.Fatal("the plan went on 30 s after the job was cancelled, want it stopped at once")
	}
	if j := wait(t, c.Broker, id); j.State != job.Cancelled {
		t.Fatalf("state %s (%s), want cancelled", j.State, j.Error)
	}
	next := sumReportOf(t, wait(t, c.Broker, submit(t, c.Broker, "test.sum", sumParams{N: 3, Tag: uniqueTag("after-cancel-plan")})))
	if next.Sum != sumOfSquares(3) {
		t.Errorf("next job: sum %d, want %d", next.Sum, sumOfSquares(3))
	}
}

// A coordinator stopped while it plans a job stops the plan with it; the
// next one plans the job again and runs it. A job too big, waiting for a
// coordinator, is failed by the next one without planning it (before, each
// coordinator planned it again until it ran out of memory).
func TestRestartMidPlan(t *testing.T) {
	r := newRestartable(t)
	tag := uniqueTag("restart-plan")
	id := submit(t, r.client, "test.sum", sumParams{N: 12, SlowPlan: tag, Tag: tag})
	select {
	case <-planning(tag):
	case <-time.After(time.Minute):
		t.Fatal("the plan never started")
	}
	p := mnk.DefaultSimulateParams()
	p.Games, p.GamesPerTask = 100_000_000, 1
	r.stopCoord()
	select {
	case <-planStopped(tag):
	default:
		t.Fatal("the coordinator stopped, its plan did not")
	}
	big := submit(t, r.client, "mnk.simulate", p)
	runtime.GC()
	base := heap()
	r.startCoord()
	j := waitFor(t, r.client, big, "failed", func(j *job.Record) bool { return j.State.Final() })
	if h := heap(); h > base+heapBound {
		t.Errorf("heap grew from %d MB to %d MB while the restarted coordinator took the job up", base>>20, h>>20)
	}
	if j.State != job.Failed || !strings.Contains(j.Error, "100,000,000 tasks, more than the 1,000,000 a job may have") {
		t.Errorf("job too big: %s %q, want failed for its size", j.State, j.Error)
	}
	openGate(tag)
	if rep := sumReportOf(t, wait(t, r.client, id)); rep.Sum != sumOfSquares(12) || rep.Merged != 12 {
		t.Errorf("the job planned again: sum %d over %d tasks, want %d over 12", rep.Sum, rep.Merged, sumOfSquares(12))
	}
}

// A job of as many tasks as a job may have costs the coordinator a few
// bytes a task, not its payloads: mnk.simulate makes its tasks as they are
// published (tasks.Indexed). Sampled while the job is planned and its
// first ten thousand tasks are published, with no worker to take them.
func TestBigJobMemoryBounded(t *testing.T) {
	r := newBare(t, broker.DefaultConfig())
	runtime.GC()
	base := heap()
	p := mnk.DefaultSimulateParams()
	p.Games, p.GamesPerTask = 1_000_000, 1
	id := submit(t, r.client, "mnk.simulate", p)
	const bound = 128 << 20
	var peak uint64
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if h := heap(); h > peak {
			peak = h
		}
		if peak > base+bound {
			t.Fatalf("heap grew from %d MB to %d MB, want at most %d MB more", base>>20, peak>>20, bound>>20)
		}
		j, _, err := r.client.Jobs().Get(r.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State.Final() {
			t.Fatalf("job %s (%s), want running", j.State, j.Error)
		}
		n, err := r.client.Work().QueuedTasks(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if j.State == job.Running && j.Tasks == 1_000_000 && n >= 10_000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s with %d tasks queued after 3 minutes, want running with 10,000 queued", j.State, n)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline, sampling the heap
	}
	t.Logf("heap %d MB before, %d MB at most while a job of 1,000,000 tasks was planned and 10,000 published", base>>20, peak>>20)
	if _, err := r.client.Jobs().Cancel(r.ctx, id); err != nil {
		t.Fatal(err)
	}
	if j := waitFor(t, r.client, id, "cancelled", func(j *job.Record) bool { return j.State.Final() }); j.State != job.Cancelled {
		t.Errorf("state %s, want cancelled", j.State)
	}
}

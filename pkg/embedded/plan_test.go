package embedded_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

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

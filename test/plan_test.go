package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// peakRSS is the peak resident memory (VmHWM) of process pid, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	text, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(text)) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" { // "VmHWM: 123 kB"
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}

// rssBound is the most resident memory a coordinator may reach while it
// refuses a job too big: it takes some tens of megabytes at rest, and
// planned a hundred million tasks into 3.4 GB in 20 s (issue 32).
const rssBound = 300 << 20

// A job record written straight to a cluster (past every client's check)
// whose parameters give more tasks than the coordinator takes is failed
// before it is planned, with a message that names the parameters and the
// limit, and the coordinator's memory stays flat; it runs the next job.
// The limit is the coordinator's --max-tasks.
func TestTooManyTasksOnCluster(t *testing.T) {
	runsBinaries(t)
	c := startClusterOn(t, startNATS(t), "--max-tasks", "5")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := broker.Attach(ctx, broker.Endpoint{URL: c.url}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	submit := func(p mnk.SimulateParams) string {
		raw, _ := json.Marshal(p)
		j, err := b.Jobs().Submit(ctx, tasks.Spec{Kind: "mnk.simulate", Params: raw})
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	final := func(id string) *job.Record {
		for deadline := time.Now().Add(2 * time.Minute); ; {
			if rss := peakRSS(t, c.coord.cmd.Process.Pid); rss > rssBound {
				t.Fatalf("coordinator's resident memory reached %d MB, want at most %d MB", rss>>20, rssBound>>20)
			}
			j, _, err := b.Jobs().Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if j.State.Final() {
				return j
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s still %s after 2 minutes", id, j.State)
			}
			time.Sleep(20 * time.Millisecond) // polling with a deadline, sampling the memory
		}
	}

	big := mnk.DefaultSimulateParams()
	big.Games, big.GamesPerTask = 100_000_000, 1
	j := final(submit(big))
	if want := "--games 100000000 --games-per-task 1: 100,000,000 tasks, more than the 5 a job may have"; j.State != job.Failed || j.Error != want {
		t.Errorf("a job of 100,000,000 tasks: %s %q, want failed %q", j.State, j.Error, want)
	}
	over := mnk.DefaultSimulateParams() // 10 tasks of 100 games
	if j := final(submit(over)); j.State != job.Failed || !strings.Contains(j.Error, "--games 1000: 10 tasks, more than the 5") {
		t.Errorf("a job of 10 tasks: %s %q, want failed for --max-tasks 5", j.State, j.Error)
	}
	small := mnk.DefaultSimulateParams()
	small.Games = 500 // 5 tasks
	if j := final(submit(small)); j.State != job.Done {
		t.Errorf("a job of 5 tasks: %s %q, want done", j.State, j.Error)
	}
	t.Logf("coordinator's peak resident memory: %d MB", peakRSS(t, c.coord.cmd.Process.Pid)>>20)
}

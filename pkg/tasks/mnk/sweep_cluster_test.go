package mnk_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// sweepJob is an mnk.sweep report as a job's record has it.
type sweepJob struct {
	mnk.SweepReport
	tasks.Common
}

// records is what the tests use of a cluster's job records (broker.Jobs).
type records interface {
	Submit(ctx context.Context, spec tasks.Spec) (*job.Record, error)
	Wait(ctx context.Context, id string, progress func(*job.Record)) (*job.Record, error)
}

// runSweepJob runs a sweep as a job on the cluster and returns its report.
func runSweepJob(t *testing.T, jobs records, p mnk.SweepParams) sweepJob {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	raw, _ := json.Marshal(p)
	j, err := jobs.Submit(ctx, tasks.Spec{Kind: mnk.Sweep{}.Name(), Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = jobs.Wait(ctx, j.ID, nil); err != nil {
		t.Fatal(err)
	}
	if j.State != job.Done {
		t.Fatalf("job %s: state %s, error %q", j.ID, j.State, j.Error)
	}
	var rep sweepJob
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Complete {
		t.Fatalf("job %s: incomplete: %+v", j.ID, rep.Failures)
	}
	return rep
}

// measured drops what depends on the machine: the seconds, the rates and
// the times predicted from them.
func measured(r mnk.SweepReport) mnk.SweepReport {
	rows := make([]mnk.SweepRow, len(r.Rows))
	for i, row := range r.Rows {
		row.Seconds, row.NodesPerSecond = 0, 0
		rows[i] = row
	}
	growth := make([]mnk.Growth, len(r.Growth))
	for i, g := range r.Growth {
		g.PredictedSeconds = 0
		growth[i] = g
	}
	r.Rows, r.Growth = rows, growth
	return r
}

// The report of a sweep does not depend on the number of workers (but for
// its seconds), and a rerun is answered from the cache, cell by cell.
func TestSweepSameReportAnyWorkers(t *testing.T) {
	p := mnk.SweepParams{Boards: []string{"3x3", "3x4"}, Ks: []int{3, 4}, NodeBudget: 300_000}
	var reports []mnk.SweepReport
	for _, workers := range []int{1, 3} {
		c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		rep := runSweepJob(t, c.Broker.Jobs(), p)
		reports = append(reports, measured(rep.SweepReport))
		if workers == 3 {
			again := runSweepJob(t, c.Broker.Jobs(), p)
			if again.CachedTasks != again.Tasks || !reflect.DeepEqual(again.SweepReport, rep.SweepReport) {
				t.Errorf("rerun: %d of %d tasks from the result cache, report\n%+v\nwant %d and\n%+v", again.CachedTasks, again.Tasks,
					again.SweepReport, again.Tasks, rep.SweepReport)
			}
		}
	}
	if want := 3 * len(mnk.DefaultSweepAlgorithms()); len(reports[0].Rows) != want {
		t.Errorf("%d rows, want %d (3x3 k=3 and 3x4 k=3, 4, by every rung)", len(reports[0].Rows), want)
	}
	stopped := 0
	for _, r := range reports[0].Rows {
		if r.Stopped {
			stopped++
		}
	}
	if stopped == 0 || stopped == len(reports[0].Rows) {
		t.Errorf("%d of %d cells stopped: want some stopped by the budget and some solved", stopped, len(reports[0].Rows))
	}
	if !reflect.DeepEqual(reports[0], reports[1]) {
		t.Errorf("1 worker:\n%+v\n3 workers:\n%+v", reports[0], reports[1])
	}
}

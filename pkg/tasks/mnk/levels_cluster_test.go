package mnk_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/engine/mnk/levels"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// levelsJob is an mnk.levels report as a job's record has it.
type levelsJob struct {
	mnk.LevelsReport
	tasks.Common
}

func runLevelsJob(t *testing.T, jobs records, p mnk.LevelsParams) (levelsJob, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sp, err := p.Spec()
	if err != nil {
		t.Fatal(err)
	}
	j, err := jobs.Submit(ctx, sp)
	if err != nil {
		t.Fatal(err)
	}
	if j, err = jobs.Wait(ctx, j.ID, nil); err != nil {
		t.Fatal(err)
	}
	if j.State != job.Done {
		t.Fatalf("job %s: state %s, error %q", j.ID, j.State, j.Error)
	}
	var rep levelsJob
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Complete {
		t.Fatalf("job %s: incomplete: %+v", j.ID, rep.Failures)
	}
	return rep, j.ID
}

// figures drops what depends on the run: times, and bytes (the pieces'
// order of records is fixed, but not how many runs spilled).
func figures(r mnk.LevelsReport) mnk.LevelsReport {
	plies := make([]mnk.LevelsPly, len(r.Plies))
	for i, p := range r.Plies {
		p.Seconds = 0
		plies[i] = p
	}
	r.Plies = plies
	return r
}

// A level count through the cluster's object store gives the same report
// with 1 worker and with 3, shard for shard, and the same figures with a
// memory budget that makes every shard spill.
func TestLevelsSameReportAnyWorkers(t *testing.T) {
	p := mnk.LevelsParams{Rows: 3, Cols: 4, K: 3, Shards: 3}
	var reports []mnk.LevelsReport
	for _, workers := range []int{1, 3} {
		c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		rep, id := runLevelsJob(t, c.Broker.Jobs(), p)
		reports = append(reports, figures(rep.LevelsReport))
		// Every piece was deleted: by the tasks of the ply after the one
		// that read it, the last ply's by the report.
		for ply := 1; ply <= 12; ply++ {
			for d := range p.Shards {
				for s := range p.Shards {
					name := levels.PieceName("levels/"+id, ply, d, s)
					if _, err := c.Broker.Objects().Get(context.Background(), name); err == nil {
						t.Errorf("piece %s is left", name)
					}
				}
			}
		}
		if workers == 3 {
			small := p
			small.Memory = 64 << 10
			tight, _ := runLevelsJob(t, c.Broker.Jobs(), small)
			spills := 0
			for _, ply := range tight.Plies {
				spills += ply.Spills
			}
			if spills == 0 {
				t.Errorf("a 64 KiB budget spilled nothing")
			}
			if tight.Games != rep.Games || tight.Nodes != rep.Nodes || !reflect.DeepEqual(tight.PositionsByPly, rep.PositionsByPly) {
				t.Errorf("64 KiB: %v games, %v nodes, positions %v; want %v, %v, %v", tight.Games, tight.Nodes,
					tight.PositionsByPly, rep.Games, rep.Nodes, rep.PositionsByPly)
			}
		}
	}
	if !reflect.DeepEqual(reports[0], reports[1]) {
		t.Errorf("1 worker:\n%+v\n3 workers:\n%+v", reports[0], reports[1])
	}
	if got := reports[0].Games.String(); got != "151188768" {
		t.Errorf("3x4 k=3: %s games, want 151,188,768 (the tree count's)", got)
	}
}

package embedded_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/nineboard"
)

// matchReport is a nineboard.match report as a job's record has it.
type matchReport struct {
	nineboard.MatchReport
	tasks.Common
}

func match(t *testing.T, b *broker.Broker, p nineboard.MatchParams) matchReport {
	t.Helper()
	j := wait(t, b, submit(t, b, "nineboard.match", p))
	if j.State != job.Done {
		t.Fatalf("job %s: state %s, error %q", j.ID, j.State, j.Error)
	}
	var rep matchReport
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// matchFigures drops what depends on the run rather than on the games.
func matchFigures(r matchReport) nineboard.MatchReport {
	r.X.MillisPerMove, r.O.MillisPerMove = 0, 0
	return r.MatchReport
}

// A match played on the pipeline is the same games whatever the number of
// workers and the split, in both variants; the engine beats a random
// player; a rerun comes from the workers' cache.
func TestNineboardMatchIndependentOfWorkers(t *testing.T) {
	one := startCluster(t, t.TempDir(), 1)
	three := startCluster(t, t.TempDir(), 3)
	for _, v := range []string{"first-triple", "ultimate"} {
		p := nineboard.MatchParams{X: "random", O: "engine:depth=3", Games: 30, Seed: 42, Variant: v, GamesPerTask: 30}
		ref := match(t, one.Broker, p)
		if !ref.Complete || ref.Played != 30 || ref.XWins+ref.Draws+ref.OWins != 30 || ref.O.NodesPerMove == 0 || ref.AverageLength == 0 {
			t.Fatalf("%s report %+v", v, ref)
		}
		if ref.OWins < 29 {
			t.Errorf("%s: engine as o won %d of 30 against random", v, ref.OWins)
		}
		for _, per := range []int{0, 4} {
			p.GamesPerTask = per
			for name, c := range map[string]*embedded.Cluster{"1 worker": one, "3 workers": three} {
				got := match(t, c.Broker, p)
				if !reflect.DeepEqual(matchFigures(got), matchFigures(ref)) {
					t.Errorf("%s, %d games per task, %s:\ngot  %+v\nwant %+v", v, per, name, matchFigures(got), matchFigures(ref))
				}
			}
		}
		again := match(t, three.Broker, p)
		if again.CachedTasks != again.Tasks {
			t.Errorf("%s rerun: %d tasks from the result cache, want %d", v, again.CachedTasks, again.Tasks)
		}
	}
}

// Bad parameters submitted directly fail the job with a reason naming them.
func TestNineboardMatchInvalid(t *testing.T) {
	c := startCluster(t, t.TempDir(), 1)
	j := wait(t, c.Broker, submit(t, c.Broker, "nineboard.match",
		nineboard.MatchParams{X: "engine:depth=0", O: "random", Games: 1, Variant: "first-triple"}))
	if j.State != job.Failed || !strings.Contains(j.Error, "depth") {
		t.Errorf("state %s, error %q; want failed naming the depth", j.State, j.Error)
	}
}

package embedded_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/embedded"
	_ "github.com/woprlabs/wopr/pkg/kinds"
	"github.com/woprlabs/wopr/pkg/queue"
	"github.com/woprlabs/wopr/pkg/tasks/mnkjobs"
)

func runCount(t *testing.T, c *embedded.Cluster, p mnkjobs.CountParams) (*queue.Job, mnkjobs.CountReport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	params, _ := json.Marshal(p)
	j, err := c.Broker.Submit(ctx, queue.Spec{Kind: "mnk.count", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	j, err = c.Broker.Wait(ctx, j.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != queue.StateDone {
		t.Fatalf("job %s: state %s, error %q", j.ID, j.State, j.Error)
	}
	var rep mnkjobs.CountReport
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		t.Fatal(err)
	}
	return j, rep
}

func TestCount333Embedded(t *testing.T) {
	ctx := context.Background()
	c, err := embedded.Start(ctx, embedded.Options{Dir: t.TempDir(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	_, rep := runCount(t, c, mnkjobs.CountParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1})
	t.Logf("%+v", rep)
	if rep.Nodes != 549946 || rep.Games != 255168 || rep.Positions != 5478 || rep.CanonicalGames != 26830 {
		t.Errorf("bad report %+v", rep)
	}
}

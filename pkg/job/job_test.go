package job

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// A job's run time: nothing before it starts; the time since it started
// while it runs in its first life; the recorded run time once it is
// finished or resumed, so that a pause does not count.
func TestElapsed(t *testing.T) {
	start := time.Now().Add(-time.Hour)
	for _, c := range []struct {
		r    Record
		want time.Duration
	}{
		{Record{}, 0},
		{Record{Started: start, Finished: start.Add(3 * time.Second), Epoch: 1}, 3 * time.Second},
		{Record{Started: start, Finished: start.Add(time.Hour), Epoch: 2, RunSeconds: 5}, 5 * time.Second},
		{Record{Started: start, Epoch: 2, RunSeconds: 7}, 7 * time.Second},
	} {
		if got := c.r.Elapsed(); got != c.want {
			t.Errorf("%+v: elapsed %v, want %v", c.r, got, c.want)
		}
	}
	running := Record{Started: start, Epoch: 1}
	if got := running.Elapsed(); got < time.Hour || got > 2*time.Hour {
		t.Errorf("running for an hour: elapsed %v", got)
	}
}

// A run time written as seconds (RunSeconds = d.Seconds()) comes back as
// the same duration, so that a finished job's record and its report (which
// holds d.Seconds() itself) print the same figure. Truncating lost a
// nanosecond for about one duration in fifty; CI caught 0.128 s.
func TestRanRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		d := time.Duration(rng.Int64N(int64(1000 * time.Hour)))
		r := Record{RunSeconds: d.Seconds()}
		if got := r.Ran(); got != d {
			t.Fatalf("RunSeconds %v: ran %v, want %v", r.RunSeconds, got, d)
		}
	}
}

func TestStates(t *testing.T) {
	for s, final := range map[State]bool{Submitted: false, Running: false, Done: true, Cancelled: true, Failed: true} {
		if s.Final() != final {
			t.Errorf("%s final %v, want %v", s, s.Final(), final)
		}
	}
}

// A summary has the record's figures, and null for parameters that are not
// JSON, so that it always encodes.
func TestSummary(t *testing.T) {
	r := &Record{ID: "j1", Spec: tasks.Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3}`)}, State: Running,
		Tasks: 4, Done: 2, Failed: 1, CacheHits: 3, CancelRequested: true, Error: "e"}
	s := r.Summary()
	if s.ID != "j1" || s.Kind != "mnk.count" || string(s.Params) != `{"rows":3}` || s.State != Running ||
		s.Tasks != 4 || s.Done != 2 || s.Failed != 1 || s.CacheHits != 3 || !s.CancelRequested || s.Error != "e" {
		t.Errorf("summary %+v of record %+v", s, r)
	}
	r.Spec.Params = json.RawMessage(`{"rows":`)
	data, err := json.Marshal(r.Summary())
	if err != nil || !strings.Contains(string(data), `"params":null`) {
		t.Errorf("summary of a record with bad parameters: %s, %v; want params null", data, err)
	}
}

package job

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestValidID(t *testing.T) {
	for s, want := range map[string]bool{
		"20261129-101010-abcdef": true, "p007": true, "a_b-c": true,
		"a.b": false, "a b": false, "": false, "*": false, ">": false, string(make([]byte, 65)): false,
	} {
		if ValidID(s) != want {
			t.Errorf("ValidID(%q) = %v, want %v", s, !want, want)
		}
	}
	if id := NewID(time.Now()); !ValidID(id) {
		t.Errorf("NewID gave %q, which is not valid", id)
	}
}

// Two specs are the same job when their parameters are the same JSON
// value, whatever the key order and spacing.
func TestSpecSame(t *testing.T) {
	a := Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3,"cols":4}`)}
	for _, c := range []struct {
		b    Spec
		same bool
	}{
		{Spec{Kind: "mnk.count", Params: json.RawMessage(`{ "cols": 4, "rows": 3 }`)}, true},
		{Spec{Kind: "mnk.solve", Params: json.RawMessage(`{"rows":3,"cols":4}`)}, false},
		{Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3,"cols":5}`)}, false},
		{Spec{Kind: "mnk.count", Params: json.RawMessage(`not json`)}, false},
	} {
		if got := a.Same(c.b); got != c.same {
			t.Errorf("%s same as %s %s: %v, want %v", a.Params, c.b.Kind, c.b.Params, got, c.same)
		}
	}
}

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
	r := &Record{ID: "j1", Spec: Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3}`)}, State: Running,
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

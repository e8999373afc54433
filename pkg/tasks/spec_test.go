package tasks_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// Two specs are the same job when their parameters are the same JSON
// value, whatever the key order and spacing.
func TestSpecSame(t *testing.T) {
	a := tasks.Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3,"cols":4}`)}
	for _, c := range []struct {
		b    tasks.Spec
		same bool
	}{
		{tasks.Spec{Kind: "mnk.count", Params: json.RawMessage(`{ "cols": 4, "rows": 3 }`)}, true},
		{tasks.Spec{Kind: "mnk.solve", Params: json.RawMessage(`{"rows":3,"cols":4}`)}, false},
		{tasks.Spec{Kind: "mnk.count", Params: json.RawMessage(`{"rows":3,"cols":5}`)}, false},
		{tasks.Spec{Kind: "mnk.count", Params: json.RawMessage(`not json`)}, false},
	} {
		if got := a.Same(c.b); got != c.same {
			t.Errorf("%s same as %s %s: %v, want %v", a.Params, c.b.Kind, c.b.Params, got, c.same)
		}
	}
}

func TestValidID(t *testing.T) {
	for s, want := range map[string]bool{
		"20261129-101010-abcdef": true, "p007": true, "a_b-c": true,
		"a.b": false, "a b": false, "": false, "*": false, ">": false, string(make([]byte, 65)): false,
	} {
		if tasks.ValidID(s) != want {
			t.Errorf("ValidID(%q) = %v, want %v", s, !want, want)
		}
	}
	if id := job.NewID(time.Now()); !tasks.ValidID(id) {
		t.Errorf("NewID gave %q, which is not valid", id)
	}
}

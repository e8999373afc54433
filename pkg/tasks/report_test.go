package tasks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type ownReport struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

func (r *ownReport) Text() string { return "value " + r.Value + "\n" }

type clashing struct {
	ownReport
	Elapsed float64 `json:"elapsed_seconds"`
}

type empty struct{}

func (empty) Text() string { return "" }

// Compose puts the kind's fields first and the runtime's after them, in
// the JSON and in the text, and says when a job is incomplete and why.
func TestCompose(t *testing.T) {
	sum := Summary{Tasks: 4, CachedTasks: 2, CacheHits: 1234, Elapsed: 1500 * time.Millisecond,
		Failures: []Failure{{Task: "t2", Reason: "worker lost"}}}
	data, text, err := Compose(&ownReport{Value: "draw", Count: 3}, sum)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"value":"draw","count":3,"tasks":4,"failed_tasks":1,"failures":[{"task":"t2","reason":"worker lost"}],"cached_tasks":2,"cache_hits":1234,"elapsed_seconds":1.5,"complete":false}`
	if string(data) != want {
		t.Errorf("json %s\nwant %s", data, want)
	}
	wantText := "value draw\n" +
		"  tasks                      4, 1 failed, 2 from the result cache\n" +
		"  worker cache hits          1,234 (positions or puzzles a worker had cached)\n" +
		"  elapsed                    1.500 s\n" +
		"INCOMPLETE: 1 of 4 tasks failed; the figures above leave them out\n" +
		"  task t2: worker lost\n"
	if text != wantText {
		t.Errorf("text %q\nwant %q", text, wantText)
	}
	data, _, err = Compose(empty{}, Summary{Tasks: 1})
	var m map[string]any
	if err != nil || json.Unmarshal(data, &m) != nil || m["complete"] != true || m["tasks"] != 1.0 {
		t.Errorf("an empty report: %s, %v", data, err)
	}
	if _, _, err := Compose(&clashing{}, sum); err == nil || !strings.Contains(err.Error(), "elapsed_seconds") {
		t.Errorf("a report with a runtime field: %v, want an error naming it", err)
	}
}

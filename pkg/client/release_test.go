package client

import (
	"testing"

	"github.com/woprlabs/wopr/pkg/job"
)

// A done job's inputs are released only when every other job of the store
// is final, whatever its kind.
func TestOthersFinished(t *testing.T) {
	rec := func(id string, state job.State) *job.Record { return &job.Record{ID: id, State: state} }
	done := rec("a", job.Done)
	for _, tc := range []struct {
		name   string
		others []*job.Record
		want   bool
	}{
		{"alone", nil, true},
		{"beside finished jobs", []*job.Record{rec("b", job.Done), rec("c", job.Failed), rec("d", job.Cancelled)}, true},
		{"beside a running job", []*job.Record{rec("b", job.Done), rec("c", job.Running)}, false},
		{"beside a submitted job", []*job.Record{rec("b", job.Submitted)}, false},
	} {
		if got := othersFinished(done, append(tc.others, done)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

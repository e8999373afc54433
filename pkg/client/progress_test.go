package client

import (
	"testing"

	"github.com/woprlabs/wopr/pkg/job"
)

// The progress line shows the stage of a job in stages, from 1, and
// nothing for any other job.
func TestStageOf(t *testing.T) {
	for _, tc := range []struct {
		stage, stages int
		want          string
	}{
		{0, 0, ""},
		{0, 21, ", stage 1/21"},
		{2, 21, ", stage 3/21"},
		{21, 21, ", stage 21/21"}, // every task merged
	} {
		if got := stageOf(&job.Record{Stage: tc.stage, Stages: tc.stages}); got != tc.want {
			t.Errorf("stage %d of %d: %q, want %q", tc.stage, tc.stages, got, tc.want)
		}
	}
}

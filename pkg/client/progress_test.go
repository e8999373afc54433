package client

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
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

// The progress line ends with what the job's plan says of its progress.
func TestProgressLineNote(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, start: time.Now(), last: &job.Record{ID: "j1", Spec: tasks.Spec{Kind: "mnk.solve"}, State: job.Running,
		Tasks: 11, Done: 4, Note: "first moves (up to symmetry): 3 of 10 refuted, 0 won"}}
	p.draw()
	if got, want := buf.String(), "; first moves (up to symmetry): 3 of 10 refuted, 0 won\n"; !strings.HasSuffix(got, want) || !strings.Contains(got, "4/11 tasks") {
		t.Errorf("progress line %q, want 4/11 tasks and ending %q", got, want)
	}
}

package client

import (
	"bytes"
	"math"
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

// The rate and the ETA count only the tasks this run computed: not those
// answered from the result cache, nor those a resumed job had done.
func TestRateETA(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		tasks, done, cached, before int
		elapsed                     time.Duration
		rate                        float64
		eta                         time.Duration
	}{
		{"fresh", 22, 11, 0, 0, 10 * time.Second, 1.1, 10 * time.Second},
		{"only cached so far", 22, 19, 19, 0, 20 * time.Minute, 0, 0},
		{"cached then one computed", 22, 20, 19, 0, 20 * time.Minute, 1.0 / 1200, 40 * time.Minute},
		{"resumed", 22, 12, 0, 10, 2 * time.Second, 1, 10 * time.Second},
		{"all done", 4, 4, 1, 0, 3 * time.Second, 1, 0},
		{"no time", 4, 1, 0, 0, 0, 0, 0},
	} {
		rate, eta := rateETA(&job.Record{Tasks: tc.tasks, Done: tc.done, CachedTasks: tc.cached}, tc.before, tc.elapsed)
		if math.Abs(rate-tc.rate) > 1e-9 || (eta-tc.eta).Abs() > time.Millisecond {
			t.Errorf("%s: rate %g, ETA %s; want %g, %s", tc.name, rate, eta, tc.rate, tc.eta)
		}
	}
}

// A job resumed from the result cache shows how many tasks came from it
// and no ETA until one is computed.
func TestProgressLineCached(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, start: time.Now().Add(-time.Minute)}
	p.update(&job.Record{ID: "j1", Spec: tasks.Spec{Kind: "mnk.solve"}, State: job.Running, Tasks: 22, Done: 19, CachedTasks: 19})
	p.draw()
	got := buf.String()
	if !strings.Contains(got, "19/22 tasks (86%) (19 from the cache), 0.0 tasks/s, ") || strings.Contains(got, "ETA") {
		t.Errorf("progress line %q, want 19 from the cache and no ETA", got)
	}
}

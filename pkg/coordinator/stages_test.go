package coordinator

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/store"
	"github.com/woprlabs/wopr/pkg/job"
)

// waitMark waits until the published mark of job id in db is want.
func waitMark(t *testing.T, db *store.DB, id string, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		v, found, err := db.Get(publishedKey(id))
		if err == nil && found && string(v) == strconv.Itoa(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: published mark %q (found %v, %v), want %d", id, v, found, err, want)
		}
		time.Sleep(2 * time.Millisecond) // polling with a deadline
	}
}

// ids lists the ids of ts.
func ids(ts []job.Task) []string {
	var list []string
	for _, t := range ts {
		list = append(list, t.ID)
	}
	return list
}

// The tasks of a staged plan are published a stage at a time. The lost-task
// sweep looks only at the open stage, and the published mark never passes a
// stage not yet published: a coordinator restarted in the middle of a stage
// looks in the queue for that stage's tasks, opens the next stage once they
// are merged, and publishes it without looking for its tasks there.
func TestStagesPublishedInTurn(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	f := newFakeBroker()
	first := startWith(t, f, Config{DB: db})
	// Stage 2 has no task: stage 3 follows stage 1.
	stageOf := []int{0, 0, 0, 0, 1, 1, 1, 3, 3, 3}
	id := f.submit(t, "coordtest.squares", squaresParams{N: len(stageOf), StageOf: stageOf})
	stage0 := published(t, f, id, 4)
	waitMark(t, db, id, 4)
	waitRecord(t, f, id, "stage 0 of 4", func(r *job.Record) bool { return r.Stage == 0 && r.Stages == 4 })
	for _, task := range stage0[:3] {
		f.results <- answer(task)
	}
	// The plan's own words on its progress reach the record (tasks.Progresses).
	waitRecord(t, f, id, "3 tasks done", func(r *job.Record) bool { return r.Done == 3 && r.Note == "3 squares merged" })
	// The fourth is lost: a worker took it and acknowledged it unanswered.
	f.mu.Lock()
	delete(f.queued, id+"/s3")
	f.looks = 0
	f.mu.Unlock()
	first.findLost(time.Now().Add(time.Hour))
	published(t, f, id, 5)
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(f.publishedTasks()), []string{"s0", "s1", "s2", "s3", "s3"}; !slices.Equal(got, want) {
		t.Fatalf("published %v, want %v: stage 0, and its lost task again", got, want)
	}
	f.mu.Lock()
	looks := f.looks
	f.mu.Unlock()
	if looks != 1 {
		t.Errorf("the sweep looked for %d tasks in the queue, want 1: the open stage's lost task", looks)
	}
	waitMark(t, db, id, 4)

	f.mu.Lock()
	f.looks = 0
	f.mu.Unlock()
	startWith(t, f, Config{DB: db})
	waitRecord(t, f, id, "resumed", func(r *job.Record) bool { return r.Epoch == 2 })
	// The lost task's second copy is still queued: it is answered.
	lost := f.publishedTasks()[4]
	f.results <- answer(lost)
	stage1 := published(t, f, id, 8)[5:]
	if got, want := ids(stage1), []string{"s4", "s5", "s6"}; !slices.Equal(got, want) {
		t.Fatalf("after stage 0: published %v, want %v", got, want)
	}
	waitMark(t, db, id, 7)
	waitRecord(t, f, id, "stage 1 of 4", func(r *job.Record) bool { return r.Stage == 1 && r.Stages == 4 })
	for _, task := range stage1 {
		f.results <- answer(task)
	}
	stage3 := published(t, f, id, 11)[8:]
	waitRecord(t, f, id, "stage 3 of 4", func(r *job.Record) bool { return r.Stage == 3 && r.Stages == 4 })
	for _, task := range stage3 {
		if task.Epoch != 2 {
			t.Errorf("task %s published in epoch %d, want 2", task.ID, task.Epoch)
		}
		f.results <- answer(task)
	}
	r := waitRecord(t, f, id, "done", final)
	rep := reportOf(t, r)
	if r.Stage != 4 || r.Stages != 4 || r.Note != "10 squares merged" {
		t.Errorf("done: stage %d of %d, note %q; want 4 of 4, \"10 squares merged\"", r.Stage, r.Stages, r.Note)
	}
	if want := sumOfSquaresTo(len(stageOf)); rep.Sum != want || rep.Merged != len(stageOf) {
		t.Errorf("sum %d over %d tasks, want %d over %d", rep.Sum, rep.Merged, want, len(stageOf))
	}
	if got, want := ids(f.publishedTasks()[8:]), []string{"s7", "s8", "s9"}; !slices.Equal(got, want) {
		t.Errorf("after stage 1: published %v, want %v", got, want)
	}
	f.mu.Lock()
	looks = f.looks
	f.mu.Unlock()
	// Only s3 is looked for: the restarted coordinator's stage 0 is below
	// the mark, its later stages past it.
	if looks != 1 {
		t.Errorf("the restarted coordinator looked for %d tasks in the queue, want 1", looks)
	}
}

func sumOfSquaresTo(n int) int {
	s := 0
	for i := range n {
		s += i * i
	}
	return s
}

// A plan whose stages decrease along its tasks, or are negative, fails its
// job with a message that names the task.
func TestStagesMustNotDecrease(t *testing.T) {
	f := newFakeBroker()
	start(t, f)
	for _, tc := range []struct {
		stageOf []int
		want    string
	}{
		{[]int{0, 1, 1, 0}, "put task s3 in stage 0, after a task of stage 1"},
		{[]int{-1, 0}, "put task s0 in stage -1: stages are numbered from 0"},
	} {
		id := f.submit(t, "coordtest.squares", squaresParams{N: len(tc.stageOf), StageOf: tc.stageOf})
		r := waitRecord(t, f, id, "final", final)
		if r.State != job.Failed || !strings.Contains(r.Error, tc.want) {
			raw, _ := json.Marshal(tc.stageOf)
			t.Errorf("stages %s: job %s %q, want failed with %q", raw, r.State, r.Error, tc.want)
		}
	}
	if n := len(f.publishedTasks()); n != 0 {
		t.Errorf("%d tasks published, want none", n)
	}
}

// A result refused for a task of a stage not yet open (not its task's
// token: a rogue's, or a copy that another coordinator published) does
// not publish that task before its stage opens.
func TestStagesRefusedResultPublishesNothingEarly(t *testing.T) {
	f := newFakeBroker()
	c := start(t, f)
	id := f.submit(t, "coordtest.squares", squaresParams{N: 4, StageOf: []int{0, 0, 1, 1}})
	stage0 := published(t, f, id, 2)
	f.results <- job.Result{Job: id, Task: "s3", Check: job.PayloadCheck([]byte("3")), Worker: "rogue", Token: "forged", Data: []byte("9")}
	f.results <- answer(stage0[0])
	waitRecord(t, f, id, "1 task done", func(r *job.Record) bool { return r.Done == 1 })
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(f.publishedTasks()), []string{"s0", "s1"}; !slices.Equal(got, want) {
		t.Errorf("published %v, want %v: stage 1 is not open", got, want)
	}
}

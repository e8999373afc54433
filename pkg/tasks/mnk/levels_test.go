package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk/levels"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// runLevels runs an mnk.levels job in one process over a map of pieces
// and returns its report as JSON fields, checking that no piece is left.
func runLevels(t *testing.T, p LevelsParams) map[string]json.RawMessage {
	t.Helper()
	sp, err := p.Spec()
	if err != nil {
		t.Fatal(err)
	}
	store := &levels.MapStore{}
	plan, err := Levels{}.Plan(context.Background(), sp.Params, tasks.PlanEnv{Objects: store})
	if err != nil {
		t.Fatal(err)
	}
	rep := taskstest.RunPlan(t, Levels{}, plan, tasks.Env{Objects: store}, tasks.Summary{})
	if n := store.Len(); n != 0 {
		t.Errorf("%d pieces left in the store", n)
	}
	return fields(t, rep)
}

func fields(t *testing.T, rep any) map[string]json.RawMessage {
	t.Helper()
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The level count's report has the tree count's figures, field by field
// (both JSON), the value included, whatever the shards and the memory.
func TestLevelsEqualsTreeCount(t *testing.T) {
	for _, c := range []struct {
		rows, cols, k, shards int
		memory                int64
	}{
		{3, 3, 3, 0, 0}, {3, 3, 2, 3, 0}, {1, 5, 2, 2, 0}, {2, 5, 3, 4, levels.MinMemory},
		{3, 4, 3, 5, levels.MinMemory}, {4, 3, 4, 0, 0}, {2, 2, 2, 2, 0},
	} {
		t.Run(fmt.Sprintf("%dx%dk%d", c.rows, c.cols, c.k), func(t *testing.T) {
			got := runLevels(t, LevelsParams{Rows: c.rows, Cols: c.cols, K: c.k, Shards: c.shards, Memory: c.memory})
			cp := CountParams{Rows: c.rows, Cols: c.cols, K: c.k, SplitDepth: -1}
			sp, err := cp.Spec()
			if err != nil {
				t.Fatal(err)
			}
			plan, err := Count{}.Plan(context.Background(), sp.Params, tasks.PlanEnv{})
			if err != nil {
				t.Fatal(err)
			}
			want := fields(t, taskstest.RunPlan(t, Count{}, plan, tasks.Env{}, tasks.Summary{}))
			delete(want, "split_depth")
			for key, w := range want {
				if g := got[key]; string(g) != string(w) {
					t.Errorf("%s: levels %s, tree %s", key, g, w)
				}
			}
		})
	}
}

// Counts past 2^64 keep every digit in the JSON report.
func TestLevelsReportDigits(t *testing.T) {
	big := levels.U128{Hi: 1 << 20, Lo: 12345}
	rep := &LevelsReport{Games: big, GamesByLength: map[string]levels.U128{"25": big}}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := big.Big().String() // 19342813113834066795310137
	if !strings.Contains(string(data), `"games":`+want) || !strings.Contains(string(data), `"25":`+want) {
		t.Errorf("report %s lacks %s", data, want)
	}
	var back LevelsReport
	if err := json.Unmarshal(data, &back); err != nil || back.Games != big {
		t.Errorf("read back %v (%v), want %v", back.Games, err, big)
	}
	if got := rep.Text(); !strings.Contains(got, tasks.Digits(want)) {
		t.Errorf("text lacks %s:\n%s", tasks.Digits(want), got)
	}
}

// Bad parameters are refused with what is allowed.
func TestLevelsParams(t *testing.T) {
	for _, c := range []struct {
		p    LevelsParams
		want string
	}{
		{LevelsParams{Rows: 5, Cols: 6, K: 4}, "30 cells: exact counting is limited to boards of at most 25 cells"},
		{LevelsParams{Rows: 0, Cols: 6, K: 4}, "the level count takes boards of 1 to 25 cells"},
		{LevelsParams{Rows: 4, Cols: 5, K: 6}, "k 6 is out of range for a 4x5 board"},
		{LevelsParams{Rows: 4, Cols: 5, K: 4, Shards: 300}, "shards 300: want 1 to 256"},
		{LevelsParams{Rows: 4, Cols: 5, K: 4, Memory: 1000}, "memory 1000 B is too small"},
	} {
		_, err := c.p.Spec()
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, tasks.ErrInvalid) {
			t.Errorf("%+v: %v, want an invalid-parameters error with %q", c.p, err, c.want)
		}
	}
}

// runForward runs an mnk.forward job in one process.
func runForward(t *testing.T, p ForwardParams) map[string]json.RawMessage {
	t.Helper()
	sp, err := p.Spec()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Forward{}.Plan(context.Background(), sp.Params, tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return fields(t, taskstest.RunPlan(t, Forward{}, plan, tasks.Env{}, tasks.Summary{}))
}

// The level count and the plain forward count, which share no counting
// code, agree past 16 cells, field by field; 3x6 with k=3 (46,487,328
// positions) runs unless -short.
func TestLevelsEqualsForward(t *testing.T) {
	race.SkipSerial(t)
	boards := [][3]int{{4, 5, 1}, {4, 5, 2}, {5, 4, 2}, {2, 9, 2}, {1, 17, 2}, {2, 10, 2}, {3, 6, 2}}
	if !testing.Short() {
		boards = append(boards, [3]int{3, 6, 3})
	}
	for _, b := range boards {
		t.Run(fmt.Sprintf("%dx%dk%d", b[0], b[1], b[2]), func(t *testing.T) {
			got := runLevels(t, LevelsParams{Rows: b[0], Cols: b[1], K: b[2], Memory: 256 << 20})
			want := runForward(t, ForwardParams{Rows: b[0], Cols: b[1], K: b[2]})
			delete(want, "method")
			delete(want, "table_bytes")
			for key, w := range want {
				if g := got[key]; string(g) != string(w) {
					t.Errorf("%s: levels %s, forward %s", key, g, w)
				}
			}
		})
	}
}

// forgingStore stands for a worker that can write the object store: it
// replaces the first piece of ply 4 that holds positions with the second,
// a well-formed piece with other positions, once the second is written.
type forgingStore struct {
	*levels.MapStore
	first, forged string
}

func (s *forgingStore) Put(ctx context.Context, name string, data []byte) error {
	if err := s.MapStore.Put(ctx, name, data); err != nil {
		return err
	}
	if !strings.Contains(name, "/p04/") || len(data) < 8 || s.forged != "" {
		return nil
	}
	if s.first == "" {
		s.first = name
		return nil
	}
	s.forged = s.first
	return s.MapStore.Put(ctx, s.first, data)
}

// A piece changed in the store between the task that wrote it and the
// task that read it fails the count, naming the piece, rather than change
// its figures.
func TestLevelsForgedPieceFailsTheCount(t *testing.T) {
	sp, err := LevelsParams{Rows: 3, Cols: 4, K: 3, Shards: 3}.Spec()
	if err != nil {
		t.Fatal(err)
	}
	store := &forgingStore{MapStore: &levels.MapStore{}}
	plan, err := Levels{}.Plan(context.Background(), sp.Params, tasks.PlanEnv{Objects: store})
	if err != nil {
		t.Fatal(err)
	}
	r := Levels{}.NewRunner(tasks.Env{Objects: store})
	for _, task := range plan.Tasks() {
		out, err := r.Run(context.Background(), task.Payload)
		if err != nil {
			t.Fatalf("task %s: %v", task.ID, err)
		}
		if err := plan.Merge(task.ID, out.Data); err != nil {
			t.Fatalf("merge task %s: %v", task.ID, err)
		}
	}
	if store.forged == "" {
		t.Fatal("no piece of ply 4 was forged")
	}
	_, err = plan.Report(context.Background(), tasks.Summary{})
	if err == nil || !strings.Contains(err.Error(), store.forged+" was changed") {
		t.Fatalf("report after piece %s was forged: error %v", store.forged, err)
	}
}

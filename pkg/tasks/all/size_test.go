package all_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
	_ "github.com/woprlabs/wopr/pkg/tasks/all"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
	"github.com/woprlabs/wopr/pkg/tasks/nineboard"
	"github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// sizedByInputs are the kinds whose task count follows from their inputs,
// not their parameters: their submit side and plan count the pieces.
var sizedByInputs = map[string]bool{sudoku.Solve{}.Name(): true, sudoku.Rate{}.Name(): true}

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every kind says how many tasks its parameters give, without planning,
// unless its inputs decide.
func TestEveryKindIsSized(t *testing.T) {
	for _, name := range tasks.Names() {
		k, _ := tasks.Lookup(name)
		if _, ok := k.(tasks.Sizer); !ok && !sizedByInputs[name] {
			t.Errorf("kind %s is no tasks.Sizer: a job of it cannot be refused before it is planned", name)
		}
	}
}

// sizeCases are parameters of every sized kind, some at the edges of their
// limits, each small enough to plan here.
func sizeCases(t *testing.T) []struct {
	kind   string
	params json.RawMessage
} {
	sim := mnk.DefaultSimulateParams()
	simPer := sim
	simPer.Games, simPer.GamesPerTask, simPer.Exact = 1001, 10, true
	match := nineboard.MatchParams{X: "random", O: "random", Variant: "ultimate", Games: 1001, GamesPerTask: 7}
	return []struct {
		kind   string
		params json.RawMessage
	}{
		{"mnk.simulate", raw(t, sim)},
		{"mnk.simulate", raw(t, simPer)},
		{"mnk.count", raw(t, mnk.CountParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1})},
		{"mnk.count", raw(t, mnk.CountParams{Rows: 3, Cols: 3, K: 3, SplitDepth: 4})},
		{"mnk.count", raw(t, mnk.CountParams{Rows: 4, Cols: 4, K: 3, SplitDepth: 5})},
		{"mnk.count", raw(t, mnk.CountParams{Rows: 3, Cols: 3, K: 3, SplitDepth: 9})},
		{"mnk.solve", raw(t, mnk.DefaultSolveParams())},
		{"mnk.sweep", raw(t, mnk.DefaultSweepParams())},
		{"nineboard.match", raw(t, match)},
		{"sudoku.generate", raw(t, sudoku.GenerateParams{Count: 101, Seed: 1})},
	}
}

// A kind's size is what its plan makes, or more.
func TestSizeBoundsPlan(t *testing.T) {
	for _, c := range sizeCases(t) {
		k, _ := tasks.Lookup(c.kind)
		size, err := k.(tasks.Sizer).Size(c.params)
		if err != nil {
			t.Errorf("%s %s: size: %v", c.kind, c.params, err)
			continue
		}
		plan, err := k.Plan(context.Background(), c.params, tasks.PlanEnv{})
		if err != nil {
			t.Errorf("%s %s: plan: %v", c.kind, c.params, err)
			continue
		}
		if n := len(plan.Tasks()); n > size.Tasks {
			t.Errorf("%s %s: %d tasks planned, size %d: want at most the size", c.kind, c.params, n, size.Tasks)
		}
		if ix, ok := plan.(tasks.Indexed); ok {
			checkIndexed(t, c.kind, ix)
		}
	}
}

// Parameters that give more tasks than a job may have are refused from
// the parameters alone, naming them and the limit; the submit side (the
// params' Spec) refuses them too.
func TestTooManyTasksRefused(t *testing.T) {
	sim := mnk.DefaultSimulateParams()
	sim.Games, sim.GamesPerTask = 100_000_000, 1
	for _, c := range []struct {
		spec func() (tasks.Spec, error)
		want string
	}{
		{sim.Spec, "--games 100000000 --games-per-task 1: 100,000,000 tasks, more than the 1,000,000 a job may have"},
	} {
		_, err := c.spec()
		if !errors.Is(err, tasks.ErrInvalid) || err.Error() != c.want {
			t.Errorf("spec: %v, want a usage error %q", err, c.want)
		}
	}
	// A split whose bound is past the limit, but whose positions, counted
	// (up to symmetry, games ended early left out), are within it.
	for _, p := range []mnk.CountParams{{Rows: 4, Cols: 4, K: 4, SplitDepth: 10}, {Rows: 2, Cols: 8, K: 1, SplitDepth: 12}} {
		if _, err := p.Spec(); err != nil {
			t.Errorf("%+v: %v, want it allowed", p, err)
		}
	}
	k, _ := tasks.Lookup("mnk.simulate")
	if err := tasks.CheckSize(k, raw(t, sim), tasks.MaxTasks); err == nil || !strings.Contains(err.Error(), "100,000,000 tasks") {
		t.Errorf("CheckSize: %v, want 100,000,000 tasks refused", err)
	}
	small := mnk.DefaultSimulateParams()
	if err := tasks.CheckSize(k, raw(t, small), 9); err == nil || !strings.Contains(err.Error(), "--games 1000: 10 tasks, more than the 9") {
		t.Errorf("CheckSize with a limit of 9: %v, want 10 tasks refused", err)
	}
}

// A plan stops when its context is done: cancelling a job stops its plan
// at once, however many tasks it would have.
func TestPlanStopsWhenCancelled(t *testing.T) {
	big := mnk.DefaultSimulateParams()
	big.Games, big.GamesPerTask = 1_000_000, 1
	for _, c := range []struct {
		kind   string
		params json.RawMessage
	}{
		{"mnk.simulate", raw(t, big)},
		{"mnk.count", raw(t, mnk.CountParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 8})},
		{"nineboard.match", raw(t, nineboard.MatchParams{X: "random", O: "random", Variant: "ultimate", Games: nineboard.MaxGames, GamesPerTask: 1})},
		{"sudoku.generate", raw(t, sudoku.GenerateParams{Count: sudoku.MaxGenerate, Seed: 1})},
	} {
		k, _ := tasks.Lookup(c.kind)
		if err := tasks.CheckSize(k, c.params, tasks.MaxTasks); err != nil {
			t.Errorf("%s: %v, want a job that may run", c.kind, err)
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := k.Plan(ctx, c.params, tasks.PlanEnv{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s %s: plan with its job cancelled: %v, want %v", c.kind, c.params, err, context.Canceled)
		}
	}
}

// checkIndexed checks a plan that makes its tasks when asked: its tasks
// are the same every time, and each id leads back to its task.
func checkIndexed(t *testing.T, kind string, ix tasks.Indexed) {
	t.Helper()
	list := ix.(tasks.Plan).Tasks()
	if len(list) != ix.Len() {
		t.Errorf("%s: %d tasks listed, Len %d", kind, len(list), ix.Len())
		return
	}
	for i, task := range list {
		if again := ix.Task(i); again.ID != task.ID || string(again.Payload) != string(task.Payload) || again.Volatile != task.Volatile {
			t.Errorf("%s: task %d made as %+v, then as %+v", kind, i, task, again)
		}
		if j, ok := ix.Index(task.ID); !ok || j != i {
			t.Errorf("%s: Index(%q) = %d, %v, want %d, true", kind, task.ID, j, ok, i)
		}
	}
	for _, id := range []string{"", "g", "x1", "g-1", "g99999999", "exact", list[0].ID + "0"} {
		if i, ok := ix.Index(id); ok && (i >= len(list) || list[i].ID != id) {
			t.Errorf("%s: Index(%q) = %d, true: no such task", kind, id, i)
		}
	}
}

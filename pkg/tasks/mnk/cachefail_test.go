package mnk

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

var errStore = errors.New("store failing")

// failingCache works for its first n calls, then fails every one: a
// worker's store whose disk went read-only or full mid-run.
type failingCache struct {
	memCache
	n int
}

func (c *failingCache) ok() bool { c.n--; return c.n >= 0 }

func (c *failingCache) Get(k []byte) ([]byte, bool, error) {
	if !c.ok() {
		return nil, false, errStore
	}
	return c.memCache.Get(k)
}

func (c *failingCache) Put(k, v []byte) error {
	if !c.ok() {
		return errStore
	}
	return c.memCache.Put(k, v)
}

func (c *failingCache) Keys(prefix []byte, fn func([]byte) error) error {
	if !c.ok() {
		return errStore
	}
	return c.memCache.Keys(prefix, fn)
}

// A worker whose store fails mid-run computes on without it: counts and
// solves come out as without a cache, whenever the store starts failing.
func TestStoreFailingMidRun(t *testing.T) {
	count, err := Count{}.Plan(context.Background(), mustJSON(CountParams{Rows: 4, Cols: 3, K: 3, SplitDepth: 2}), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	want := taskstest.RunPlan(t, Count{}, count, tasks.Env{}, tasks.Summary{})
	wantSolve, _ := runSolve(t, SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 1}, tasks.Env{})
	for _, n := range []int{0, 10, 100, 1000} {
		count, err := Count{}.Plan(context.Background(), mustJSON(CountParams{Rows: 4, Cols: 3, K: 3, SplitDepth: 2}), tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		got := taskstest.RunPlan(t, Count{}, count, tasks.Env{Cache: &failingCache{memCache: memCache{}, n: n}}, tasks.Summary{})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("count with a store failing after %d calls:\n%+v\nwant %+v", n, got, want)
		}
		solve, _ := runSolve(t, SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 1}, tasks.Env{Cache: &failingCache{memCache: memCache{}, n: n}})
		if solve.Value != wantSolve.Value || !reflect.DeepEqual(solve.BestMoves, wantSolve.BestMoves) ||
			!reflect.DeepEqual(solve.PV, wantSolve.PV) || !reflect.DeepEqual(solve.MoveValues, wantSolve.MoveValues) {
			t.Errorf("solve with a store failing after %d calls: %s, best %v, pv %v, moves %v; want %s, %v, %v, %v", n,
				solve.Value, solve.BestMoves, solve.PV, solve.MoveValues, wantSolve.Value, wantSolve.BestMoves, wantSolve.PV, wantSolve.MoveValues)
		}
	}
}

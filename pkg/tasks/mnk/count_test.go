package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/count"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// runPlan runs every task of a plan with one runner (no queue) and merges.
func runPlan(t *testing.T, p CountParams) *CountReport {
	t.Helper()
	plan, err := Count{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return taskstest.RunPlan(t, Count{}, plan, tasks.Env{}, tasks.Summary{}).(*CountReport)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// direct computes the report straight from the engine, from the root. A
// game's length is its number of stones (a draw fills the board).
func direct(t *testing.T, rows, cols, k int) *CountReport {
	t.Helper()
	g := mnk.MustNew(rows, cols, k)
	st := count.New(g).Count(mnk.Position{})
	pc := count.Positions(g, mnk.Position{})
	r := &CountReport{
		Nodes: st.Nodes, XWins: st.XWins(), OWins: st.OWins(), Draws: st.Draws, Games: st.Games(),
		CanonicalGames: st.CanonicalGames, Positions: pc.Positions, CanonicalPositions: pc.Canonical,
		GamesByLength: map[string]uint64{}, PositionsByPly: map[string]uint64{},
		TerminalByResult: resultCounts(pc.Terminal), CanonicalTerminalByResult: resultCounts(pc.CanonicalTerminal),
		Value: valueWord(st.Value),
	}
	for l, n := range st.Wins {
		if l == g.Cells() {
			n += st.Draws
		}
		if n > 0 {
			r.GamesByLength[strconv.Itoa(l)] = n
		}
	}
	for ply, n := range pc.ByPly {
		if n > 0 {
			r.PositionsByPly[strconv.Itoa(ply)] = n
		}
	}
	r.TerminalPositions = r.TerminalByResult.XWins + r.TerminalByResult.OWins + r.TerminalByResult.Draws
	r.CanonicalTerminalPositions = r.CanonicalTerminalByResult.XWins + r.CanonicalTerminalByResult.OWins + r.CanonicalTerminalByResult.Draws
	return r
}

// The split-and-merge report equals the engine's count from the root, for
// every board up to 12 cells, every k and every split depth.
func TestPlanMatchesEngineAtEverySplit(t *testing.T) {
	for rows := 1; rows <= 4; rows++ {
		for cols := 1; cols <= 4; cols++ {
			if rows*cols > 12 || testing.Short() && rows*cols > 9 {
				continue
			}
			for k := 1; k <= max(rows, cols); k++ {
				want := direct(t, rows, cols, k)
				for split := -1; split <= rows*cols; split++ {
					got := runPlan(t, CountParams{Rows: rows, Cols: cols, K: k, SplitDepth: split})
					scalar := [][2]uint64{
						{got.Nodes, want.Nodes}, {got.Games, want.Games}, {got.XWins, want.XWins}, {got.OWins, want.OWins},
						{got.Draws, want.Draws}, {got.CanonicalGames, want.CanonicalGames}, {got.Positions, want.Positions},
						{got.CanonicalPositions, want.CanonicalPositions}, {got.TerminalPositions, want.TerminalPositions},
						{got.CanonicalTerminalPositions, want.CanonicalTerminalPositions},
					}
					for i, s := range scalar {
						if s[0] != s[1] {
							t.Errorf("%dx%d k%d split %d: figure %d is %d, want %d", rows, cols, k, split, i, s[0], s[1])
						}
					}
					if !maps.Equal(got.GamesByLength, want.GamesByLength) || !maps.Equal(got.PositionsByPly, want.PositionsByPly) {
						t.Errorf("%dx%d k%d split %d: games by length %v, positions by ply %v; want %v, %v", rows, cols, k, split,
							got.GamesByLength, got.PositionsByPly, want.GamesByLength, want.PositionsByPly)
					}
					if got.Value != want.Value || got.TerminalByResult != want.TerminalByResult ||
						got.CanonicalTerminalByResult != want.CanonicalTerminalByResult {
						t.Errorf("%dx%d k%d split %d: value %s terminal %+v %+v, want %s %+v %+v", rows, cols, k, split,
							got.Value, got.TerminalByResult, got.CanonicalTerminalByResult, want.Value, want.TerminalByResult, want.CanonicalTerminalByResult)
					}
				}
			}
		}
	}
}

// Task ids and payloads do not change between two plans of the same job (a
// restarted coordinator relies on it).
func TestPlanDeterministic(t *testing.T) {
	p := CountParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 3}
	a, _ := Count{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	b, _ := Count{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if !reflect.DeepEqual(a.Tasks(), b.Tasks()) {
		t.Error("two plans of the same job differ")
	}
	if n := len(a.Tasks()); n != 219 {
		t.Errorf("4x4 at ply 3: %d tasks, want 219 (orbits of non-terminal positions with 3 stones)", n)
	}
}

func TestAutoSplit(t *testing.T) {
	for _, c := range []struct{ rows, cols, k, split, tasks int }{
		{3, 3, 3, 3, 38}, {4, 4, 4, 2, 33}, {1, 1, 1, 1, 0},
	} {
		plan, err := Count{}.Plan(context.Background(), mustJSON(CountParams{Rows: c.rows, Cols: c.cols, K: c.k, SplitDepth: -1}), tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.(*countPlan).split; got != c.split || len(plan.Tasks()) != c.tasks {
			t.Errorf("%dx%d k%d: split %d with %d tasks, want %d with %d", c.rows, c.cols, c.k, got, len(plan.Tasks()), c.split, c.tasks)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []CountParams{
		{Rows: 0, Cols: 3, K: 3}, {Rows: 3, Cols: 9, K: 3}, {Rows: 3, Cols: 3, K: 4}, {Rows: 3, Cols: 3, K: 0},
		{Rows: 5, Cols: 5, K: 4}, {Rows: 3, Cols: 3, K: 3, SplitDepth: 10}, {Rows: 3, Cols: 3, K: 3, SplitDepth: -2},
	} {
		if _, err := p.Validate(); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// A task whose payload is garbage fails permanently (it is never retried).
func TestBadPayloadIsPermanent(t *testing.T) {
	r := Count{}.NewRunner(tasks.Env{})
	for _, payload := range []string{"{", `{"rows":3,"cols":3,"k":3,"x":1,"o":1}`, `{"rows":9,"cols":3,"k":3}`} {
		if _, err := r.Run(context.Background(), []byte(payload)); !isPermanent(err) {
			t.Errorf("payload %s: error %v, want permanent", payload, err)
		}
	}
}

func isPermanent(err error) bool { return errors.Is(err, tasks.ErrPermanent) }

// stopAfter is a context whose Err turns to Canceled on its n-th call (a
// worker handing its task back, at a chosen poll of the count).
type stopAfter struct {
	context.Context
	n int
}

func (c *stopAfter) Done() <-chan struct{} { return make(chan struct{}) }

func (c *stopAfter) Err() error {
	if c.n--; c.n <= 0 {
		return context.Canceled
	}
	return nil
}

// TestCountTaskStops: a count task stops when its context is done (it
// ignored it, so a worker told to hand its tasks back waited for the whole
// count), returns the context's error and no result, and leaves the
// runner and its cache exact for the next run.
func TestCountTaskStops(t *testing.T) {
	plan, err := Count{}.Plan(context.Background(), mustJSON(CountParams{Rows: 4, Cols: 4, K: 3}), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	payload := plan.Tasks()[0].Payload
	want, err := Count{}.NewRunner(tasks.Env{}).Run(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	cache := memCache{}
	r := Count{}.NewRunner(tasks.Env{Cache: cache})
	// Poll 3 stops the game-tree count, poll 30 the positions after it.
	for _, polls := range []int{3, 30} {
		out, err := r.Run(&stopAfter{Context: context.Background(), n: polls}, payload)
		if !errors.Is(err, context.Canceled) || out.Data != nil {
			t.Fatalf("stopped at poll %d: %q, %v; want no result and context.Canceled", polls, out.Data, err)
		}
	}
	for _, r := range []tasks.Runner{r, Count{}.NewRunner(tasks.Env{Cache: cache})} {
		got, err := r.Run(context.Background(), payload)
		if err != nil || string(got.Data) != string(want.Data) {
			t.Errorf("after stopped runs: %s, %v; want %s", got.Data, err, want.Data)
		}
	}
}

// TestRunnersShareTheMemo runs a job's tasks on runners of one worker
// process (one tasks.Process), at the same time, and on one runner of its
// own: the results are the same, the runners count on one memo, and a
// runner given a task of another game moves to a memo of that game.
func TestRunnersShareTheMemo(t *testing.T) {
	p := CountParams{Rows: 3, Cols: 4, K: 3, SplitDepth: 2}
	plan, err := Count{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	runners := runOnRunnersOfOneProcess(t, Count{}, plan.Tasks(), func(out tasks.Output) string { return string(out.Data) })
	m0, m1 := runners[0].(*countRunner).counter.Memo(), runners[1].(*countRunner).counter.Memo()
	if m0 != m1 {
		t.Errorf("the runners of one process count on two memos")
	}
	other, err := Count{}.Plan(context.Background(), mustJSON(CountParams{Rows: 3, Cols: 3, K: 3}), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runners[0].Run(context.Background(), other.Tasks()[0].Payload); err != nil {
		t.Fatal(err)
	}
	if m := runners[0].(*countRunner).counter.Memo(); m == m0 {
		t.Errorf("a task of 3x3 after 3x4 counted on the memo of 3x4")
	}
}

// runOnRunnersOfOneProcess runs a job's tasks (list) on a runner of kind
// of its own, then on two runners of one worker process (one tasks.Process)
// at the same time, in opposite orders, and checks that result gives the
// same for every task on each; it returns the two runners.
func runOnRunnersOfOneProcess(t *testing.T, kind tasks.Kind, list []tasks.Task, result func(tasks.Output) string) []tasks.Runner {
	t.Helper()
	alone := kind.NewRunner(tasks.Env{})
	want := make([]string, len(list))
	for i, task := range list {
		out, err := alone.Run(context.Background(), task.Payload)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = result(out)
	}
	process := &tasks.Process{}
	runners := []tasks.Runner{kind.NewRunner(tasks.Env{Process: process}), kind.NewRunner(tasks.Env{Process: process})}
	got := make([][]string, len(runners))
	var wg sync.WaitGroup
	for w, r := range runners {
		got[w] = make([]string, len(list))
		wg.Go(func() {
			for j := range list {
				i := j
				if w == 1 {
					i = len(list) - 1 - j
				}
				out, err := r.Run(context.Background(), list[i].Payload)
				if err != nil {
					t.Error(err)
					return
				}
				got[w][i] = result(out)
			}
		})
	}
	wg.Wait()
	for w := range runners {
		for i := range list {
			if got[w][i] != want[i] {
				t.Errorf("runner %d, task %s: %s, want %s", w, list[i].ID, got[w][i], want[i])
			}
		}
	}
	return runners
}

// Every result a count computes passes its check, at every split of
// several boards; any one figure changed fails it.
func TestCountCheck(t *testing.T) {
	for _, p := range []CountParams{
		{Rows: 3, Cols: 3, K: 3, SplitDepth: 1}, {Rows: 3, Cols: 3, K: 3, SplitDepth: 4},
		{Rows: 3, Cols: 4, K: 3, SplitDepth: 2}, {Rows: 2, Cols: 5, K: 2, SplitDepth: 3},
		{Rows: 4, Cols: 3, K: 4, SplitDepth: 5},
	} {
		raw, _ := json.Marshal(p)
		plan, err := Count{}.Plan(context.Background(), raw, tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		chk := plan.(tasks.Checks)
		results := taskstest.Results(t, Count{}, plan, tasks.Env{})
		for id, data := range results {
			if err := chk.Check(id, data); err != nil {
				t.Fatalf("%+v task %s: a computed result fails its check: %v", p, id, err)
			}
			var r countResult
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			for name, change := range map[string]func(*countResult){
				"draws":     func(r *countResult) { r.Draws += 1_000_000 },
				"nodes":     func(r *countResult) { r.Nodes++ },
				"wins":      func(r *countResult) { r.Wins = append([]uint64{}, r.Wins...); r.Wins[len(r.Wins)-1] += 2 },
				"positions": func(r *countResult) { r.Positions++ },
			} {
				bad := r
				if name == "wins" && len(r.Wins) == 0 {
					continue
				}
				change(&bad)
				forged, _ := json.Marshal(bad)
				if err := chk.Check(id, forged); err == nil {
					t.Errorf("%+v task %s: %s changed, and the check passes", p, id, name)
				}
			}
		}
		if len(results) == 0 {
			t.Fatalf("%+v: no tasks", p)
		}
	}
	plan, err := Count{}.Plan(context.Background(), mustJSON(CountParams{Rows: 3, Cols: 3, K: 3}), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.(tasks.Checks).Check("p0", []byte("garbage")); err == nil {
		t.Error("garbage passes the check")
	}
}

package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// runSolve runs every task of a solve plan with one runner and merges; it
// returns the report and the number of tasks.
func runSolve(t *testing.T, p SolveParams, env tasks.Env) (*SolveReport, int) {
	t.Helper()
	plan, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return taskstest.RunPlan(t, Solve{}, plan, env, tasks.Summary{}).(*SolveReport), len(plan.Tasks())
}

// TestSolveMatchesEngine: at every split depth the job's value, best moves
// and move values are what one solver finds from the root, and its
// principal variation is a legal game that ends with the value.
func TestSolveMatchesEngine(t *testing.T) {
	race.SkipSerial(t)
	games := []struct {
		m, n, k int
		depths  []int
	}{
		{3, 3, 3, []int{1, 2, 3, -1}},
		{3, 4, 3, []int{1, 2, -1}},
		{4, 3, 3, []int{1, 3}},
		{4, 4, 3, []int{1, -1}},
		{4, 4, 4, []int{1, 2, -1}},
		{5, 5, 4, []int{-1}},
		{2, 2, 1, []int{1, 2}},
	}
	for _, c := range games {
		g := mnk.MustNew(c.m, c.n, c.k)
		s := solve.New(g, 16<<20)
		want, _ := s.Solve(context.Background(), mnk.Position{})
		mv, _ := s.MoveValues(context.Background(), mnk.Position{})
		wantValues, wantBest := map[string]string{}, [][2]int{}
		for _, m := range mv {
			wantValues[fmt.Sprintf("%d,%d", m.Cell/8, m.Cell%8)] = m.Value.String()
			if m.Value == want {
				wantBest = append(wantBest, cellRC(m.Cell))
			}
		}
		for _, run := range solveRuns(c.depths) {
			d := run.depth
			name := fmt.Sprintf("%d,%d,%d split %d %s", c.m, c.n, c.k, d, run.method)
			rep, ntasks := runSolve(t, SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: d, RootMoves: true, Method: run.method}, tasks.Env{})
			if rep.Method != run.method {
				t.Errorf("%s: method %q in the report", name, rep.Method)
			}
			if rep.Value != valueWord(want) {
				t.Errorf("%s: value %s, want %s", name, rep.Value, valueWord(want))
			}
			if !reflect.DeepEqual(rep.MoveValues, wantValues) {
				t.Errorf("%s: move values %v, want %v", name, rep.MoveValues, wantValues)
			}
			if !reflect.DeepEqual(rep.BestMoves, wantBest) {
				t.Errorf("%s: best moves %v, want %v", name, rep.BestMoves, wantBest)
			}
			checkPV(t, name, g, rep.PV, want)
			t.Logf("%s: %d tasks, %d nodes, %.2f s of tasks", name, ntasks, rep.Nodes, rep.TaskSeconds)
			if ntasks > 0 && rep.Nodes == 0 || len(rep.TaskDetails) != ntasks {
				t.Errorf("%s: %d nodes, %d task details for %d tasks", name, rep.Nodes, len(rep.TaskDetails), ntasks)
			}
		}
	}
}

// TestSolveAtTheRoot: a job of one task at the root (split depth 0) finds
// the value one solver finds, one of its best first moves and a principal
// variation that ends with it; the automatic split is the root for pns on
// boards of up to 7x8 without --root-moves, the first moves otherwise.
func TestSolveAtTheRoot(t *testing.T) {
	race.SkipSerial(t)
	for _, c := range []struct{ m, n, k int }{{3, 3, 3}, {3, 4, 3}, {4, 4, 4}, {5, 5, 4}, {2, 2, 1}, {4, 3, 3}} {
		g := mnk.MustNew(c.m, c.n, c.k)
		s := solve.New(g, 16<<20)
		want, _ := s.Solve(context.Background(), mnk.Position{})
		mv, _ := s.MoveValues(context.Background(), mnk.Position{})
		best := map[[2]int]bool{}
		for _, m := range mv {
			if m.Value == want {
				best[cellRC(m.Cell)] = true
			}
		}
		for _, method := range []string{MethodAlphaBeta, MethodPNS} {
			name := fmt.Sprintf("%d,%d,%d split 0 %s", c.m, c.n, c.k, method)
			rep, ntasks := runSolve(t, SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: 0, Method: method}, tasks.Env{})
			if ntasks != 1 || rep.SplitDepth != 0 || len(rep.TaskDetails) != 1 {
				t.Errorf("%s: %d tasks, split depth %d, %d task details; want one task at depth 0", name, ntasks, rep.SplitDepth, len(rep.TaskDetails))
			}
			if rep.Value != valueWord(want) {
				t.Errorf("%s: value %s, want %s", name, rep.Value, valueWord(want))
			}
			if len(rep.BestMoves) != 1 || !best[rep.BestMoves[0]] || !rep.BestMovesPartial || rep.MoveValues != nil {
				t.Errorf("%s: best moves %v (partial %v), move values %v; want one of %v, partial, no move values",
					name, rep.BestMoves, rep.BestMovesPartial, rep.MoveValues, best)
			}
			if len(rep.PV) == 0 || rep.PV[0] != rep.BestMoves[0] {
				t.Errorf("%s: pv %v does not start with the best move %v", name, rep.PV, rep.BestMoves)
			}
			checkPV(t, name, g, rep.PV, want)
		}
	}
	for _, c := range []struct {
		p    SolveParams
		want int
	}{
		{SolveParams{Rows: 7, Cols: 7, K: 5, SplitDepth: -1, Method: MethodAuto}, 0},
		{SolveParams{Rows: 5, Cols: 5, K: 4, SplitDepth: -1, Method: MethodPNS}, 0},
		{SolveParams{Rows: 7, Cols: 7, K: 5, SplitDepth: -1, Method: MethodAuto, RootMoves: true}, 1},
		{SolveParams{Rows: 7, Cols: 8, K: 5, SplitDepth: -1, Method: MethodAuto}, 0},
		{SolveParams{Rows: 8, Cols: 8, K: 5, SplitDepth: -1, Method: MethodAuto}, 1},
		{SolveParams{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, Method: MethodAuto}, 1},
		{SolveParams{Rows: 7, Cols: 7, K: 5, SplitDepth: 2, Method: MethodAuto}, 2},
	} {
		if got := c.p.splitDepth(); got != c.want {
			t.Errorf("%+v: split depth %d, want %d", c.p, got, c.want)
		}
	}
}

// solveRuns are the split depths, each with both methods.
func solveRuns(depths []int) []struct {
	depth  int
	method string
} {
	var runs []struct {
		depth  int
		method string
	}
	for _, d := range depths {
		for _, m := range []string{MethodAlphaBeta, MethodPNS} {
			runs = append(runs, struct {
				depth  int
				method string
			}{d, m})
		}
	}
	return runs
}

// TestSolveProofNumbersPastAlphaBeta: the pns method solves the boards
// alpha-beta does not finish (6,6,5 and 5,7,5 draws) or does not take
// (8,5,3, 40 cells, a win), and auto picks it for them.
func TestSolveProofNumbersPastAlphaBeta(t *testing.T) {
	for _, c := range []struct {
		m, n, k int
		want    string
	}{{6, 6, 5, "draw"}, {5, 7, 5, "draw"}, {8, 5, 3, "win"}} {
		p := SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: -1, RootMoves: true, Method: MethodAuto}
		if p.Resolve() != MethodPNS {
			t.Errorf("%d,%d,%d: auto picks %s, want pns", c.m, c.n, c.k, p.Resolve())
		}
		rep, _ := runSolve(t, p, tasks.Env{})
		if rep.Value != c.want || rep.Method != MethodPNS || len(rep.MoveValues) != c.m*c.n {
			t.Errorf("%d,%d,%d: %s by %s, %d move values; want %s by pns, %d move values", c.m, c.n, c.k, rep.Value, rep.Method, len(rep.MoveValues), c.want, c.m*c.n)
		}
		checkPV(t, fmt.Sprintf("%d,%d,%d", c.m, c.n, c.k), mnk.MustNew(c.m, c.n, c.k), rep.PV, map[string]mnk.Value{"win": mnk.Win, "draw": mnk.Drawn}[c.want])
	}
}

// The rule of auto: alpha-beta for k of 3 or less on boards of at most 36
// cells, pns otherwise; the empty method is alpha-beta.
func TestSolveMethodResolve(t *testing.T) {
	for _, c := range []struct {
		m, n, k int
		method  string
		want    string
	}{
		{5, 5, 4, MethodAuto, MethodPNS}, {6, 6, 4, MethodAuto, MethodPNS}, {5, 5, 5, MethodAuto, MethodPNS},
		{3, 3, 3, MethodAuto, MethodAlphaBeta}, {6, 6, 3, MethodAuto, MethodAlphaBeta}, {8, 8, 3, MethodAuto, MethodPNS},
		{6, 6, 5, "", MethodAlphaBeta}, {3, 3, 3, MethodPNS, MethodPNS}, {6, 6, 6, MethodAlphaBeta, MethodAlphaBeta},
	} {
		p := SolveParams{Rows: c.m, Cols: c.n, K: c.k, Method: c.method}
		if got := p.Resolve(); got != c.want {
			t.Errorf("%d,%d,%d method %q: resolves to %s, want %s", c.m, c.n, c.k, c.method, got, c.want)
		}
	}
}

// checkPV plays pv from the empty board: legal moves, and a game over with
// value v for the first player.
func checkPV(t *testing.T, name string, g *mnk.Game, pv [][2]int, v mnk.Value) {
	t.Helper()
	p, res := mnk.Position{}, mnk.Ongoing
	for i, rc := range pv {
		c := mnk.Cell(rc[0], rc[1])
		if res != mnk.Ongoing || rc[0] >= g.Rows || rc[1] >= g.Cols || bits.OnesCount64(g.Empty(p)>>uint(c)&1) == 0 {
			t.Errorf("%s: pv %v: move %d is illegal", name, pv, i+1)
			return
		}
		p, res = g.Play(p, c)
	}
	end := map[mnk.Result]mnk.Value{mnk.XWin: mnk.Win, mnk.OWin: mnk.Loss, mnk.Draw: mnk.Drawn}
	if w, ok := end[res]; !ok || w != v {
		t.Errorf("%s: pv %v ends %v, want a game that ends with %v for the first player", name, pv, res, v)
	}
}

func TestSolveParams(t *testing.T) {
	bad := []SolveParams{
		{Rows: 7, Cols: 7, K: 4, SplitDepth: -1},
		{Rows: 3, Cols: 3, K: 4, SplitDepth: -1},
		{Rows: 3, Cols: 3, K: 3, SplitDepth: -2},
		{Rows: 3, Cols: 3, K: 3, SplitDepth: 4},
		{Rows: 3, Cols: 3, K: 3, SplitDepth: 0, RootMoves: true},
		{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, TTMB: -1},
		{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, TTMB: MaxTTMB + 1},
		{Rows: 3, Cols: 3, K: 3, SplitDepth: -1, Method: "mcts"},
		{Rows: 7, Cols: 7, K: 5, SplitDepth: -1, Method: MethodAlphaBeta},
		{Rows: 3, Cols: 3, K: 4, SplitDepth: -1, Method: MethodPNS},
	}
	for _, p := range bad {
		_, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
		if !errorsIsInvalid(err) {
			t.Errorf("%+v: %v, want an invalid-parameters error", p, err)
		}
	}
	for _, p := range []SolveParams{{Rows: 7, Cols: 7, K: 4, SplitDepth: -1, Method: MethodPNS}, {Rows: 8, Cols: 8, K: 5, SplitDepth: 1, Method: MethodAuto}} {
		if _, err := p.Validate(); err != nil {
			t.Errorf("%+v: %v, want valid", p, err)
		}
	}
}

func errorsIsInvalid(err error) bool { return errors.Is(err, tasks.ErrInvalid) }

// memCache is an in-memory tasks.Cache.
type memCache map[string][]byte

func (m memCache) Get(k []byte) ([]byte, bool, error) { v, ok := m[string(k)]; return v, ok, nil }
func (m memCache) Put(k, v []byte) error              { m[string(k)] = v; return nil }
func (m memCache) Keys(prefix []byte, fn func([]byte) error) error {
	for k := range m {
		if strings.HasPrefix(k, string(prefix)) {
			if err := fn([]byte(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestSolveCache: proven shallow positions go to the worker's cache, and a
// new runner (another process, or a rerun) takes them from there.
func TestSolveCache(t *testing.T) {
	cache := memCache{}
	p := SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 1}
	cold, _ := runSolve(t, p, tasks.Env{Cache: cache})
	if len(cache) == 0 || cold.PositionCacheHits != 0 {
		t.Fatalf("cold run: %d cached, %d hits", len(cache), cold.PositionCacheHits)
	}
	warm, _ := runSolve(t, p, tasks.Env{Cache: cache})
	if warm.Value != cold.Value || warm.PositionCacheHits == 0 || warm.Nodes >= cold.Nodes {
		t.Errorf("warm run: value %s (cold %s), %d hits, %d nodes (cold %d)", warm.Value, cold.Value, warm.PositionCacheHits, warm.Nodes, cold.Nodes)
	}
}

// TestRunnersShareTheTable runs a job's tasks on two runners of one worker
// process (one tasks.Process) at the same time, in opposite orders, and on a
// runner of its own: the values are the same, the runners search one
// table, and a runner given a task of another game moves to a table of
// that game.
func TestRunnersShareTheTable(t *testing.T) {
	for _, method := range []string{MethodAlphaBeta, MethodPNS} {
		t.Run(method, func(t *testing.T) { testRunnersShareTheTable(t, method) })
	}
}

func testRunnersShareTheTable(t *testing.T, method string) {
	p := SolveParams{Rows: 4, Cols: 4, K: 3, SplitDepth: 2, TTMB: 1, Method: method}
	plan, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	value := func(out tasks.Output) string {
		var r solveResult
		if err := json.Unmarshal(out.Data, &r); err != nil {
			t.Fatal(err)
		}
		return r.Value.String() // the nodes and seconds of a task depend on what the table holds
	}
	runners := runOnRunnersOfOneProcess(t, Solve{}, plan.Tasks(), value)
	table := func(r tasks.Runner) any {
		if sr := r.(*solveRunner); method == MethodPNS {
			return sr.proof.Table()
		} else {
			return sr.solver.Table()
		}
	}
	t0, t1 := table(runners[0]), table(runners[1])
	if t0 != t1 {
		t.Errorf("the runners of one process search two tables")
	}
	other, err := Solve{}.Plan(context.Background(), mustJSON(SolveParams{Rows: 3, Cols: 3, K: 3, SplitDepth: 1, TTMB: 1, Method: method}), tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runners[0].Run(context.Background(), other.Tasks()[0].Payload); err != nil {
		t.Fatal(err)
	}
	if tt := table(runners[0]); tt == t0 {
		t.Errorf("a task of 3x3 after 4x4 searched the table of 4x4")
	}
}

// TestSolveQuestions: a pns job split at depth 1 to 3 without --root-moves
// asks "does X win?" at the split depth and "does O win?" at the root, and
// finds the value one solver finds; a win's best first moves are all of
// them and its line plays out to X's win; a draw's best move is one of
// them, with no line. Its progress over the first moves ends decided.
func TestSolveQuestions(t *testing.T) {
	race.SkipSerial(t)
	for _, c := range []struct {
		m, n, k int
		depths  []int
	}{
		{3, 3, 3, []int{1, 2, 3}}, {3, 4, 3, []int{1, 2}}, {4, 4, 3, []int{1, 2}}, {4, 4, 4, []int{1, 2}},
		{5, 5, 4, []int{1}}, {2, 2, 1, []int{1}}, {3, 3, 2, []int{1, 2}}, {4, 3, 3, []int{1, 3}}, {6, 6, 5, []int{1}},
	} {
		g := mnk.MustNew(c.m, c.n, c.k)
		s := solve.New(g, 16<<20)
		if c.m*c.n > solve.MaxCells || c.k == 5 {
			s = nil
		}
		want, best := mnk.Drawn, map[[2]int]bool{}
		if s != nil {
			want, _ = s.Solve(context.Background(), mnk.Position{})
			mv, _ := s.MoveValues(context.Background(), mnk.Position{})
			for _, m := range mv {
				if m.Value == want {
					best[cellRC(m.Cell)] = true
				}
			}
		} else {
			for e := g.Empty(mnk.Position{}); e != 0; e &= e - 1 {
				best[cellRC(bits.TrailingZeros64(e))] = true // 6,6,5: every first move draws
			}
		}
		for _, d := range c.depths {
			name := fmt.Sprintf("%d,%d,%d split %d", c.m, c.n, c.k, d)
			p := SolveParams{Rows: c.m, Cols: c.n, K: c.k, SplitDepth: d, Method: MethodPNS}
			plan, err := Solve{}.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{})
			if err != nil {
				t.Fatal(err)
			}
			sp := plan.(*solvePlan)
			if !sp.questions || len(plan.Tasks()) != len(sp.where)+1 || plan.Tasks()[0].ID != rootQuestion {
				t.Fatalf("%s: questions %v, %d tasks for %d positions; want questions, one more task, %q first",
					name, sp.questions, len(plan.Tasks()), len(sp.where), rootQuestion)
			}
			rep := taskstest.RunPlan(t, Solve{}, plan, tasks.Env{}, tasks.Summary{}).(*SolveReport)
			if rep.Value != valueWord(want) || !rep.Questions {
				t.Errorf("%s: value %s (questions %v), want %s", name, rep.Value, rep.Questions, valueWord(want))
			}
			switch want {
			case mnk.Win:
				got := map[[2]int]bool{}
				for _, m := range rep.BestMoves {
					got[m] = true
				}
				if !reflect.DeepEqual(got, best) || rep.BestMovesPartial {
					t.Errorf("%s: best moves %v (partial %v), want %v", name, rep.BestMoves, rep.BestMovesPartial, best)
				}
				checkPV(t, name, g, rep.PV, mnk.Win)
			case mnk.Drawn:
				if len(rep.BestMoves) != 1 || !best[rep.BestMoves[0]] || !rep.BestMovesPartial || len(rep.PV) != 0 {
					t.Errorf("%s: best moves %v (partial %v), pv %v; want one of %v, partial, no line", name, rep.BestMoves, rep.BestMovesPartial, rep.PV, best)
				}
			}
			progress, err := sp.firstMovesProgress()
			if err != nil {
				t.Fatal(err)
			}
			open := len(sp.layers[1])
			wantProgress := fmt.Sprintf("first moves (up to symmetry): %d of %d refuted, 0 won", open, open)
			if want == mnk.Win {
				wantProgress = "" // how many won depends on the board; decided is enough
				if strings.Contains(progress, " 0 won") {
					t.Errorf("%s: progress %q: no first move won", name, progress)
				}
			}
			if wantProgress != "" && progress != wantProgress {
				t.Errorf("%s: progress %q, want %q", name, progress, wantProgress)
			}
			if !strings.Contains(rep.Text(), "questions") {
				t.Errorf("%s: the report does not say that its tasks asked questions:\n%s", name, rep.Text())
			}
		}
	}
}

// TestSolveProgress: the progress a solve's plan reports counts the first
// moves decided by the tasks merged, for values (a first move two plies up
// from its tasks is proven once all of them are) and for questions; a job
// of one task at the root says nothing.
func TestSolveProgress(t *testing.T) {
	for _, c := range []struct {
		p           SolveParams
		first, last string
	}{
		{SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 2, RootMoves: true, Method: MethodPNS},
			"first moves (up to symmetry): 0 of 3 proven", "first moves (up to symmetry): 3 of 3 proven"},
		{SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 2, Method: MethodPNS},
			"first moves (up to symmetry): 0 of 3 refuted, 0 won", "first moves (up to symmetry): 3 of 3 refuted, 0 won"},
		{SolveParams{Rows: 4, Cols: 4, K: 4, SplitDepth: 0, Method: MethodPNS}, "", ""},
	} {
		plan, err := Solve{}.Plan(context.Background(), mustJSON(c.p), tasks.PlanEnv{})
		if err != nil {
			t.Fatal(err)
		}
		sp := plan.(*solvePlan)
		if got := sp.Progress(); got != c.first {
			t.Errorf("%+v: progress before the tasks %q, want %q", c.p, got, c.first)
		}
		taskstest.RunPlan(t, Solve{}, plan, tasks.Env{}, tasks.Summary{})
		if got := sp.Progress(); got != c.last {
			t.Errorf("%+v: progress after the tasks %q, want %q", c.p, got, c.last)
		}
	}
}

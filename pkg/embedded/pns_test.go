package embedded_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// TestSolveMethodsAgree: a distributed solve gives the same value, best
// moves and value of every first move with alpha-beta and with
// proof-number search, with 1 worker and with 3, at every split; and on
// boards only pns finishes (5,5,5, 6,6,5), the known draws, the same with
// 1 worker and with 3.
func TestSolveMethodsAgree(t *testing.T) {
	one := startCluster(t, t.TempDir(), 1)
	three := startCluster(t, t.TempDir(), 3)
	clusters := []struct {
		name string
		c    *embedded.Cluster
	}{{"1 worker", one}, {"3 workers", three}}
	games := []struct {
		m, n, k int
		depths  []int
		methods []string
		want    string // the value, when only pns runs
	}{
		{3, 3, 3, []int{1, 2}, []string{"alphabeta", "pns"}, ""},
		{3, 4, 3, []int{-1}, []string{"alphabeta", "pns"}, ""},
		{4, 4, 4, []int{-1, 2}, []string{"alphabeta", "pns"}, ""},
		{4, 5, 5, []int{-1}, []string{"alphabeta", "pns"}, ""},
		{5, 5, 4, []int{-1}, []string{"alphabeta", "pns"}, ""},
		{5, 5, 5, []int{-1, 2}, []string{"pns"}, "draw"},
		{6, 6, 5, []int{-1}, []string{"pns"}, "draw"},
	}
	for _, g := range games {
		if raceSkipsBoard(t, g.m, g.n, fmt.Sprintf("%d,%d,%d", g.m, g.n, g.k)) {
			continue
		}
		var first *solveFigures
		firstLabel := ""
		for _, d := range g.depths {
			for _, method := range g.methods {
				for _, cl := range clusters {
					var rep solveReport
					p := mnk.SolveParams{Rows: g.m, Cols: g.n, K: g.k, SplitDepth: d, RootMoves: true, Method: method}
					runJob(t, cl.c.Broker, "mnk.solve", p, &rep)
					label := fmt.Sprintf("%d,%d,%d split %d, %s, %s", g.m, g.n, g.k, d, method, cl.name)
					got := solveFigures{rep.Value, rep.BestMoves, rep.MoveValues}
					if rep.Method != method || !rep.Complete || len(rep.MoveValues) != g.m*g.n || len(rep.PV) == 0 {
						t.Errorf("%s: method %q, complete %v, %d move values, pv %v", label, rep.Method, rep.Complete, len(rep.MoveValues), rep.PV)
					}
					if g.want != "" && got.Value != g.want {
						t.Errorf("%s: value %s, want %s", label, got.Value, g.want)
					}
					if first == nil {
						first, firstLabel = &got, label
						continue
					}
					if !reflect.DeepEqual(got, *first) {
						t.Errorf("%s:\ngot  %+v\n%s:\n     %+v", label, got, firstLabel, *first)
					}
				}
			}
		}
	}
}

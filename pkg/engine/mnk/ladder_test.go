package mnk

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// refNode is the ladder's node function written out plainly on a Board
// (Make and Unmake, its own win test), for the differential tests: order
// is the move order, and ab turns the fail-hard alpha-beta of the issue on.
type refNode struct {
	b     *Board
	order []int
	ab    bool
	nodes uint64
}

func (r *refNode) node(alpha, beta int8) int8 {
	r.nodes++
	switch r.b.Result() {
	case XWin, OWin:
		return -1
	case Draw:
		return 0
	}
	best := int8(-2)
	for _, c := range r.order {
		if p := r.b.Position(); (p.X|p.O)>>c&1 != 0 {
			continue
		}
		r.b.Make(c)
		v := -r.node(-beta, -alpha)
		r.b.Unmake()
		if !r.ab {
			best = max(best, v)
			continue
		}
		if v >= beta {
			return beta
		}
		if v > alpha {
			alpha = v
		}
	}
	if !r.ab {
		return best
	}
	return alpha
}

func refOrder(g *Game, byWindows bool) []int {
	var order []int
	for c := range 64 {
		if g.Mask()>>c&1 != 0 {
			order = append(order, c)
		}
	}
	if byWindows {
		// Insertion sort, most windows first, stable.
		for i := 1; i < len(order); i++ {
			for j := i; j > 0 && g.windowsThrough(order[j]) > g.windowsThrough(order[j-1]); j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
	}
	return order
}

// The known figures: the 549,946 nodes of the tic-tac-toe tree, and the
// value of 3x3 (a draw) at every rung, each in fewer nodes than the rung
// before (pns 107, the solver 116; pns pays most where pairings decide:
// TestLadderProofNumbers).
func TestLadderTicTacToe(t *testing.T) {
	g := MustNew(3, 3, 3)
	var prev uint64
	for _, rung := range Rungs {
		res, err := RunRung(context.Background(), g, rung, RungLimits{TTBytes: 1 << 20})
		if err != nil || res.Stopped || res.Value != Drawn {
			t.Fatalf("%s on 3x3: %+v, %v; want a draw", rung, res, err)
		}
		if rung == "minimax" && res.Nodes != 549946 {
			t.Errorf("minimax on 3x3: %d nodes, want 549,946", res.Nodes)
		}
		if rung != "minimax" && res.Nodes >= prev {
			t.Errorf("%s on 3x3: %d nodes, not fewer than the rung before's %d", rung, res.Nodes, prev)
		}
		prev = res.Nodes
		t.Logf("3x3 %-9s %7d nodes, %5d table entries", rung, res.Nodes, res.TableEntries)
	}
}

// Every rung gives the solver's value on the boards up to 4x4 (plain
// search up to 12 cells), and minimax, alphabeta and ordered count exactly
// the nodes of the plain implementation of their definition.
func TestLadderAgainstReference(t *testing.T) {
	for rows := 1; rows <= 4; rows++ {
		for cols := rows; cols <= 4; cols++ {
			for k := 1; k <= max(rows, cols); k++ {
				g := MustNew(rows, cols, k)
				want, err := NewSolver(g, 1<<20).Solve(context.Background(), Position{})
				if err != nil {
					t.Fatal(err)
				}
				for _, rung := range Rungs {
					// Plain search on 4x4 takes billions of nodes.
					if rung == "minimax" && g.Cells() > 10 || (rung == "alphabeta" || rung == "ordered") && g.Cells() > 12 {
						continue
					}
					name := fmt.Sprintf("%s %s", g.Spec(), rung)
					res, err := RunRung(context.Background(), g, rung, RungLimits{TTBytes: 1 << 20})
					if err != nil || res.Stopped || res.Value != want {
						t.Errorf("%s: %+v, %v; want value %v", name, res, err, want)
						continue
					}
					if rung == "minimax" || rung == "alphabeta" || rung == "ordered" {
						ref := &refNode{b: NewBoard(g), order: refOrder(g, rung == "ordered"), ab: rung != "minimax"}
						if v := ref.node(-1, 1); Value(v) != want || ref.nodes != res.Nodes {
							t.Errorf("%s: %d nodes, value %v; the plain definition: %d nodes, value %v", name, res.Nodes, res.Value, ref.nodes, v)
						}
					}
				}
			}
		}
	}
}

// A table too small to hold much gives the same values (entries are
// replaced, never wrong), and the same table size gives the same counts.
func TestLadderSmallTable(t *testing.T) {
	for _, spec := range [][3]int{{3, 3, 3}, {3, 4, 3}, {3, 4, 4}, {4, 4, 3}} {
		g := MustNew(spec[0], spec[1], spec[2])
		want, _ := NewSolver(g, 1<<20).Solve(context.Background(), Position{})
		for _, rung := range []string{"tt", "symmetry"} {
			a, err := RunRung(context.Background(), g, rung, RungLimits{TTBytes: 24 * 64})
			b, _ := RunRung(context.Background(), g, rung, RungLimits{TTBytes: 24 * 64})
			if err != nil || a.Value != want || a != b || a.TableEntries > 64 {
				t.Errorf("%s %s with 64 entries: %+v then %+v (%v); want value %v twice, at most 64 entries", g.Spec(), rung, a, b, err, want)
			}
		}
	}
}

// A budget stops a rung at exactly that many nodes; a cancelled context
// stops it too; the solver rung refuses boards it cannot take, pns takes
// them; an unknown rung is an error.
func TestLadderLimits(t *testing.T) {
	for _, rung := range Rungs {
		g := MustNew(4, 4, 4)
		if rung == "pns" {
			g = MustNew(5, 5, 4) // 4,4,4 takes pns 22 nodes
		}
		res, err := RunRung(context.Background(), g, rung, RungLimits{Nodes: 1000, TTBytes: 1 << 20})
		if err != nil || !res.Stopped || res.Nodes != 1000 {
			t.Errorf("%s with a budget of 1,000: %+v, %v; want stopped at 1,000 nodes", rung, res, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err = RunRung(ctx, MustNew(5, 5, 4), rung, RungLimits{TTBytes: 1 << 20})
		if err != nil || !res.Stopped {
			t.Errorf("%s cancelled: %+v, %v; want stopped", rung, res, err)
		}
	}
	if _, err := RunRung(context.Background(), MustNew(7, 7, 5), "solver", RungLimits{}); !errors.Is(err, ErrTooBig) {
		t.Errorf("solver on 7x7: %v, want ErrTooBig", err)
	}
	if res, err := RunRung(context.Background(), MustNew(7, 7, 5), "pns", RungLimits{Nodes: 100, TTBytes: 1 << 20}); err != nil || !res.Stopped || res.Nodes != 100 {
		t.Errorf("pns on 7x7 with a budget of 100: %+v, %v; want stopped at 100 nodes", res, err)
	}
	if _, err := RunRung(context.Background(), MustNew(4, 4, 4), "negascout", RungLimits{}); !errors.Is(err, ErrUnknownRung) {
		t.Errorf("an unknown rung: %v, want ErrUnknownRung", err)
	}
	g := MustNew(4, 4, 4)
	if _, err := RunRung(context.Background(), g, "pns", RungLimits{}); RungAvailable("pns") == errors.Is(err, ErrRungUnavailable) {
		t.Errorf("pns: %v, available %v", err, RungAvailable("pns"))
	}
	for _, rung := range Rungs {
		if err := RungTakes(g, rung); (err == nil) != RungAvailable(rung) {
			t.Errorf("RungTakes(4,4,4, %s): %v, RungAvailable %v", rung, err, RungAvailable(rung))
		}
	}
	if RungAvailable("negascout") || !errors.Is(RungTakes(g, "negascout"), ErrUnknownRung) || !errors.Is(RungTakes(MustNew(7, 7, 5), "solver"), ErrTooBig) {
		t.Error("RungAvailable or RungTakes accept an unknown rung, or the solver a board of 49 cells")
	}
}

// Where pairings decide, pns takes a small fraction of the solver's nodes:
// 4,5,5 and 3,8,5 (draws), and the known values of 5,5,5 and 6,6,5, which
// the solver does not prove within the budget.
func TestLadderProofNumbers(t *testing.T) {
	for _, spec := range [][3]int{{4, 5, 5}, {3, 8, 5}} {
		g := MustNew(spec[0], spec[1], spec[2])
		sv, err1 := RunRung(context.Background(), g, "solver", RungLimits{TTBytes: 16 << 20})
		pn, err2 := RunRung(context.Background(), g, "pns", RungLimits{TTBytes: 16 << 20})
		if err1 != nil || err2 != nil || sv.Value != Drawn || pn.Value != Drawn || pn.Nodes*100 > sv.Nodes {
			t.Errorf("%s: solver %+v (%v), pns %+v (%v); want draws, pns under 1%% of the solver's nodes", g.Spec(), sv, err1, pn, err2)
		}
		t.Logf("%s: solver %d nodes, pns %d", g.Spec(), sv.Nodes, pn.Nodes)
	}
	for _, spec := range [][3]int{{5, 5, 5}, {6, 6, 5}} {
		g := MustNew(spec[0], spec[1], spec[2])
		sv, err1 := RunRung(context.Background(), g, "solver", RungLimits{Nodes: 100_000, TTBytes: 16 << 20})
		pn, err2 := RunRung(context.Background(), g, "pns", RungLimits{Nodes: 100_000, TTBytes: 16 << 20})
		if err1 != nil || err2 != nil || !sv.Stopped || pn.Stopped || pn.Value != Drawn {
			t.Errorf("%s with 100,000 nodes: solver %+v (%v), pns %+v (%v); want the solver stopped, pns a draw", g.Spec(), sv, err1, pn, err2)
		}
	}
}

// BenchmarkRung runs each rung on a board it solves in well under a
// second: nodes/s is the rung's speed (a run of tt, symmetry or solver
// allocates its table, 16 MB here).
func BenchmarkRung(b *testing.B) {
	for _, c := range []struct {
		rung    string
		r, c, k int
	}{
		{"minimax", 3, 3, 3}, {"alphabeta", 3, 4, 4}, {"ordered", 3, 4, 4},
		{"tt", 4, 4, 4}, {"symmetry", 4, 4, 4}, {"solver", 5, 5, 4}, {"pns", 5, 5, 4},
	} {
		g := MustNew(c.r, c.c, c.k)
		b.Run(fmt.Sprintf("%s/%s", c.rung, g.Spec()), func(b *testing.B) {
			b.ReportAllocs()
			var nodes uint64
			for b.Loop() {
				res, err := RunRung(context.Background(), g, c.rung, RungLimits{TTBytes: 16 << 20})
				if err != nil || res.Stopped {
					b.Fatalf("%+v, %v", res, err)
				}
				nodes += res.Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}

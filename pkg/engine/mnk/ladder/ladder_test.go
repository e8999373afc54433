package ladder

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/solve"
)

// refNode is the ladder's node function written out plainly on a Board
// (Make and Unmake), for the differential tests. Its win test is its own:
// after a move it walks the four directions from the cell played, on the
// cells' rows and columns, and counts the run of the mover's stones; a
// full board without a line is a draw. order is the move order, and ab
// turns the fail-hard alpha-beta of the ladder on.
type refNode struct {
	b             *mnk.Board
	rows, cols, k int
	order         []int
	ab            bool
	nodes         uint64
}

func newRefNode(g *mnk.Game, byWindows, ab bool) *refNode {
	r := &refNode{b: mnk.NewBoard(g), rows: g.Rows, cols: g.Cols, k: g.K, ab: ab}
	r.order = r.refOrder(byWindows)
	return r
}

// inside reports whether (row, col) is a cell of the board.
func (r *refNode) inside(row, col int) bool {
	return row >= 0 && row < r.rows && col >= 0 && col < r.cols
}

// line reports whether stones hold k in a row through cell.
func (r *refNode) line(stones uint64, cell int) bool {
	row, col := cell/8, cell%8
	has := func(row, col int) bool { return r.inside(row, col) && stones>>uint(row*8+col)&1 != 0 }
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		run := 1
		for i := 1; has(row+i*d[0], col+i*d[1]); i++ {
			run++
		}
		for i := 1; has(row-i*d[0], col-i*d[1]); i++ {
			run++
		}
		if run >= r.k {
			return true
		}
	}
	return false
}

// node returns the value of the board's position for the side to move;
// last is the cell of the move that made it (-1 at the root).
func (r *refNode) node(last int, alpha, beta int8) int8 {
	r.nodes++
	if last >= 0 {
		p := r.b.Position()
		mover := p.X // X made the odd plies
		if r.b.Ply()%2 == 0 {
			mover = p.O
		}
		if r.line(mover, last) {
			return -1
		}
		if r.b.Ply() == r.rows*r.cols {
			return 0
		}
	}
	best := int8(-2)
	for _, c := range r.order {
		if p := r.b.Position(); (p.X|p.O)>>c&1 != 0 {
			continue
		}
		r.b.Make(c)
		v := -r.node(c, -beta, -alpha)
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

// refOrder returns the cells in row-major order, or with byWindows by the
// number of lines of k cells through them, most first (a stable sort, so
// ties stay row-major), each line found by walking the board's rows and
// columns.
func (r *refNode) refOrder(byWindows bool) []int {
	var order []int
	windows := map[int]int{}
	for row := range r.rows {
		for col := range r.cols {
			c := row*8 + col
			order = append(order, c)
			for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				for i := range r.k {
					// The line of k cells from (row-i*d0, col-i*d1) holds c.
					r0, c0 := row-i*d[0], col-i*d[1]
					if r.inside(r0, c0) && r.inside(r0+(r.k-1)*d[0], c0+(r.k-1)*d[1]) {
						windows[c]++
					}
				}
				if r.k == 1 {
					break // one cell is one line, whatever the direction
				}
			}
		}
	}
	if byWindows {
		// Insertion sort, most windows first, stable.
		for i := 1; i < len(order); i++ {
			for j := i; j > 0 && windows[order[j]] > windows[order[j-1]]; j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
	}
	return order
}

// The known figures: the 549,946 nodes of the tic-tac-toe tree, and the
// value of 3x3 (a draw) at every rung, each in fewer nodes than the rung
// before (pns 107, the solver 116; pns pays most where pairings decide:
// TestLadderProofNumbers), but for matching, which finds no matching on
// 3x3 (the other rules decide first) and takes the nodes of zones.
func TestLadderTicTacToe(t *testing.T) {
	g := mnk.MustNew(3, 3, 3)
	var prev uint64
	for _, rung := range Rungs {
		res, err := Run(context.Background(), g, rung, Limits{TTBytes: 1 << 20})
		if err != nil || res.Stopped || res.Value != mnk.Drawn {
			t.Fatalf("%s on 3x3: %+v, %v; want a draw", rung, res, err)
		}
		if rung == "minimax" && res.Nodes != 549946 {
			t.Errorf("minimax on 3x3: %d nodes, want 549,946", res.Nodes)
		}
		if rung == "matching" && res.Nodes != prev || rung != "minimax" && rung != "matching" && res.Nodes >= prev {
			t.Errorf("%s on 3x3: %d nodes, the rung before %d", rung, res.Nodes, prev)
		}
		prev = res.Nodes
		t.Logf("3x3 %-9s %7d nodes, %5d table entries", rung, res.Nodes, res.TableEntries)
	}
}

// Every rung gives the solver's value on the boards up to 4x4 (plain
// search up to 12 cells), and minimax, alphabeta and ordered count exactly
// the nodes of the plain implementation of their definition.
func TestLadderAgainstReference(t *testing.T) {
	race.SkipSerial(t)
	for rows := 1; rows <= 4; rows++ {
		for cols := rows; cols <= 4; cols++ {
			for k := 1; k <= max(rows, cols); k++ {
				g := mnk.MustNew(rows, cols, k)
				want, err := solve.New(g, 1<<20).Solve(context.Background(), mnk.Position{})
				if err != nil {
					t.Fatal(err)
				}
				for _, rung := range Rungs {
					// Plain search on 4x4 takes billions of nodes.
					if rung == "minimax" && g.Cells() > 10 || (rung == "alphabeta" || rung == "ordered") && g.Cells() > 12 {
						continue
					}
					name := fmt.Sprintf("%s %s", g.Spec(), rung)
					res, err := Run(context.Background(), g, rung, Limits{TTBytes: 1 << 20})
					if err != nil || res.Stopped || res.Value != want {
						t.Errorf("%s: %+v, %v; want value %v", name, res, err, want)
						continue
					}
					if rung == "minimax" || rung == "alphabeta" || rung == "ordered" {
						ref := newRefNode(g, rung == "ordered", rung != "minimax")
						if v := ref.node(-1, -1, 1); mnk.Value(v) != want || ref.nodes != res.Nodes {
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
		g := mnk.MustNew(spec[0], spec[1], spec[2])
		want, _ := solve.New(g, 1<<20).Solve(context.Background(), mnk.Position{})
		for _, rung := range []string{"tt", "symmetry"} {
			a, err := Run(context.Background(), g, rung, Limits{TTBytes: 24 * 64})
			b, _ := Run(context.Background(), g, rung, Limits{TTBytes: 24 * 64})
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
		g := mnk.MustNew(4, 4, 4)
		if rung == "pns" || rung == "zones" || rung == "matching" {
			g = mnk.MustNew(5, 5, 4) // 4,4,4 takes pns 22 nodes
		}
		res, err := Run(context.Background(), g, rung, Limits{Nodes: 1000, TTBytes: 1 << 20})
		if err != nil || !res.Stopped || res.Nodes != 1000 {
			t.Errorf("%s with a budget of 1,000: %+v, %v; want stopped at 1,000 nodes", rung, res, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err = Run(ctx, mnk.MustNew(5, 5, 4), rung, Limits{TTBytes: 1 << 20})
		if err != nil || !res.Stopped {
			t.Errorf("%s cancelled: %+v, %v; want stopped", rung, res, err)
		}
	}
	if _, err := Run(context.Background(), mnk.MustNew(7, 7, 5), "solver", Limits{}); !errors.Is(err, mnk.ErrTooBig) {
		t.Errorf("solver on 7x7: %v, want ErrTooBig", err)
	}
	if res, err := Run(context.Background(), mnk.MustNew(7, 7, 5), "pns", Limits{Nodes: 100, TTBytes: 1 << 20}); err != nil || !res.Stopped || res.Nodes != 100 {
		t.Errorf("pns on 7x7 with a budget of 100: %+v, %v; want stopped at 100 nodes", res, err)
	}
	if _, err := Run(context.Background(), mnk.MustNew(4, 4, 4), "negascout", Limits{}); !errors.Is(err, ErrUnknownRung) {
		t.Errorf("an unknown rung: %v, want ErrUnknownRung", err)
	}
	g := mnk.MustNew(4, 4, 4)
	for _, rung := range Rungs {
		if err := Takes(g, rung); err != nil {
			t.Errorf("Takes(4,4,4, %s): %v, want nil", rung, err)
		}
	}
	if !errors.Is(Takes(g, "negascout"), ErrUnknownRung) || !errors.Is(Takes(mnk.MustNew(7, 7, 5), "solver"), mnk.ErrTooBig) {
		t.Error("Takes accepts an unknown rung, or the solver a board of 49 cells")
	}
}

// Where pairings decide, pns takes a small fraction of the solver's nodes:
// 4,5,5 and 3,8,5 (draws), and the known values of 5,5,5 and 6,6,5, which
// the solver does not prove within the budget.
func TestLadderProofNumbers(t *testing.T) {
	race.SkipSerial(t)
	for _, spec := range [][3]int{{4, 5, 5}, {3, 8, 5}} {
		g := mnk.MustNew(spec[0], spec[1], spec[2])
		sv, err1 := Run(context.Background(), g, "solver", Limits{TTBytes: 16 << 20})
		pn, err2 := Run(context.Background(), g, "pns", Limits{TTBytes: 16 << 20})
		if err1 != nil || err2 != nil || sv.Value != mnk.Drawn || pn.Value != mnk.Drawn || pn.Nodes*100 > sv.Nodes {
			t.Errorf("%s: solver %+v (%v), pns %+v (%v); want draws, pns under 1%% of the solver's nodes", g.Spec(), sv, err1, pn, err2)
		}
		t.Logf("%s: solver %d nodes, pns %d", g.Spec(), sv.Nodes, pn.Nodes)
	}
	for _, spec := range [][3]int{{5, 5, 5}, {6, 6, 5}} {
		g := mnk.MustNew(spec[0], spec[1], spec[2])
		sv, err1 := Run(context.Background(), g, "solver", Limits{Nodes: 100_000, TTBytes: 16 << 20})
		pn, err2 := Run(context.Background(), g, "pns", Limits{Nodes: 100_000, TTBytes: 16 << 20})
		if err1 != nil || err2 != nil || !sv.Stopped || pn.Stopped || pn.Value != mnk.Drawn {
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
		{"tt", 4, 4, 4}, {"symmetry", 4, 4, 4}, {"solver", 5, 5, 4}, {"pns", 5, 5, 4}, {"zones", 5, 5, 4},
		{"matching", 5, 5, 4},
	} {
		g := mnk.MustNew(c.r, c.c, c.k)
		b.Run(fmt.Sprintf("%s/%s", c.rung, g.Spec()), func(b *testing.B) {
			b.ReportAllocs()
			var nodes uint64
			for b.Loop() {
				res, err := Run(context.Background(), g, c.rung, Limits{TTBytes: 16 << 20})
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

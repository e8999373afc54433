package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/internal/ref"
)

// toBig converts a position of g to the same position of the BigGame.
func toBig(g *mnk.Game, bg *BigGame, p mnk.Position) BigPosition {
	bp := make(BigPosition, bg.Cells())
	for r := range g.Rows {
		for c := range g.Cols {
			switch bit := uint64(1) << mnk.Cell(r, c); {
			case p.X&bit != 0:
				bp[bg.Cell(r, c)] = 1
			case p.O&bit != 0:
				bp[bg.Cell(r, c)] = 2
			}
		}
	}
	return bp
}

// TestBigSearchMatchesSearch: searching every empty cell (Near off), the
// big-board search has Searcher's rules, heuristic and mate scores, so its
// score at every depth of iterative deepening is Searcher's, on boards
// both can hold. (Moves may differ among equal scores.)
func TestBigSearchMatchesSearch(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, r := range ref.Games("3,3,3 4,4,3 4,4,4 3,5,3 5,5,4 6,6,4 7,6,5 8,8,5 8,8,4 4,4,1 6,7,2") {
		g := mnk.MustNew(r.M, r.N, r.K)
		bg, err := NewBig(r.M, r.N, r.K)
		if err != nil {
			t.Fatal(err)
		}
		bs := NewBigSearcher(bg, 1<<20)
		bs.Near = false
		for range 25 {
			p, res := ref.RandomGame(g, rng, rng.IntN(g.Cells()*2/3))
			if res != mnk.Ongoing {
				continue
			}
			depth := 1 + rng.IntN(4)
			want, err1 := New(g, 1<<20).Search(ctx, p, depth, 0)
			got, err2 := bs.Search(ctx, toBig(g, bg, p), depth, 0)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if len(got.Iterations) != len(want.Iterations) || got.Exhaustive != want.Exhaustive {
				t.Fatalf("%s %s depth %d: %d iterations (exhaustive %v), want %d (%v)", ref.Name(r), g.String(p), depth,
					len(got.Iterations), got.Exhaustive, len(want.Iterations), want.Exhaustive)
			}
			for i, it := range want.Iterations {
				if got.Iterations[i].Score != it.Score {
					t.Fatalf("%s %s depth %d: score %d, Searcher's %d", ref.Name(r), g.String(p), it.Depth, got.Iterations[i].Score, it.Score)
				}
			}
			if got.Move < 0 || toBig(g, bg, p)[got.Move] != 0 {
				t.Fatalf("%s %s: move %d is not an empty cell", ref.Name(r), g.String(p), got.Move)
			}
		}
	}
}

// TestBigSearchTable: the table never changes a score, near stones too.
func TestBigSearchTable(t *testing.T) {
	ctx := context.Background()
	bg, _ := NewBig(15, 15, 5)
	rng := rand.New(rand.NewPCG(13, 14))
	for range 20 {
		p := randomBig(bg, rng, 4+rng.IntN(12))
		if p == nil {
			continue
		}
		depth := 1 + rng.IntN(3)
		a, err1 := NewBigSearcher(bg, 1<<22).Search(ctx, p, depth, 0)
		b, err2 := NewBigSearcher(bg, 0).Search(ctx, p, depth, 0)
		if err1 != nil || err2 != nil || a.Score != b.Score || a.Depth != b.Depth {
			t.Fatalf("%s depth %d: score %d with the table, %d without", bg.String(p), depth, a.Score, b.Score)
		}
	}
}

// randomBig plays n random moves near the centre of bg; nil if the game
// ended.
func randomBig(bg *BigGame, rng *rand.Rand, n int) BigPosition {
	p := make(BigPosition, bg.Cells())
	for i := range n {
		for {
			r, c := bg.Rows/2-3+rng.IntN(7), bg.Cols/2-3+rng.IntN(7)
			if p[bg.Cell(r, c)] == 0 {
				p[bg.Cell(r, c)] = int8(i%2 + 1)
				break
			}
		}
		if bg.Status(p) != mnk.Ongoing {
			return nil
		}
	}
	return p
}

// Gomoku (15x15, five in a row) tactics: they come from the rules at each
// node and the search, on a board far too big for Game.
func TestBigSearchGomokuTactics(t *testing.T) {
	bg, err := NewBig(15, 15, 5)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		name, moves string
		depth       int
		mate        int      // MatePlies, 0 for no forced result
		moveIn      []string // the best move is one of these ("row,col")
	}{
		// X has four in row 7 (7,3..7,6), open at both ends: win in 1.
		{"win now", "7,3 0,0 7,4 0,2 7,5 0,4 7,6 14,14", 3, 1, []string{"7,2", "7,7"}},
		// O to move; X has four (7,3..7,6) closed at 7,2 by O: O must block 7,7.
		{"forced block", "7,3 7,2 7,4 0,0 7,5 0,2 7,6", 2, 0, []string{"7,7"}},
		// O to move; X has an open four (7,3..7,6): two cells complete it, O loses in 2.
		{"lost to an open four", "7,3 0,0 7,4 0,2 7,5 0,4 7,6", 2, -2, []string{"7,2", "7,7"}},
		// X to move with three in row 7 and three in column 7 meeting at 7,7
		// (open ends): 7,7 makes two fours at once, a win in 3 plies.
		{"four-four", "7,4 0,0 7,5 0,2 7,6 0,4 4,7 0,6 5,7 0,8 6,7 0,10", 3, 3, []string{"7,7"}},
	}
	for _, c := range cases {
		p, err := bg.ParseMoves(c.moves)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		res, err := NewBigSearcher(bg, 1<<22).Search(ctx, p, c.depth, 0)
		if err != nil {
			t.Fatal(err)
		}
		move := ""
		if res.Move >= 0 {
			move = strconv.Itoa(res.Move/15) + "," + strconv.Itoa(res.Move%15)
		}
		ok := false
		for _, m := range c.moveIn {
			ok = ok || m == move
		}
		if res.MatePlies() != c.mate || !ok {
			t.Errorf("%s: move %s, mate %d (score %d); want one of %v, mate %d", c.name, move, res.MatePlies(), res.Score, c.moveIn, c.mate)
		}
	}
}

// Positions are read, written and checked as Game's are.
func TestBigParse(t *testing.T) {
	bg, _ := NewBig(9, 10, 5)
	p, err := bg.ParseMoves("4,4 0,0 4,5")
	if err != nil {
		t.Fatal(err)
	}
	s := bg.String(p)
	if want := "O........./........../........../........../....XX..../........../........../........../.........."; s != want {
		t.Errorf("String = %s, want %s", s, want)
	}
	if q, err := bg.Parse(s); err != nil || bg.String(q) != s {
		t.Errorf("Parse(String) = %v, %v", q, err)
	}
	for _, bad := range []struct{ moves, want string }{
		{"4,4 4,4", "occupied"}, {"9,0", "outside"}, {"a,b", "want row,col"},
		{"0,0 1,0 0,1 1,1 0,2 1,2 0,3 1,3 0,4 1,4", "game is over"},
	} {
		if _, err := bg.ParseMoves(bad.moves); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseMoves(%q) = %v, want an error with %q", bad.moves, err, bad.want)
		}
	}
	if _, err := bg.Parse("XX" + strings.Repeat(".", 8) + strings.Repeat("/..........", 8)); !errors.Is(err, mnk.ErrInvalidPosition) {
		t.Errorf("two X and no O: %v, want ErrInvalidPosition", err)
	}
	if _, err := NewBig(20, 15, 5); !errors.Is(err, mnk.ErrBoardSize) {
		t.Errorf("NewBig(20, 15, 5): %v, want ErrBoardSize", err)
	}
	if _, err := NewBig(15, 15, 9); !errors.Is(err, mnk.ErrK) {
		t.Errorf("NewBig(15, 15, 9): %v, want ErrK", err)
	}
}

func TestBigSearchAllocs(t *testing.T) {
	bg, _ := NewBig(15, 15, 5)
	s := NewBigSearcher(bg, 1<<20)
	p, _ := bg.ParseMoves("7,7 7,8 8,8 6,6")
	ctx := context.Background()
	if _, err := s.Search(ctx, p, 3, 0); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(3, func() {
		s.ply, s.onPV[0] = 0, true
		s.search(3, -Mate-1, Mate+1)
	}); n != 0 {
		t.Errorf("search: %v allocations, want 0", n)
	}
}

// BenchmarkBigSearchGomoku searches a 15x15 five-in-a-row middle game to
// depth 4.
func BenchmarkBigSearchGomoku(b *testing.B) {
	bg, _ := NewBig(15, 15, 5)
	p, _ := bg.ParseMoves("7,7 7,8 8,8 6,6 8,7 8,6 6,8 9,9")
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		r, _ := NewBigSearcher(bg, 16<<20).Search(context.Background(), p, 4, 0)
		nodes += r.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

package nineboard

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// position builds a position from stones written 1-based "board:cell".
func position(t *testing.T, v Variant, xs, os []string, side, next string) *Board {
	t.Helper()
	cells := []byte(strings.Repeat(".", 81))
	for p, stones := range [2][]string{xs, os} {
		for _, s := range stones {
			var bd, c int
			if _, err := fmt.Sscanf(s, "%d:%d", &bd, &c); err != nil {
				t.Fatalf("stone %q: %v", s, err)
			}
			cells[(bd-1)*9+c-1] = "xo"[p]
		}
	}
	b, err := Parse(v, string(cells)+" "+side+" "+next)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Tactics positions: each must be solved by the search at every depth from
// the one that sees it, and by a search stopped by a node limit in the
// middle of an iteration (the path a clock takes, on any machine).
func TestTactics(t *testing.T) {
	cases := []struct {
		name   string
		b      *Board
		want   string // the move, or "" when only avoid matters
		avoid  string
		depth  int // shallowest depth that must find it
		forced int // the score if forced (Mate-1 for a win in one), or 0
	}{
		{
			name: "win in 1",
			b:    position(t, FirstTriple, []string{"5:1", "5:2"}, []string{"1:5", "9:5"}, "x", "5"),
			want: "5:3", depth: 1, forced: Mate - 1,
		},
		{
			// O threatens the diagonal of the centre board and every other
			// cell of it sends O to a board where O has two in a row: the
			// block 5:5 is the only move that does not lose at once.
			name: "forced block",
			b: position(t, FirstTriple,
				[]string{"1:1", "1:2", "1:6", "1:7", "1:9", "9:1", "9:2", "9:6", "9:7", "9:9", "2:6", "3:6", "4:6", "6:6"},
				[]string{"5:1", "5:9", "2:1", "2:2", "3:1", "3:2", "4:1", "4:2", "6:1", "6:2", "7:1", "7:2", "8:1", "8:2"},
				"x", "5"),
			want: "5:5", depth: 2,
		},
		{
			// 1:2 makes two in a row (2-5-8) but sends O to board 2, where O
			// completes 2:1-2:2-2:3.
			name:  "do not hand over a win",
			b:     position(t, FirstTriple, []string{"1:5", "9:9"}, []string{"2:1", "2:2"}, "x", "1"),
			avoid: "1:2", depth: 2,
		},
		{
			// 4:9 sends O to board 9, whose one empty cell sends X to board
			// 1, where X completes 1:1-1:2-1:3: a win in 3.
			name: "win in 3",
			b: position(t, FirstTriple,
				[]string{"1:1", "1:2", "9:2", "9:6", "9:7", "9:9", "4:5"},
				[]string{"1:5", "9:3", "9:4", "9:5", "9:8", "8:1", "7:9"},
				"x", "4"),
			want: "4:9", depth: 3, forced: Mate - 3,
		},
		{
			name: "ultimate: win the third board",
			b: position(t, Ultimate,
				[]string{"1:1", "1:2", "1:3", "2:1", "2:2", "2:3", "3:1", "3:2"},
				[]string{"4:1", "4:2", "5:1", "5:2", "6:4", "7:1", "7:2", "8:5"},
				"x", "3"),
			want: "3:3", depth: 1, forced: Mate - 1,
		},
	}
	s := NewSearcher(16)
	for _, c := range cases {
		check := func(how string, info Info) {
			got := info.Move.String()
			if c.want != "" && got != c.want || c.avoid != "" && got == c.avoid {
				t.Errorf("%s, %s: move %s (score %d, depth %d, pv %v), want %q avoid %q", c.name, how, got, info.Score, info.Depth, info.PV, c.want, c.avoid)
			}
			if c.forced != 0 && info.Score != c.forced {
				t.Errorf("%s, %s: score %d, want %d", c.name, how, info.Score, c.forced)
			}
		}
		for d := c.depth; d <= c.depth+4; d++ {
			s.Clear()
			check(fmt.Sprintf("depth %d", d), s.Search(context.Background(), c.b, Limits{Depth: d}))
		}
		s.Clear()
		check("50,000 nodes", s.Search(context.Background(), c.b, Limits{Nodes: 50_000}))
		if c.depth > 1 {
			// One ply short, the search cannot know: the tactics come from
			// searching, not from a rule applied before it.
			info := NewSearcher(0).Search(context.Background(), c.b, Limits{Depth: c.depth - 1})
			if c.forced != 0 && info.Score == c.forced {
				t.Errorf("%s: depth %d already scores %d", c.name, c.depth-1, info.Score)
			}
		}
	}
}

// minimax is plain negamax without pruning, table or ordering, with the
// same leaf evaluation: the value alpha-beta must reproduce exactly.
func minimax(b *Board, depth, ply int) int {
	switch b.Result() {
	case Draw:
		return 0
	case XWin, OWin:
		return -(Mate - ply)
	}
	if depth == 0 {
		return b.Evaluate()
	}
	best := -Infinity
	var buf [81]Move
	for _, m := range b.Moves(buf[:0]) {
		b.Make(m)
		best = max(best, -minimax(b, depth-1, ply+1))
		b.Unmake()
	}
	return best
}

// Alpha-beta with and without the transposition table returns the exact
// minimax value, in both variants, on positions from random games (depths
// 1-3; at 4 to 6 the two searches agree with each other).
func TestSearchMatchesMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	withTT, without := NewSearcher(16), NewSearcher(0)
	var buf [81]Move
	n := 0
	for _, v := range []Variant{FirstTriple, Ultimate} {
		for game := range 12 {
			b := NewBoard(v)
			plies := 2 + rng.IntN(30)
			for b.Result() == Ongoing && b.Ply() < plies {
				ms := b.Moves(buf[:0])
				b.Make(ms[rng.IntN(len(ms))])
			}
			if b.Result() != Ongoing {
				continue
			}
			for depth := 1; depth <= 3; depth++ {
				want := minimax(b, depth, 0)
				withTT.Clear()
				a := withTT.Search(context.Background(), b, Limits{Depth: depth})
				c := without.Search(context.Background(), b, Limits{Depth: depth})
				if a.Score != want || c.Score != want {
					t.Errorf("%s game %d %s depth %d: score %d with table, %d without, minimax %d", v, game, b, depth, a.Score, c.Score, want)
				}
				b.Make(a.Move)
				if got := -minimax(b, depth-1, 1); got != want && !(a.Forced() && depth > Mate-abs(a.Score)) {
					t.Errorf("%s %s depth %d: move %s is worth %d, best %d", v, b, depth, a.Move, got, want)
				}
				b.Unmake()
				n++
			}
			// Deeper, the table against none (plain minimax is too slow).
			for depth := 4; depth <= 6; depth++ {
				withTT.Clear()
				a := withTT.Search(context.Background(), b, Limits{Depth: depth})
				c := without.Search(context.Background(), b, Limits{Depth: depth})
				if a.Score != c.Score {
					t.Errorf("%s game %d %s depth %d: score %d with table, %d without", v, game, b, depth, a.Score, c.Score)
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d positions compared", n)
	}
}

// A node limit stops the search in the middle of an iteration with the
// move of the last complete one, and gives the same result every time.
func TestSearchNodeLimit(t *testing.T) {
	for _, v := range []Variant{FirstTriple, Ultimate} {
		b := NewBoard(v)
		b.Make(NewMove(4, 4))
		s := NewSearcher(18)
		const limit = 100_000
		info := s.Search(context.Background(), b, Limits{Nodes: limit})
		if info.Nodes < limit || info.Depth < 3 || len(info.PV) == 0 || info.PV[0] != info.Move || !b.Legal(info.Move) {
			t.Errorf("%s, %d nodes: %+v; want at least %d nodes, depth >= 3 and a PV starting with a legal move", v, limit, info, limit)
		}
		// The iteration the limit cut short is not reported: the result
		// is that of a search to the depth reached.
		s.Clear()
		full := s.Search(context.Background(), b, Limits{Depth: info.Depth})
		if full.Move != info.Move || full.Score != info.Score {
			t.Errorf("%s: node limit gives %s (score %d) at depth %d; a depth-%d search %s (score %d)", v, info.Move, info.Score, info.Depth, info.Depth, full.Move, full.Score)
		}
		s.Clear()
		again := s.Search(context.Background(), b, Limits{Nodes: limit})
		if again.Move != info.Move || again.Score != info.Score || again.Depth != info.Depth || again.Nodes != info.Nodes {
			t.Errorf("%s: a second search with %d nodes gives %+v, the first %+v", v, limit, again, info)
		}
	}
}

// Iterative deepening under a clock stops, returns a legal move and
// reports its work. The time it takes is logged, not judged (a loaded
// machine stretches it), but it must use its time rather than stop at
// once: it stops iterating only after half of it.
func TestSearchClock(t *testing.T) {
	s := NewSearcher(18)
	b := NewBoard(Ultimate)
	b.Make(NewMove(4, 4))
	const budget = 50 * time.Millisecond
	done := make(chan Info, 1)
	go func() { done <- s.Search(context.Background(), b, Limits{Time: budget}) }()
	var info Info
	select {
	case info = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("a %v search still running after a minute", budget)
	}
	t.Logf("%v search: depth %d, %d nodes, %v", budget, info.Depth, info.Nodes, info.Elapsed)
	if info.Depth < 1 || info.Nodes == 0 || len(info.PV) == 0 || info.PV[0] != info.Move || !b.Legal(info.Move) {
		t.Errorf("info %+v: want a depth, nodes, a PV starting with a legal move", info)
	}
	if info.Elapsed < budget/2 {
		t.Errorf("a %v search returned after %v, want at least %v", budget, info.Elapsed, budget/2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	info = s.Search(ctx, b, Limits{})
	if !b.Legal(info.Move) || info.Depth > 2 {
		t.Errorf("cancelled search: %+v, want a legal move from depth 1", info)
	}
}

func ExampleSearcher_Search() {
	// X to move in the centre board, where it has cells 1 and 2.
	b, err := Parse(FirstTriple, "........./........./........./........./xx......./........./........./........./....o...o x 5")
	if err != nil {
		fmt.Println(err)
		return
	}
	info := NewSearcher(16).Search(context.Background(), b, Limits{Depth: 4})
	fmt.Println(info.Move, info.Score == Mate-1, info.Depth)
	// Output: 5:3 true 1
}

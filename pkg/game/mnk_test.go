package game

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/player"
)

// newMNK returns the game of rows x cols, k in a row, after moves (cells,
// X first).
func newMNK(t testing.TB, rows, cols, k int, moves ...int) *MNK {
	t.Helper()
	g, err := NewMNK(rows, cols, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		g.Play(c)
	}
	return g
}

// show is the board as rows of X, O and ., joined by /.
func show(g *MNK) string {
	var b strings.Builder
	for i, v := range g.Board() {
		if i > 0 && i%g.Cols() == 0 {
			b.WriteByte('/')
		}
		b.WriteByte(".XO"[v])
	}
	return b.String()
}

var (
	perfect = MNKSeat{Spec: player.Spec{Kind: player.Perfect}}
	random  = MNKSeat{Spec: player.Spec{Kind: player.Random}}
)

// A move on a stone, off the board, or after the end is refused for each
// of its reasons, and refusing changes nothing.
func TestMNKRefuse(t *testing.T) {
	g := newMNK(t, 3, 4, 3, 5) // X on 1,1
	for _, c := range []struct {
		row, col int
		want     Reasons
	}{
		{1, 1, Taken},
		{0, 0, 0},
		{2, 3, 0},
		{3, 0, OffBoard},
		{0, 4, OffBoard},
		{-1, 2, OffBoard},
	} {
		if got := g.Refuse(c.row, c.col); got != c.want {
			t.Errorf("%d,%d after 1,1: reasons %b, want %b", c.row, c.col, got, c.want)
		}
	}
	if got := show(g); got != "..../.X../...." || !slices.Equal(g.Moves(), []int{5}) || g.XToMove() {
		t.Errorf("after refusals: %s, moves %v, X to move %v; want X on 1,1 only and O to move", got, g.Moves(), g.XToMove())
	}
	// X 0,0 1,1 2,2 wins: then every move is refused as over.
	g = newMNK(t, 3, 3, 3, 0, 1, 4, 2, 8)
	for _, rc := range [][2]int{{1, 0}, {0, 0}, {3, 3}} {
		if got := g.Refuse(rc[0], rc[1]); got != Over {
			t.Errorf("%v after X's win: %b, want Over", rc, got)
		}
	}
}

// A win is detected on the move that completes a line, with the cells of
// every line through it; a full board without a line is a draw.
func TestMNKResult(t *testing.T) {
	for _, c := range []struct {
		rows, cols, k int
		moves         []int
		result        mnk.Result
		line          []int
	}{
		{3, 3, 3, []int{0, 3, 1, 4, 2}, mnk.XWin, []int{0, 1, 2}},
		{3, 3, 3, []int{2, 0, 4, 1, 6}, mnk.XWin, []int{2, 4, 6}},
		{3, 3, 3, []int{0, 3, 1, 4, 5, 6, 8, 7, 2}, mnk.XWin, []int{0, 1, 2, 5, 8}},
		{3, 3, 3, []int{4, 0, 8, 2, 1, 7, 5, 3, 6}, mnk.Draw, nil},
		{3, 3, 3, []int{0, 4, 1, 2, 3, 6}, mnk.OWin, []int{2, 4, 6}},
		{1, 1, 1, []int{0}, mnk.XWin, []int{0}},
		// Big boards: six in a row where five win, on 1x15 and on 15x15.
		{1, 15, 5, []int{0, 14, 1, 13, 2, 12, 4, 11, 5, 8, 3}, mnk.XWin, []int{0, 1, 2, 3, 4, 5}},
		{15, 15, 5, []int{0, 224, 16, 223, 32, 222, 48, 221, 64}, mnk.XWin, []int{0, 16, 32, 48, 64}},
	} {
		g := newMNK(t, c.rows, c.cols, c.k)
		for i, cell := range c.moves {
			if g.Result() != mnk.Ongoing {
				t.Fatalf("%dx%d %v: the game ended before move %d", c.rows, c.cols, c.moves, i)
			}
			g.Play(cell)
		}
		if g.Result() != c.result || !slices.Equal(g.Line(), c.line) {
			t.Errorf("%dx%d k=%d %v: %v, line %v; want %v, line %v", c.rows, c.cols, c.k, c.moves, g.Result(), g.Line(), c.result, c.line)
		}
	}
}

// TakeBack restores the position, the side to move and the result, on
// both kinds of board; Reset empties the board.
func TestMNKTakeBack(t *testing.T) {
	for _, size := range [][3]int{{3, 3, 3}, {9, 9, 5}} {
		g := newMNK(t, size[0], size[1], size[2])
		won := []int{0, size[1], 1, size[1] + 1, 2}
		if size[2] == 5 {
			won = []int{0, 9, 1, 10, 2, 11, 3, 12, 4}
		}
		var boards []string
		for _, c := range won {
			boards = append(boards, show(g))
			g.Play(c)
		}
		if g.Result() != mnk.XWin {
			t.Fatalf("%v: %v after %v, want X's win", size, g.Result(), won)
		}
		for i := len(won) - 1; i >= 0; i-- {
			g.TakeBack()
			if got := show(g); got != boards[i] || g.Result() != mnk.Ongoing || g.Line() != nil || g.XToMove() != (i%2 == 0) || len(g.Moves()) != i {
				t.Fatalf("%v: taken back to %d moves: %s, %v, line %v; want %s going on", size, i, got, g.Result(), g.Line(), boards[i])
			}
			if g.small != nil {
				if p, _ := g.small.ParseMoves(movesText(g)); p != g.Position() {
					t.Fatalf("%v: position %v after take-back, the moves give %v", size, g.Position(), p)
				}
			}
		}
		g.Play(4)
		g.Reset()
		if strings.Trim(show(g), "./") != "" || len(g.Moves()) != 0 || g.Position() != (mnk.Position{}) {
			t.Errorf("%v: after Reset: %s, moves %v", size, show(g), g.Moves())
		}
	}
}

// movesText writes g's moves as mnk.Game.ParseMoves reads them.
func movesText(g *MNK) string {
	var s []string
	for _, c := range g.Moves() {
		s = append(s, fmt.Sprintf("%d,%d", c/g.Cols(), c%g.Cols()))
	}
	return strings.Join(s, " ")
}

// The perfect player's replies never lose on 3x3: against every sequence
// of the other side's moves, in both seats, every game is a draw or a win
// for it (the empty board is a draw with best play).
func TestMNKPerfectReplyNeverLoses(t *testing.T) {
	ctx := context.Background()
	for seat := range 2 {
		g := newMNK(t, 3, 3, 3)
		seen := map[string]bool{}
		var walk func()
		walk = func() {
			if seen[show(g)] {
				return
			}
			seen[show(g)] = true
			switch g.Result() {
			case mnk.Ongoing:
			case mnk.XWin, mnk.OWin:
				if (g.Result() == mnk.XWin) != (seat == 0) {
					t.Fatalf("perfect as %c loses: %s after %v", "XO"[seat], show(g), g.Moves())
				}
				return
			default:
				return
			}
			if g.XToMove() == (seat == 0) {
				cell, err := g.Reply(ctx, perfect, nil)
				if err != nil {
					t.Fatal(err)
				}
				g.Play(cell)
				walk()
				g.TakeBack()
				return
			}
			for cell := range 9 {
				if g.Refuse(cell/3, cell%3) == 0 {
					g.Play(cell)
					walk()
					g.TakeBack()
				}
			}
		}
		walk()
		if len(seen) < 100 {
			t.Errorf("perfect as %c: %d positions visited, want every answer to its moves", "XO"[seat], len(seen))
		}
	}
}

// firstEmpty plays the first empty cell in mnk.Cell order; bad plays cell
// 0 whatever the board.
type firstEmpty struct{ g *mnk.Game }

func (f firstEmpty) Move(_ context.Context, p mnk.Position, _ *rand.Rand) (player.Choice, error) {
	e := f.g.Empty(p)
	for c := range 64 {
		if e>>c&1 != 0 {
			return player.Choice{Cell: c}, nil
		}
	}
	return player.Choice{Cell: -1}, nil
}

type bad struct{}

func (bad) Move(context.Context, mnk.Position, *rand.Rand) (player.Choice, error) {
	return player.Choice{Cell: 0}, nil
}

// A seat's Player replies in its own numbering (mnk.Cell), which Reply
// turns into the game's; a player that chooses a taken cell is an error.
// Without a Player, Reply makes one of the seat's Spec, or on a big board
// plays the Spec itself.
func TestMNKReply(t *testing.T) {
	ctx := context.Background()
	g := newMNK(t, 3, 4, 3, 0, 1, 2)
	seat := MNKSeat{Spec: player.Spec{Kind: player.Engine, Depth: 1}, Player: firstEmpty{mnk.MustNew(3, 4, 3)}}
	if cell, err := g.Reply(ctx, seat, nil); err != nil || cell != 3 {
		t.Errorf("first empty on 3x4 after 0,0 0,1 0,2: %d, %v; want 3 (0,3)", cell, err)
	}
	_, err := g.Reply(ctx, MNKSeat{Spec: player.Spec{Kind: player.Engine, Depth: 1}, Player: bad{}}, nil)
	if err == nil || !strings.Contains(err.Error(), "player engine:depth=1: cell 0 is not an empty cell of the board") {
		t.Errorf("a player choosing a taken cell: %v, want an error", err)
	}
	// X 0,0 1,1 and O 0,1 on 3x3: perfect O must block 2,2.
	g = newMNK(t, 3, 3, 3, 0, 1, 4)
	if cell, err := g.Reply(ctx, perfect, nil); err != nil || cell != 8 {
		t.Errorf("perfect O against X's diagonal: %d, %v; want 8 (2,2)", cell, err)
	}
	if _, err := g.Reply(ctx, MNKSeat{Spec: player.Spec{Kind: player.Human}}, nil); err == nil {
		t.Error("a human seat's reply: no error, want one")
	}

	// Gomoku: random draws an empty cell, the engine blocks four in a row
	// (X 7,3..7,6 open at 7,2 and 7,7: it takes one of them).
	big := newMNK(t, 15, 15, 5, 7*15+3, 0, 7*15+4, 14, 7*15+5, 210)
	for i := range 20 {
		cell, err := big.Reply(ctx, random, rand.New(rand.NewPCG(uint64(i), 0)))
		if err != nil || big.Refuse(cell/15, cell%15) != 0 {
			t.Fatalf("random on 15x15: %d, %v; want an empty cell", cell, err)
		}
	}
	big.Play(7*15 + 6)
	big.Play(224)
	cell, err := big.Reply(ctx, MNKSeat{Spec: player.Spec{Kind: player.Engine, Depth: 2}}, nil)
	if err != nil || cell != 7*15+2 && cell != 7*15+7 {
		t.Errorf("engine:depth=2 as X with four in a row: %d, %v; want 7,2 or 7,7 (the win)", cell, err)
	}
	if _, err := big.Reply(ctx, perfect, nil); err == nil {
		t.Error("perfect on 15x15: no error, want one")
	}
}

// Analyse is perfect play's line on small boards and the engine's search
// on the others.
func TestMNKAnalyse(t *testing.T) {
	ctx := context.Background()
	a, err := newMNK(t, 3, 3, 3).Analyse(ctx, time.Second)
	if err != nil || a.Engine.Kind != player.Perfect || !a.Exact || !a.Known || a.Value != mnk.Drawn || len(a.PV) != 9 {
		t.Errorf("the empty 3x3 board: %+v, %v; want perfect, an exact draw, a line of 9 moves", a, err)
	}
	// X in a corner, O on an edge next to it: X wins in 5 plies.
	a, _ = newMNK(t, 3, 3, 3, 0, 1).Analyse(ctx, time.Second)
	if a.Value != mnk.Win || a.Plies != 5 || !a.Exact {
		t.Errorf("after 0,0 0,1: %+v; want X to win in 5 plies", a)
	}
	// 5x5, k 4: too big for perfect play; the engine for the time given.
	g := newMNK(t, 5, 5, 4, 12)
	a, err = g.Analyse(ctx, 20*time.Millisecond)
	if err != nil || a.Engine != (player.Spec{Kind: player.Engine, Time: 20 * time.Millisecond}) || a.Depth < 1 || len(a.PV) == 0 {
		t.Fatalf("5x5: %+v, %v; want the engine's search", a, err)
	}
	if r, c := a.PV[0]/5, a.PV[0]%5; g.Refuse(r, c) != 0 {
		t.Errorf("5x5: best move %d,%d is not playable", r, c)
	}
	// Gomoku: X with four open is a win within the plies searched.
	big := newMNK(t, 15, 15, 5, 7*15+3, 0, 7*15+4, 14, 7*15+5, 210, 7*15+6, 224)
	a, err = big.Analyse(ctx, 50*time.Millisecond)
	if err != nil || a.Value != mnk.Win || a.Plies != 1 || !a.Exact || a.NearOnly {
		t.Errorf("gomoku, X with four open: %+v, %v; want a win in 1 ply", a, err)
	}
}

// A clone shares nothing that changes: a reply searched on it while the
// game is read, and the clone played on, leave the game as it was (run
// with -race).
func TestMNKClone(t *testing.T) {
	g := newMNK(t, 4, 4, 4, 5)
	c := g.Clone()
	var wg sync.WaitGroup
	wg.Go(func() {
		cell, err := c.Reply(context.Background(), MNKSeat{Spec: player.Spec{Kind: player.Engine, Depth: 3}}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		c.Play(cell)
		c.TakeBack()
		c.TakeBack()
	})
	for range 100 {
		if g.Refuse(1, 1) != Taken || len(g.Moves()) != 1 {
			t.Error("the game changed under its clone")
			break
		}
	}
	wg.Wait()
	if show(g) != "..../.X../..../...." || show(c) != "..../..../..../...." {
		t.Errorf("game %s, clone %s; want X on 1,1 in the game only", show(g), show(c))
	}
}

// A record reads back as it was written, and plays its moves checking
// each: a game can be kept and taken up again.
func TestMNKRecord(t *testing.T) {
	g, err := NewMNK(3, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{4, 0, 8} {
		g.Play(c)
	}
	text := g.Record().String()
	if text != "3x3 k3: 1,1 0,0 2,2" {
		t.Fatalf("record %q", text)
	}
	r, err := ParseMNKRecord(text)
	if err != nil {
		t.Fatal(err)
	}
	again, err := NewMNKFromRecord(r)
	if err != nil || !slices.Equal(again.Moves(), g.Moves()) || again.Record().String() != text {
		t.Fatalf("played back: %v, %v", again, err)
	}
	if r, err := ParseMNKRecord(" 15x15 k 5 : "); err != nil || r.Rows != 15 || r.K != 5 || len(r.Moves) != 0 {
		t.Errorf("an empty game: %+v, %v", r, err)
	}
	for _, c := range []struct{ text, want string }{
		{"3x3: 1,1", "want RxC kK: moves"},
		{"3x3 k3 1,1", "want RxC kK: moves"},
		{"3x3 k3: 1;1", `move 1 "1;1": want row,col from 0`},
		{"3x3 k3: 1,1 3,0", "move 2 3,0: off the 3x3 board"},
		{"3x3 k3: 1,1 1,1", "move 2 1,1: the cell is taken"},
		{"3x3 k3: 0,0 1,0 0,1 1,1 0,2 2,2", "move 6 2,2: the game was over"},
		{"3x3 k4: 1,1", "k"},
	} {
		r, err := ParseMNKRecord(c.text)
		if err == nil {
			_, err = NewMNKFromRecord(r)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.text, err, c.want)
		}
	}
	// A failed PlayRecord leaves the game as it was.
	if err := g.PlayRecord([][2]int{{0, 1}, {0, 1}}); err == nil || len(g.Moves()) != 3 {
		t.Errorf("PlayRecord of a taken cell: %v, %d moves; want an error and 3 moves", err, len(g.Moves()))
	}
}

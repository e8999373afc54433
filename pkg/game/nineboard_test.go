package game

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/player"
)

// mv is board:cell, 1-9 each, as the faces write moves.
func mv(board, cell int) nineboard.Move { return nineboard.NewMove(board-1, cell-1) }

// newNineboard returns the game of v after moves, none the referee's.
func newNineboard(v nineboard.Variant, moves ...nineboard.Move) *Nineboard {
	g := NewNineboard(v)
	for _, m := range moves {
		g.Play(m)
	}
	return g
}

// The referee opens first-triple games as matches do, from the same
// generator; its move cannot be taken back. Ultimate has no opening.
func TestNineboardOpen(t *testing.T) {
	g := NewNineboard(nineboard.FirstTriple)
	m := g.Open(rand.New(rand.NewPCG(1, 0)))
	if want := nineboard.RandomOpening(rand.New(rand.NewPCG(1, 0))); m != want || !slices.Equal(g.Moves(), []nineboard.Move{want}) {
		t.Errorf("opening %v, moves %v; want the referee's %v", m, g.Moves(), want)
	}
	if g.RefereeMoves() != 1 || g.Undoable() != 0 || g.ToMove() != nineboard.O {
		t.Errorf("after the opening: %d referee moves, %d undoable, %v to move; want 1, 0, o", g.RefereeMoves(), g.Undoable(), g.ToMove())
	}
	if m := NewNineboard(nineboard.Ultimate).Open(rand.New(rand.NewPCG(1, 0))); m != nineboard.NoMove {
		t.Errorf("ultimate opens %v, want no move", m)
	}
}

// Each reason a move is refused, alone and together; refusing changes
// nothing.
func TestNineboardRefuse(t *testing.T) {
	// X 6:1, O 1:7: X is sent to board 7.
	g := newNineboard(nineboard.FirstTriple, mv(6, 1), mv(1, 7))
	for _, c := range []struct {
		m    nineboard.Move
		want Reasons
	}{
		{mv(7, 5), 0},
		{mv(5, 5), WrongBoard},
		{mv(1, 7), Taken | WrongBoard},
		{nineboard.NoMove, OffBoard},
	} {
		if got := g.Refuse(c.m); got != c.want {
			t.Errorf("%v: reasons %b, want %b", c.m, got, c.want)
		}
	}
	if !slices.Equal(g.Playable(), []int{6}) || len(g.Moves()) != 2 {
		t.Errorf("after refusals: playable %v, moves %v; want board 7 and two moves", g.Playable(), g.Moves())
	}
	// Ultimate: X has won board 1, and O may play anywhere open.
	b, err := nineboard.Parse(nineboard.Ultimate, "xxxoo...."+strings.Repeat("/.........", 8)+" o any")
	if err != nil {
		t.Fatal(err)
	}
	g = NineboardAt(b)
	for _, c := range []struct {
		m    nineboard.Move
		want Reasons
	}{
		{mv(1, 9), Closed},
		{mv(1, 4), Taken | Closed},
		{mv(2, 1), 0},
	} {
		if got := g.Refuse(c.m); got != c.want {
			t.Errorf("ultimate %v: reasons %b, want %b", c.m, got, c.want)
		}
	}
	if len(g.Playable()) != 8 || g.Undoable() != 0 {
		t.Errorf("board 1 won: playable %v, undoable %d; want the 8 others and nothing to take back", g.Playable(), g.Undoable())
	}
}

// The results and why: three in a row in a board, three boards in a row,
// a player sent to a full board, with the winning cells or boards.
func TestNineboardResults(t *testing.T) {
	g := newNineboard(nineboard.FirstTriple, mv(5, 1), mv(1, 5), mv(5, 5), mv(5, 2), mv(2, 5), mv(5, 3), mv(3, 9), mv(9, 5), mv(5, 9))
	if g.Result() != nineboard.XWin || g.Why() != "three in a row in board 5" || !slices.Equal(g.WinningLine(), []nineboard.Move{mv(5, 1), mv(5, 5), mv(5, 9)}) || g.WinningBoards() != nil {
		t.Errorf("first-triple: %v (%s), line %v, boards %v; want X's 5:1 5:5 5:9", g.Result(), g.Why(), g.WinningLine(), g.WinningBoards())
	}
	if g.Refuse(mv(5, 4)) != Over || g.Playable() != nil {
		t.Errorf("after the end: reasons %b, playable %v; want Over and no board", g.Refuse(mv(5, 4)), g.Playable())
	}

	// Ultimate: X has boards 1 and 2 and wins board 3 with 3:3.
	b, err := nineboard.Parse(nineboard.Ultimate, "xxxoo..../xxxoo..../xx.oo...."+strings.Repeat("/.........", 5)+"/oo....... x 3")
	if err != nil {
		t.Fatal(err)
	}
	g = NineboardAt(b)
	g.Play(mv(3, 3))
	if g.Result() != nineboard.XWin || g.Why() != "three boards in a row" || !slices.Equal(g.WinningBoards(), []int{0, 1, 2}) || g.WinningLine() != nil {
		t.Errorf("ultimate: %v (%s), boards %v, line %v; want X's boards 1 2 3", g.Result(), g.Why(), g.WinningBoards(), g.WinningLine())
	}

	// First-triple: board 1 is full; O plays in board 2 and sends X there.
	b, err = nineboard.Parse(nineboard.FirstTriple, "xoxxoooxx"+strings.Repeat("/.........", 8)+" o 2")
	if err != nil {
		t.Fatal(err)
	}
	g = NineboardAt(b)
	g.Play(mv(2, 1))
	if g.Result() != nineboard.Draw || g.Why() != "X is sent to board 1, which is full" || g.WinningLine() != nil {
		t.Errorf("sent to a full board: %v (%s); want a draw with X sent to board 1", g.Result(), g.Why())
	}

	if got := linesThrough(0777, 4); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("lines through the centre of a full board: %v, want every cell", got)
	}
	if got := linesThrough(0124, 2); !slices.Equal(got, []int{2, 4, 6}) {
		t.Errorf("lines through 2 of the anti-diagonal: %v, want 2 4 6", got)
	}
}

// TakeBack restores the board and the side to move, down to the referee's
// move; Reset takes that back too.
func TestNineboardTakeBack(t *testing.T) {
	g := NewNineboard(nineboard.FirstTriple)
	g.Open(rand.New(rand.NewPCG(1, 0)))
	opened := g.Board().String()
	rng := rand.New(rand.NewPCG(2, 0))
	var boards []string
	for g.Result() == nineboard.Ongoing {
		boards = append(boards, g.Board().String())
		g.Play(g.Board().RandomMove(rng))
	}
	for i := len(boards) - 1; i >= 0; i-- {
		g.TakeBack()
		if got := g.Board().String(); got != boards[i] || g.Result() != nineboard.Ongoing || g.Undoable() != i {
			t.Fatalf("taken back to %d moves: %s, %v; want %s going on", i, got, g.Result(), boards[i])
		}
	}
	if g.Board().String() != opened || g.Undoable() != 0 {
		t.Errorf("every move taken back: %s, want the referee's opening %s", g.Board().String(), opened)
	}
	g.Reset()
	if g.Board().String() != nineboard.NewBoard(nineboard.FirstTriple).String() || len(g.Moves()) != 0 || g.RefereeMoves() != 0 {
		t.Errorf("after Reset: %s, moves %v", g.Board().String(), g.Moves())
	}
}

// Reply is the seat's Player's move, or that of a player made for it; an
// engine finds the win in one; a seat no program plays is an error.
func TestNineboardReply(t *testing.T) {
	ctx := context.Background()
	// The winning game of TestNineboardResults but its last move: X, sent
	// to board 5, completes 5:1 5:5 5:9.
	g := newNineboard(nineboard.FirstTriple, mv(5, 1), mv(1, 5), mv(5, 5), mv(5, 2), mv(2, 5), mv(5, 3), mv(3, 9), mv(9, 5))
	info, err := g.Reply(ctx, NineboardSeat{Spec: player.Spec{Kind: player.Engine, Depth: 2}}, nil)
	if err != nil || info.Move != mv(5, 9) || !info.Forced() {
		t.Errorf("engine:depth=2 with a win in one: %v (score %d), %v; want 5:9", info.Move, info.Score, err)
	}
	random, _ := player.NewNineboard(player.Spec{Kind: player.Random})
	for i := range 20 {
		info, err := g.Reply(ctx, NineboardSeat{Spec: random.Spec(), Player: random}, rand.New(rand.NewPCG(uint64(i), 0)))
		if err != nil || g.Refuse(info.Move) != 0 {
			t.Fatalf("random: %v, %v; want a legal move", info.Move, err)
		}
	}
	if _, err := g.Reply(ctx, NineboardSeat{Spec: player.Spec{Kind: player.Human}}, nil); err == nil {
		t.Error("a human seat's reply: no error, want one")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.Reply(cancelled, NineboardSeat{Spec: player.Spec{Kind: player.Engine, Depth: 8}}, nil); err == nil {
		t.Error("a cancelled search: no error, want ctx's")
	}
}

// A clone shares nothing that changes (run with -race).
func TestNineboardClone(t *testing.T) {
	g := newNineboard(nineboard.Ultimate, mv(5, 5))
	c := g.Clone()
	var wg sync.WaitGroup
	wg.Go(func() {
		info, err := c.Reply(context.Background(), NineboardSeat{Spec: player.Spec{Kind: player.Engine, Depth: 4}}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		c.Play(info.Move)
		c.TakeBack()
		c.TakeBack()
	})
	for range 100 {
		if g.Refuse(mv(5, 5)) != Taken || len(g.Moves()) != 1 {
			t.Error("the game changed under its clone")
			break
		}
	}
	wg.Wait()
	if len(g.Moves()) != 1 || len(c.Moves()) != 0 || g.ToMove() != nineboard.O {
		t.Errorf("game %v, clone %v; want 5:5 in the game only", g.Moves(), c.Moves())
	}
}

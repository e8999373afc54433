package terminal

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/game"
	"github.com/woprlabs/wopr/pkg/player"
)

var (
	human      = player.Spec{Kind: player.Human}
	randomSeat = player.Spec{Kind: player.Random}
)

func engineSeat(depth int) player.Spec {
	return player.Spec{Kind: player.Engine, Depth: depth}
}

func playNineboard(t *testing.T, n Nineboard, in string, o Options) (string, Tally, error) {
	t.Helper()
	var out strings.Builder
	o.In, o.Out = strings.NewReader(in), &out
	if o.Games == 0 {
		o.Games = 1
	}
	tally, err := PlayNineboard(context.Background(), n, o)
	return out.String(), tally, err
}

// Seed 1's first-triple game: the referee opens for X at 6:1, random O
// replies 1:7, and X (the person) is sent to board 7.
const seed1 = "the referee makes X's first move: 6:1\n"

// Moves are typed as board:cell, board,cell or a lone cell of the board to
// play in; anything else is refused with the reason, and changes nothing.
func TestNineboardRefusedMovesChangeNothing(t *testing.T) {
	n := Nineboard{Variant: nineboard.FirstTriple, X: human, O: randomSeat}
	base, _, _ := playNineboard(t, n, "7:5\nq\n", Options{Seed: 1})
	if !strings.Contains(base, seed1) || !strings.Contains(base, "O (random) plays 1:7\n") {
		t.Fatalf("seed 1 no longer opens 6:1 1:7:\n%s", base)
	}
	after := func(out string) string { return out[strings.Index(out, "X plays 7:5"):] }
	for _, c := range []struct{ line, why string }{
		{"5:5", "refused: wrong board: 5:5: play in board 7"},
		{"1:7", "refused: occupied: 1:7"},
		{"0:1", "refused: off the board: 0:1: boards and cells are 1 to 9"},
		{"7:10", "refused: off the board: 7:10"},
		{"10", "refused: off the board: 10: cells are 1 to 9"},
		{"0", "refused: off the board: 0: cells are 1 to 9"},
		{"7;5", `refused: not a move: "7;5": want board:cell, 1-9 each`},
		{"seven", `refused: not a move: "seven"`},
		{"7:5:1", `refused: not a move: "7:5:1"`},
	} {
		out, _, _ := playNineboard(t, n, c.line+"\n7:5\nq\n", Options{Seed: 1})
		if !strings.Contains(out, c.why) {
			t.Errorf("%q: no %q in\n%s", c.line, c.why, out)
		}
		if !strings.Contains(out, "X plays 7:5") || after(out) != after(base) {
			t.Errorf("%q changed the game:\n%s", c.line, out)
		}
	}
	for _, line := range []string{"7,5", "5", " 7 : 5 "} {
		out, _, _ := playNineboard(t, n, line+"\nq\n", Options{Seed: 1})
		if !strings.Contains(out, "X plays 7:5") || after(out) != after(base) {
			t.Errorf("%q is not 7:5:\n%s", line, out)
		}
	}
}

// The referee's opening cannot be taken back; u takes back X's move and
// O's reply.
func TestNineboardTakeBack(t *testing.T) {
	n := Nineboard{Variant: nineboard.FirstTriple, X: human, O: randomSeat}
	out, _, _ := playNineboard(t, n, "u\n7:5\nu\nq\n", Options{Seed: 1})
	if !strings.Contains(out, "refused: nothing to take back") || !strings.Contains(out, "took back two moves") {
		t.Fatalf("want a refusal, then a take-back:\n%s", out)
	}
	// After the take-back, X is sent to board 7 again, with 1:7 marked.
	back := out[strings.Index(out, "took back two moves"):]
	if !strings.Contains(back, ">board 7<") || !strings.Contains(back, "  [O] .  .  |") {
		t.Errorf("after u: want X sent to board 7 and O's 1:7 marked:\n%s", back)
	}
}

// h asks the engine; its move is legal and is not played.
func TestNineboardHint(t *testing.T) {
	n := Nineboard{Variant: nineboard.FirstTriple, X: human, O: randomSeat}
	out, _, _ := playNineboard(t, n, "h\nq\n", Options{Seed: 1})
	i := strings.Index(out, "hint: 7:")
	if i < 0 || !strings.Contains(out[i:], "(engine, depth ") || strings.Contains(out, "X plays") {
		t.Errorf("want a hint in board 7 from the engine, and no move:\n%s", out)
	}
}

// Two programs play the match's games: the referee's opening and the
// random moves drawn from (seed, i), the engine's table cleared before
// each game. The match itself is compared in test/ through its digest.
func TestNineboardSeriesReproducible(t *testing.T) {
	for _, v := range []nineboard.Variant{nineboard.FirstTriple, nineboard.Ultimate} {
		n := Nineboard{Variant: v, X: engineSeat(2), O: randomSeat}
		out, tally, err := playNineboard(t, n, "", Options{Games: 6, Seed: 3})
		if err != nil || tally.Games() != 6 || len(records(out)) != 6 {
			t.Fatalf("%v: tally %+v, err %v, %d games recorded; want 6", v, tally, err, len(records(out)))
		}
		again, _, _ := playNineboard(t, n, "", Options{Games: 6, Seed: 3})
		if again != out {
			t.Errorf("%v: the same seed played other games", v)
		}
		for i, r := range records(out) {
			replay(t, v, r, i)
		}
	}
}

// replay checks that a recorded game is legal and over; a first-triple
// game opens with the referee's move for seed 3, game i.
func replay(t *testing.T, v nineboard.Variant, rec string, i int) {
	t.Helper()
	b := nineboard.NewBoard(v)
	for j, s := range strings.Fields(rec) {
		m, err := parseMove(s)
		if err != nil || !b.Legal(m) {
			t.Fatalf("%v game %d move %d %q: illegal (%v)", v, i, j+1, s, err)
		}
		if j == 0 && v == nineboard.FirstTriple {
			if want := nineboard.RandomOpening(rand.New(rand.NewPCG(3, uint64(i)))); m != want {
				t.Errorf("game %d opens %v, want the referee's %v", i, m, want)
			}
		}
		b.Make(m)
	}
	if b.Result() == nineboard.Ongoing {
		t.Errorf("%v game %d: %q is not over", v, i, rec)
	}
}

// The drawing marks the boards to play in (plain text: >board N< and their
// cells' numbers) and, in ultimate, the boards won.
func TestDrawNineboard(t *testing.T) {
	g := &nineboardGame{Nineboard: Nineboard{Variant: nineboard.Ultimate}, s: game.NewNineboard(nineboard.Ultimate)}
	var b strings.Builder
	g.draw(&output{w: &b})
	if n := strings.Count(b.String(), ">board "); n != 9 {
		t.Errorf("empty ultimate board: %d boards marked, want 9:\n%s", n, b.String())
	}
	rng := rand.New(rand.NewPCG(5, 0))
	for g.s.Board().Won(nineboard.X)|g.s.Board().Won(nineboard.O) == 0 || g.s.Board().Next() != nineboard.AnyBoard {
		if g.s.Result() != nineboard.Ongoing {
			t.Fatal("seed 5 played to the end without a won board and a free move; choose another")
		}
		g.play(int(g.s.Board().RandomMove(rng)))
	}
	b.Reset()
	g.draw(&output{w: &b})
	s := b.String()
	for bd := range 9 {
		label := ""
		switch {
		case g.s.Board().Won(nineboard.X)>>bd&1 != 0:
			label = "board " + string(rune('1'+bd)) + ":X"
		case g.s.Board().Won(nineboard.O)>>bd&1 != 0:
			label = "board " + string(rune('1'+bd)) + ":O"
		default:
			label = ">board " + string(rune('1'+bd)) + "<" // any open board may be played
		}
		if !strings.Contains(s, label) {
			t.Errorf("no %q in\n%s", label, s)
		}
	}
	if last := g.s.Board().LastMove(); !strings.Contains(s, "[") || strings.Count(s, "[") != 1 {
		t.Errorf("last move %v: want one bracketed cell in\n%s", last, s)
	}
	if _, err := g.parse("5"); err == nil || !strings.Contains(err.Error(), "any board may be played") {
		t.Errorf("a lone cell with a free choice of board: %v, want a refusal", err)
	}
	// Every line of the grid is as wide as the separators, or shorter
	// only by trailing blanks.
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if len(l) > len("  ----------+-----------+----------") {
			t.Errorf("line %q is wider than the grid", l)
		}
	}
}

// A won first-triple game says where the three in a row is; a draw says
// who was sent to a full board.
func TestNineboardResults(t *testing.T) {
	out, tally, _ := playNineboard(t, Nineboard{Variant: nineboard.FirstTriple, X: randomSeat, O: randomSeat}, "", Options{Games: 30, Seed: 1})
	if tally.Games() != 30 || tally.XWins == 0 {
		t.Fatalf("tally %+v, want 30 games and some won by X", tally)
	}
	if n := strings.Count(out, "X wins: three in a row in board "); n != tally.XWins {
		t.Errorf("%d wins of X with a reason, want %d", n, tally.XWins)
	}
	// Random players are hardly ever sent to a full board: the draw is
	// set up. Board 1 is full, O is to play in board 2 and sends X to 1.
	b, err := nineboard.Parse(nineboard.FirstTriple, "xoxxoooxx"+strings.Repeat("/.........", 8)+" o 2")
	if err != nil {
		t.Fatal(err)
	}
	g := &nineboardGame{Nineboard: Nineboard{Variant: nineboard.FirstTriple}, s: game.NineboardAt(b)}
	g.play(int(nineboard.NewMove(1, 0)))
	if res, why := g.result(); res != drawn || why != "X is sent to board 1, which is full" {
		t.Errorf("got %v %q, want a draw with X sent to the full board 1", res, why)
	}
}

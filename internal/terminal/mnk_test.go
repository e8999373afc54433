package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/player"
)

// firstEmpty is a program that plays the first empty cell, row-major: an
// opponent whose replies a test can foresee.
type firstEmpty struct{ g *mnk.Game }

func (f firstEmpty) Move(_ context.Context, p mnk.Position, _ *rand.Rand) (player.Choice, error) {
	return player.Choice{Cell: bits.TrailingZeros64(f.g.Empty(p))}, nil
}

// fixedHint suggests the same choice in every position, and counts the
// times it was asked.
type fixedHint struct {
	c     player.Choice
	asked *int
}

func (h fixedHint) Move(context.Context, mnk.Position, *rand.Rand) (player.Choice, error) {
	*h.asked++
	return h.c, nil
}

var ttt = mnk.MustNew(3, 3, 3)

// humanAgainstFirstEmpty is X typing against firstEmpty on 3x3.
func humanAgainstFirstEmpty() MNK {
	return MNK{
		Game: ttt,
		X:    MNKSeat{Spec: player.Spec{Kind: player.Human}},
		O:    MNKSeat{Spec: player.Spec{Kind: player.Perfect}, Player: firstEmpty{ttt}},
	}
}

// playMNK plays m with input in and returns what was written.
func playMNK(t *testing.T, m MNK, in string, o Options) (string, Tally, error) {
	t.Helper()
	var out strings.Builder
	o.In, o.Out = strings.NewReader(in), &out
	if o.Games == 0 {
		o.Games = 1
	}
	tally, err := PlayMNK(context.Background(), m, o)
	return out.String(), tally, err
}

var movesLine = regexp.MustCompile(`(?m)^moves: (.*)$`)

// records returns the move lists of the games finished.
func records(out string) []string {
	var r []string
	for _, m := range movesLine.FindAllStringSubmatch(out, -1) {
		r = append(r, m[1])
	}
	return r
}

// A refused move says why and changes nothing: the game goes on as if the
// line had not been typed, to the same moves and result.
func TestRefusedMovesChangeNothing(t *testing.T) {
	// X 1,1; O 0,0; X 0,2; O 0,1; X 2,0 wins on the diagonal.
	const want = "1,1 0,0 0,2 0,1 2,0"
	out, tally, err := playMNK(t, humanAgainstFirstEmpty(), "4\n2\n6\n", Options{})
	if err != nil || tally != (Tally{XWins: 1}) || len(records(out)) != 1 || records(out)[0] != want {
		t.Fatalf("the game without refusals: tally %+v, err %v, moves %q; want X's win %q\n%s", tally, err, records(out), want, out)
	}
	for _, c := range []struct{ line, why string }{
		{"4", "refused: occupied: 1,1 (4)"},
		{"1,1", "refused: occupied: 1,1 (4)"},
		{" 0 , 0 ", "refused: occupied: 0,0 (0)"},
		{"3,0", "refused: off the board: 3,0: rows 0 to 2, columns 0 to 2"},
		{"-1,2", "refused: off the board"},
		{"9", "refused: off the board: 9: cells 0 to 8"},
		{"-1", "refused: off the board: -1: cells 0 to 8"},
		{"foo", `refused: not a move: "foo"`},
		{"1,x", `refused: not a move: "1,x"`},
		{"1,1,1", `refused: not a move: "1,1,1"`},
		{"X", `refused: not a move: "X"`},
	} {
		// After X's first move and O's reply, and again before X's last.
		in := "4\n" + c.line + "\n2\n" + c.line + "\n6\n"
		out, tally, err := playMNK(t, humanAgainstFirstEmpty(), in, Options{})
		if err != nil || tally != (Tally{XWins: 1}) {
			t.Errorf("%q: tally %+v, err %v; want X's win", c.line, tally, err)
		}
		if got := records(out); len(got) != 1 || got[0] != want {
			t.Errorf("%q: moves %q, want %q", c.line, got, want)
		}
		if n := strings.Count(out, c.why); n != 2 {
			t.Errorf("%q: %d lines %q, want 2\n%s", c.line, n, c.why, out)
		}
	}
	// An empty line asks again without a word.
	out, _, _ = playMNK(t, humanAgainstFirstEmpty(), "4\n\n  \n2\n6\n", Options{})
	if strings.Contains(out, "refused") || records(out)[0] != want {
		t.Errorf("empty lines: moves %q, refusals in\n%s", records(out), out)
	}
}

// u takes back the person's move and the reply; with nothing of the
// person's to take back it is refused.
func TestTakeBack(t *testing.T) {
	// X 1,1; O 0,0; X 0,2; O 0,1; u; X 2,0; O 0,1; X 0,2 wins.
	out, tally, err := playMNK(t, humanAgainstFirstEmpty(), "u\n4\n2\nu\n6\n2\n", Options{})
	if err != nil || tally != (Tally{XWins: 1}) {
		t.Fatalf("tally %+v, err %v; want X's win\n%s", tally, err, out)
	}
	if got, want := records(out), "1,1 0,0 2,0 0,1 0,2"; len(got) != 1 || got[0] != want {
		t.Errorf("moves %q, want %q", got, want)
	}
	if !strings.Contains(out, "refused: nothing to take back") || strings.Count(out, "took back two moves") != 1 {
		t.Errorf("want one refusal before any move and one take-back:\n%s", out)
	}
	// The position after the take-back is the one after the first pair:
	// its drawing follows "took back".
	after := out[strings.Index(out, "took back two moves"):]
	if !strings.Contains(after, "  0 |[O]| 1 | 2 |\n") || !strings.Contains(after, "  1 | 3 | X | 5 |\n") {
		t.Errorf("the board after u is not the one after 1,1 0,0:\n%s", after)
	}

	// O's first chance comes after X's move: nothing of O's to take back.
	m := humanAgainstFirstEmpty()
	m.X, m.O = m.O, m.X
	out, _, _ = playMNK(t, m, "u\n1\nu\n3\nq\n", Options{})
	if !strings.Contains(out, "refused: nothing to take back") || strings.Count(out, "took back two moves") != 1 {
		t.Errorf("O: want a refusal, then a take-back:\n%s", out)
	}
	// X 0,0; O 0,1; X 0,2 (first empty); u; O 1,0 ...
	if !strings.Contains(out, "O plays 1,0 (3)") {
		t.Errorf("O's move after the take-back is missing:\n%s", out)
	}
}

// h shows the hint player's move and value without playing it.
func TestHint(t *testing.T) {
	for _, c := range []struct {
		spec   player.Spec
		choice player.Choice
		want   string
	}{
		{player.Spec{Kind: player.Perfect}, player.Choice{Cell: mnk.Cell(2, 2), Value: mnk.Drawn}, "hint: 2,2 (8), a draw (perfect)"},
		{player.Spec{Kind: player.Perfect}, player.Choice{Cell: mnk.Cell(0, 2), Value: mnk.Win, Plies: 3}, "hint: 0,2 (2), a win, the game ending in 3 plies (perfect)"},
		{player.Spec{Kind: player.Perfect}, player.Choice{Cell: mnk.Cell(0, 2), Value: mnk.Loss, Plies: 1}, "hint: 0,2 (2), a loss, the game ending in 1 ply (perfect)"},
		{player.Spec{Kind: player.Engine, Time: time.Second}, player.Choice{Cell: mnk.Cell(1, 0), Score: -40, Depth: 7}, "hint: 1,0 (3), score -40 (engine:time=1s, depth 7)"},
		{player.Spec{Kind: player.Engine, Depth: 5}, player.Choice{Cell: mnk.Cell(1, 0), Score: search.Mate - 3, Depth: 5}, "hint: 1,0 (3), a win, the game ending in 3 plies (engine:depth=5, depth 5)"},
		{player.Spec{Kind: player.Engine, Depth: 5}, player.Choice{Cell: mnk.Cell(1, 0), Score: -(search.Mate - 2), Depth: 5}, "hint: 1,0 (3), a loss, the game ending in 2 plies (engine:depth=5, depth 5)"},
	} {
		asked := 0
		m := humanAgainstFirstEmpty()
		m.Hint, m.HintSpec = fixedHint{c.choice, &asked}, c.spec
		out, _, _ := playMNK(t, m, "h\n4\n2\nh\n6\n", Options{})
		if strings.Count(out, c.want+"\n") != 2 || asked != 2 {
			t.Errorf("%+v: asked %d times; want 2 lines %q in\n%s", c.choice, asked, c.want, out)
		}
		if got := records(out); len(got) != 1 || got[0] != "1,1 0,0 0,2 0,1 2,0" {
			t.Errorf("moves %q: the hint changed the game", got)
		}
	}
	m := humanAgainstFirstEmpty()
	m.HintErr = errors.New("player perfect: not built")
	out, _, _ := playMNK(t, m, "h\nq\n", Options{})
	if !strings.Contains(out, "no hint: player perfect: not built\n") {
		t.Errorf("no hint player: want the reason in\n%s", out)
	}
}

// q and the end of the input end the series at once, with the tally of
// the games finished, and no error.
func TestQuitAndEndOfInput(t *testing.T) {
	for _, c := range []struct {
		in, says string
		games    int
		tally    Tally
	}{
		{"q\n", "quit: the game in progress is not counted", 1, Tally{}},
		{" q \n4\n", "quit: the game in progress is not counted", 1, Tally{}},
		{"", "end of input: the game in progress is not counted", 1, Tally{}},
		{"4\n2", "end of input: the game in progress is not counted", 1, Tally{}},
		// One game won, the second quit or cut short.
		{"4\n2\n6\n4\nq\n", "quit", 3, Tally{XWins: 1}},
		{"4\n2\n6\n4\n", "end of input", 3, Tally{XWins: 1}},
	} {
		out, tally, err := playMNK(t, humanAgainstFirstEmpty(), c.in, Options{Games: c.games})
		if err != nil || tally != c.tally {
			t.Errorf("%q: tally %+v, err %v; want %+v and no error", c.in, tally, err, c.tally)
		}
		if !strings.Contains(out, c.says) {
			t.Errorf("%q: no %q in\n%s", c.in, c.says, out)
		}
		games := "games"
		if c.tally.Games() == 1 {
			games = "game"
		}
		want := fmt.Sprintf("tally: %d %s, X (human) won %d, O (perfect) won 0, 0 drawn\n", c.tally.Games(), games, c.tally.XWins)
		if !strings.HasSuffix(out, want) {
			t.Errorf("%q: output ends %q, want %q", c.in, out[max(0, len(out)-80):], want)
		}
	}
}

// An interrupt while a person thinks, or during a delay, ends the series
// with the context's error and the tally.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, w := io.Pipe()
	defer w.Close()
	var out strings.Builder
	_, err := PlayMNK(ctx, humanAgainstFirstEmpty(), Options{In: r, Out: &out, Games: 1})
	if !errors.Is(err, context.Canceled) || !strings.Contains(out.String(), "tally: 0 games") {
		t.Errorf("waiting for a move: err %v, want context.Canceled and the tally in\n%s", err, out.String())
	}
	m := humanAgainstFirstEmpty()
	m.X = m.O
	out.Reset()
	_, err = PlayMNK(ctx, m, Options{In: strings.NewReader(""), Out: &out, Games: 1, Delay: time.Hour})
	if !errors.Is(err, context.Canceled) || !strings.Contains(out.String(), "tally: 0 games") {
		t.Errorf("in a delay: err %v, want context.Canceled and the tally in\n%s", err, out.String())
	}
}

// A series of programs: X stays X, every game is counted, and the same seed
// plays the same games (each game draws from (seed, i)).
func TestSeries(t *testing.T) {
	random, _ := player.New(player.Spec{Kind: player.Random}, ttt)
	m := MNK{
		Game: ttt,
		X:    MNKSeat{Spec: player.Spec{Kind: player.Random}, Player: random},
		O:    MNKSeat{Spec: player.Spec{Kind: player.Perfect}, Player: firstEmpty{ttt}},
	}
	out, tally, err := playMNK(t, m, "", Options{Games: 20, Seed: 7})
	if err != nil || tally.Games() != 20 {
		t.Fatalf("tally %+v, err %v; want 20 games", tally, err)
	}
	if n := strings.Count(out, "game ") - strings.Count(out, "game in progress"); n != 20 {
		t.Errorf("%d game headers, want 20", n)
	}
	if n := strings.Count(out, ", X random, O perfect\n"); n != 20 {
		t.Errorf("%d headers with X random, want 20", n)
	}
	var counted Tally
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "X wins"):
			counted.XWins++
		case strings.HasPrefix(l, "O wins"):
			counted.OWins++
		case strings.HasPrefix(l, "draw"):
			counted.Draws++
		}
	}
	if counted != tally {
		t.Errorf("results printed %+v, tally %+v", counted, tally)
	}
	if want := fmt.Sprintf("tally: 20 games, X (random) won %d, O (perfect) won %d, %d drawn\n", tally.XWins, tally.OWins, tally.Draws); !strings.HasSuffix(out, want) {
		t.Errorf("output ends %q, want %q", out[len(out)-80:], want)
	}
	again, _, _ := playMNK(t, m, "", Options{Games: 20, Seed: 7})
	if again != out {
		t.Error("the same seed played other games")
	}
	other, _, _ := playMNK(t, m, "", Options{Games: 20, Seed: 8})
	if other == out {
		t.Error("seeds 7 and 8 played the same 20 games")
	}
	// Game i is the same game whatever the length of the series.
	first, _, _ := playMNK(t, m, "", Options{Games: 3, Seed: 7})
	if r, r3 := records(out), records(first); len(r3) != 3 || strings.Join(r[:3], "|") != strings.Join(r3, "|") {
		t.Errorf("the first 3 games of 20 %q, of 3 %q", r[:3], r3)
	}
}

// Plain text has no escape sequences; colour has them, and the same text.
func TestColourAndPlain(t *testing.T) {
	plain, _, _ := playMNK(t, humanAgainstFirstEmpty(), "4\n8\n2\nh\n6\n", Options{})
	if strings.Contains(plain, "\x1b") {
		t.Errorf("plain output has escape sequences:\n%q", plain)
	}
	colour, _, _ := playMNK(t, humanAgainstFirstEmpty(), "4\n8\n2\nh\n6\n", Options{Colour: true})
	if !strings.Contains(colour, "\x1b[") {
		t.Errorf("colour output has no escape sequences:\n%s", colour)
	}
	if got := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(colour, ""); got != plain {
		t.Errorf("colour output without its escapes differs from plain:\n%s\nwant\n%s", got, plain)
	}
}

// With Echo, each line read follows its prompt, as a terminal shows it.
func TestEcho(t *testing.T) {
	out, _, _ := playMNK(t, humanAgainstFirstEmpty(), "4\nfoo\nq\n", Options{Echo: true})
	for _, want := range []string{"quits): 4\nX plays 1,1 (4)\n", "quits): foo\nrefused: not a move", "quits): q\nquit"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// The drawing: coordinates, cell numbers, the last move in brackets, on a
// board with two-digit cell numbers.
func TestDrawMNK(t *testing.T) {
	g, err := newMNKGame(MNK{Game: mnk.MustNew(3, 4, 3)})
	if err != nil {
		t.Fatal(err)
	}
	g.play(mnk.Cell(0, 0))
	g.play(mnk.Cell(2, 3))
	var b strings.Builder
	g.draw(&output{w: &b})
	want := `       0    1    2    3
    +----+----+----+----+
  0 |  X |  1 |  2 |  3 |
    +----+----+----+----+
  1 |  4 |  5 |  6 |  7 |
    +----+----+----+----+
  2 |  8 |  9 | 10 | [O]|
    +----+----+----+----+
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	n, err := g.parse("11")
	if err == nil || !strings.HasPrefix(err.Error(), "occupied: 2,3 (11)") {
		t.Errorf("11: %v %v, want occupied", n, err)
	}
	if n, err := g.parse("10"); err != nil || n != mnk.Cell(2, 2) {
		t.Errorf("10: %v %v, want cell 2,2", n, err)
	}
}

// NewMNK refuses perfect play on a board too big for it, and chooses the
// hint: perfect play while it can, the engine beyond.
func TestNewMNK(t *testing.T) {
	big := mnk.MustNew(4, 5, 4)
	if _, err := NewMNK(big, player.Spec{Kind: player.Human}, player.Spec{Kind: player.Perfect}); err == nil || !strings.Contains(err.Error(), "perfect plays boards of up to 16 cells") {
		t.Errorf("perfect on 4x5: %v, want a refusal", err)
	}
	m, err := NewMNK(big, player.Spec{Kind: player.Human}, player.Spec{Kind: player.Random})
	if err != nil || m.HintSpec.Kind != player.Engine || m.X.Player != nil || m.O.Player == nil {
		t.Errorf("4x5: %+v, %v; want a human, a random player and the engine's hints", m, err)
	}
	m, err = NewMNK(ttt, player.Spec{Kind: player.Random}, player.Spec{Kind: player.Human})
	if err != nil || m.HintSpec.Kind != player.Perfect || m.X.Player == nil || m.O.Player != nil {
		t.Errorf("3x3: %+v, %v; want a random player, a human and perfect hints", m, err)
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		return 0, errors.New("broken pipe")
	}
	w.n -= len(p)
	return len(p), nil
}

// A series stops when its output fails: no one sees the games.
func TestWriteErrorStops(t *testing.T) {
	random, _ := player.New(player.Spec{Kind: player.Random}, ttt)
	m := MNK{Game: ttt, X: MNKSeat{Spec: player.Spec{Kind: player.Random}, Player: random}, O: MNKSeat{Spec: player.Spec{Kind: player.Random}, Player: random}}
	tally, err := PlayMNK(context.Background(), m, Options{In: strings.NewReader(""), Out: &failingWriter{n: 500}, Games: 1_000_000})
	if err == nil || !strings.Contains(err.Error(), "write: broken pipe") || tally.Games() > 1 {
		t.Errorf("tally %+v, err %v; want the write error within the first game", tally, err)
	}
}

// A game starts from the moves it is given (a kept game), which u does not
// take back; e writes the game in progress down, and the end of a game
// writes it down too, in the notation that --moves reads.
func TestStartAndWriteDown(t *testing.T) {
	m := humanAgainstFirstEmpty()
	m.Start = [][2]int{{1, 1}, {0, 0}}
	// From X 1,1, O 0,0: u refused; X 0,2, O 0,1 (first empty), taken
	// back; u refused; X 2,0, O 0,1; X 0,2 wins on 2,0 1,1 0,2.
	out, tally, err := playMNK(t, m, "u\ne\n2\nu\nu\n6\ne\n2\n", Options{})
	if err != nil || tally != (Tally{XWins: 1}) {
		t.Fatalf("tally %+v, err %v; want X's win\n%s", tally, err, out)
	}
	for _, want := range []string{
		"from 3x3 k3: 1,1 0,0\n",
		"refused: nothing to take back",
		"game: 3x3 k3: 1,1 0,0\n",
		"game: 3x3 k3: 1,1 0,0 2,0 0,1\n",
		"moves: 1,1 0,0 2,0 0,1 0,2\ngame: 3x3 k3: 1,1 0,0 2,0 0,1 0,2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if n := strings.Count(out, "refused: nothing to take back"); n != 2 {
		t.Errorf("%d refusals to take back the start, want 2\n%s", n, out)
	}
	// A start that ends the game is an error, not a game.
	m.Start = [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}}
	if _, _, err := playMNK(t, m, "", Options{}); err == nil || !strings.Contains(err.Error(), "the game is over") {
		t.Errorf("a start that ends the game: %v", err)
	}
}

// After the last game of a series a person is offered another: y plays it,
// anything else (or the end of the input) ends the series. A won game
// marks its winning line.
func TestAnotherGameAndTheWinningLine(t *testing.T) {
	out, tally, err := playMNK(t, humanAgainstFirstEmpty(), "4\n2\n6\ny\n4\n2\n6\nn\n", Options{})
	if err != nil || tally != (Tally{XWins: 2}) || strings.Count(out, "another game? (y/n): ") != 2 {
		t.Fatalf("tally %+v, err %v; want two games won and two offers\n%s", tally, err, out)
	}
	if !strings.Contains(out, "game 2 of 2") {
		t.Errorf("the second game is not announced as game 2 of 2:\n%s", out)
	}
	// X 1,1 0,2 2,0 won on the diagonal: its stones between stars.
	if !strings.Contains(out, "  0 | O | O |*X*|\n") || !strings.Contains(out, "  1 | 3 |*X*| 5 |\n") || !strings.Contains(out, "  2 |*X*| 7 | 8 |\n") {
		t.Errorf("no winning line in\n%s", out)
	}
	// Two programs: no offer.
	m := humanAgainstFirstEmpty()
	m.X = MNKSeat{Spec: player.Spec{Kind: player.Perfect}, Player: firstEmpty{ttt}}
	if out, _, _ := playMNK(t, m, "", Options{}); strings.Contains(out, "another game") {
		t.Errorf("an offer to two programs:\n%s", out)
	}
}

// On a terminal each board is drawn in place: the cursor goes back over
// the previous board and what followed it (the moves, refusals and typed
// lines), which termenv's escape sequences erase, and the notes of the
// turn's moves come under the new board. A little terminal plays the
// output back: the screen at the end holds one board.
func TestRedrawInPlace(t *testing.T) {
	out, _, _ := playMNK(t, humanAgainstFirstEmpty(), "4\nfoo\n2\nh\n6\nn\n", Options{Redraw: true, Echo: true})
	if !strings.Contains(out, "\x1b[1A\x1b[2K") {
		t.Fatalf("no line erased in\n%q", out)
	}
	screen := playBack(t, out)
	if n := strings.Count(screen, "    +---+---+---+\n"); n != 4 {
		t.Errorf("the screen at the end shows %d board rules, want one board's 4:\n%s", n, screen)
	}
	for _, want := range []string{
		"3x3, 3 in a row: game 1 of 1, X human, O perfect\n",
		"  2 |*X*| 7 | 8 |\n    +---+---+---+\nX plays 2,0 (6)\nX wins\n",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	for _, gone := range []string{"refused", "hint:", "foo"} {
		if strings.Contains(screen, gone) {
			t.Errorf("%q is still on the screen:\n%s", gone, screen)
		}
	}
	// After O's reply, the person's move and the reply under the board.
	if !strings.Contains(out, "+---+---+---+\nX plays 1,1 (4)\nO (perfect) plays 0,0 (0)\n") {
		t.Errorf("the turn's moves are not under the board that shows them:\n%q", out)
	}
	plain, _, _ := playMNK(t, humanAgainstFirstEmpty(), "4\nfoo\n2\n6\n", Options{})
	if strings.Contains(plain, "\x1b") {
		t.Errorf("escape sequences without Redraw:\n%q", plain)
	}
}

// playBack plays out on a terminal that knows what the games write: text,
// newlines, "erase the line" (CSI 2K) and "cursor up" (CSI 1A); it returns
// the screen.
func playBack(t *testing.T, out string) string {
	t.Helper()
	lines, row := []string{""}, 0
	for len(out) > 0 {
		switch {
		case strings.HasPrefix(out, "\x1b[2K"):
			lines[row] = ""
			out = out[4:]
		case strings.HasPrefix(out, "\x1b[1A"):
			row = max(row-1, 0)
			out = out[4:]
		case out[0] == '\x1b':
			t.Fatalf("an escape sequence the little terminal does not know: %q", out[:min(len(out), 8)])
		case out[0] == '\n':
			row++
			if row == len(lines) {
				lines = append(lines, "")
			}
			out = out[1:]
		default:
			lines[row] += out[:1]
			out = out[1:]
		}
	}
	return strings.Join(lines, "\n")
}

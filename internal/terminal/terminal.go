// Package terminal plays games at a terminal: m,n,k-games and nine-board
// tic-tac-toe, between a person typing moves and the engine, two people, or
// two programs that a person watches.
//
// A game reads lines from an io.Reader and writes to an io.Writer, so a
// test drives it as a person at a keyboard would, through a pipe or a pty.
// The board is drawn after every move with the last move marked (in
// brackets, and in colour when Options.Colour is set). On a person's turn
// a line is a move, or u (take back the last pair of moves), h (the
// engine's suggestion and its evaluation) or q (quit). A move that cannot
// be played is refused with the reason and asked for again; the game is
// unchanged. q, or the end of the input, ends the series with the tally of
// the games finished so far: that is not an error.
//
// Game i of a series (from 0) draws its random numbers from a generator
// seeded by (Options.Seed, i), so a series is the same games whenever no
// person and no player with a time limit takes part.
//
// The game itself (its rules, moves, take-backs and the programs' replies)
// is a session of pkg/game, the one the web plays: this package draws it
// and reads a person's lines.
package terminal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/muesli/termenv"
)

// Options are what the games of a series share.
type Options struct {
	In  io.Reader // a person's moves, one a line
	Out io.Writer
	// Colour draws with ANSI colours: for a terminal, unless NO_COLOR is
	// set. Without it the output is plain text.
	Colour bool
	// Echo writes each line read after its prompt, for input that is
	// not a terminal (a terminal shows what is typed itself).
	Echo bool
	// Redraw draws each board in place of the one before (termenv moves
	// the cursor), for output to a terminal; without it, boards follow
	// each other down the page.
	Redraw bool
	Games  int           // in the series, at least 1
	Delay  time.Duration // before each program's move when no person plays
	Seed   uint64
}

// Tally counts the results of the games finished.
type Tally struct {
	XWins, OWins, Draws int
}

// Games is the number of games counted.
func (t Tally) Games() int { return t.XWins + t.OWins + t.Draws }

// outcome is a game's state, the same for both games.
type outcome int

const (
	ongoing outcome = iota
	xWins
	oWins
	drawn
)

// playable is one of the games the loop plays: the loop owns the series,
// the turns and the person's commands; a playable draws its game (a
// pkg/game session), reads a person's moves, and seats its programs.
type playable interface {
	// start begins a new game with its generator and says what happened
	// before the first player's turn, if anything (a referee's move).
	start(ctx context.Context, rng *rand.Rand) (string, error)
	// draw writes the board.
	draw(w *output)
	// toMove is the side to move: 0 for X, 1 for O.
	toMove() int
	// result is the state of the game and, when it is over, why.
	result() (outcome, string)
	// parse reads a person's move, or says why it cannot be played.
	parse(s string) (int, error)
	// play makes a move.
	play(m int)
	// takeBack takes back the last move; undoable is how many moves may
	// be taken back (not a referee's).
	takeBack()
	undoable() int
	// think is a program's move for the side to move; human says whether
	// that side is a person's.
	think(ctx context.Context, rng *rand.Rand) (int, error)
	human(side int) bool
	// hint is the engine's suggestion for the side to move and its
	// evaluation, as a line of text.
	hint(ctx context.Context) (string, error)
	// moveText writes a move as a person types it; record is the moves
	// so far, as other commands read them.
	moveText(m int) string
	record() string
	// export is the game in progress in the notation that analyze play
	// --moves and the web load ("" where the game has none).
	export() string
	// syntax says how to type a move.
	syntax() string
	// players names the two sides, X first.
	players() [2]string
	// title says what game a series plays.
	title() string
}

// errQuit ends a series at a person's request, or at the end of the input.
var errQuit = errors.New("quit")

// series plays o.Games games of g and prints the tally at the end, or when
// a person quits.
func series(ctx context.Context, g playable, o Options) (Tally, error) {
	out := newOutput(o)
	in := newLines(o.In)
	defer in.stop()
	var t Tally
	var err error
	games := o.Games
	for i := 0; i < games; i++ {
		if i > 0 {
			out.printf("\n")
		}
		names := g.players()
		out.printf("%s: game %d of %d, X %s, O %s\n", g.title(), i+1, games, names[0], names[1])
		var res outcome
		res, err = playOne(ctx, g, o, out, in, rand.New(rand.NewPCG(o.Seed, uint64(i))))
		if err != nil {
			break
		}
		switch res {
		case xWins:
			t.XWins++
		case oWins:
			t.OWins++
		default:
			t.Draws++
		}
		if i == games-1 && (g.human(0) || g.human(1)) {
			// A person played the last game of the series: offer another.
			again, aerr := anotherGame(ctx, o, out, in)
			if aerr != nil {
				err = aerr
				break
			}
			if again {
				games++
			}
		}
	}
	names := g.players()
	noun := "games"
	if t.Games() == 1 {
		noun = "game"
	}
	out.printf("tally: %d %s, X (%s) won %d, O (%s) won %d, %d drawn\n", t.Games(), noun, names[0], t.XWins, names[1], t.OWins, t.Draws)
	if errors.Is(err, errQuit) {
		err = nil
	}
	return t, out.err(err)
}

// anotherGame asks whether to play another game; the end of the input, or
// anything but y, is no.
func anotherGame(ctx context.Context, o Options, out *output, in *lines) (bool, error) {
	out.printf("%s", out.paint("another game? (y/n): ", bold))
	line, ok, err := in.next(ctx)
	if err != nil {
		return false, err
	}
	if !ok {
		out.printf("\n")
		return false, nil
	}
	if o.Echo {
		out.printf("%s\n", line)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// playOne plays one game to its end.
func playOne(ctx context.Context, g playable, o Options, out *output, in *lines, rng *rand.Rand) (outcome, error) {
	note, err := g.start(ctx, rng)
	if err != nil {
		return ongoing, err
	}
	if note != "" {
		out.printf("%s\n", note)
	}
	watched := !g.human(0) && !g.human(1)
	g.draw(out)
	for {
		if out.failed != nil {
			return ongoing, out.err(nil) // no one sees the game
		}
		if res, why := g.result(); res != ongoing {
			out.printf("%s\nmoves: %s\n", out.result(res, why), g.record())
			if e := g.export(); e != "" {
				out.printf("game: %s\n", e)
			}
			return res, nil
		}
		side := g.toMove()
		name := g.players()[side]
		if !g.human(side) {
			if watched && o.Delay > 0 {
				if err := sleep(ctx, o.Delay); err != nil {
					return ongoing, err
				}
			}
			m, err := g.think(ctx, rng)
			if err != nil {
				return ongoing, err
			}
			g.play(m)
			out.note("%s (%s) plays %s\n", out.side(side), name, g.moveText(m))
			g.draw(out)
			continue
		}
		keys := "u takes back, h hints, q quits"
		if g.export() != "" {
			keys = "u takes back, h hints, e writes the game down, q quits"
		}
		out.printf("%s%s", out.side(side), out.paint(fmt.Sprintf(" to move (%s; %s): ", g.syntax(), keys), bold))
		out.prompted()
		line, ok, err := in.next(ctx)
		if err != nil {
			return ongoing, err
		}
		if ok && o.Echo {
			out.printf("%s\n", line)
		} else if ok {
			out.typed()
		}
		if !ok {
			out.printf("\nend of input: the game in progress is not counted\n")
			return ongoing, errQuit
		}
		switch cmd := strings.TrimSpace(line); cmd {
		case "":
		case "q":
			out.printf("quit: the game in progress is not counted\n")
			return ongoing, errQuit
		case "u":
			if g.undoable() < 2 {
				out.refuse("nothing to take back")
				continue
			}
			g.takeBack()
			g.takeBack()
			out.note("took back two moves\n")
			g.draw(out)
		case "e":
			if e := g.export(); e != "" {
				out.printf("game: %s\n", e)
				continue
			}
			out.refuse("this game has no notation to write it down in")
		case "h":
			h, err := g.hint(ctx)
			if ctx.Err() != nil {
				return ongoing, ctx.Err()
			}
			if err != nil {
				out.printf("no hint: %v\n", err)
				continue
			}
			out.printf("hint: %s\n", h)
		default:
			m, err := g.parse(cmd)
			if err != nil {
				out.refuse(err.Error())
				continue
			}
			g.play(m)
			out.note("%s plays %s\n", out.side(side), g.moveText(m))
			g.draw(out)
		}
	}
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lines delivers the input's lines to the loop. It reads in a goroutine so
// that the loop can also wait for ctx: an interrupt ends a game while it
// waits for a person. A Read in progress cannot be interrupted, so stop
// does not wait for the goroutine: it ends at the next line or the end of
// the input, or with the process.
type lines struct {
	c    chan string
	done chan struct{}
	err  error // read before c is closed
}

func newLines(r io.Reader) *lines {
	l := &lines{c: make(chan string), done: make(chan struct{})}
	go func() {
		defer close(l.c)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case l.c <- sc.Text():
			case <-l.done:
				return
			}
		}
		l.err = sc.Err()
	}()
	return l
}

// next returns the next line; false at the end of the input.
func (l *lines) next(ctx context.Context) (string, bool, error) {
	select {
	case s, ok := <-l.c:
		if !ok && l.err != nil {
			return "", false, fmt.Errorf("read moves: %w", l.err)
		}
		return s, ok, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
}

func (l *lines) stop() { close(l.done) }

// output writes to the player's screen and keeps the first write error.
// On a terminal (redraw) each board is drawn in place of the one before,
// with what was written since (moves, refusals, the typed lines) erased,
// and the notes of the moves between them (note) written under it.
type output struct {
	w       io.Writer
	colour  bool
	redraw  bool
	term    *termenv.Output // the styles and the cursor, on w
	failed  error
	since   int      // lines written since the last board began (redraw); -1 before the first
	pending []string // notes of the moves since the last prompt, written under each board (redraw)
}

func newOutput(o Options) *output {
	out := &output{w: o.Out, colour: o.Colour, redraw: o.Redraw, since: -1}
	out.term = termenv.NewOutput(o.Out, termenv.WithProfile(termenv.ANSI), termenv.WithTTY(true))
	return out
}

func (o *output) printf(format string, a ...any) {
	if o.failed != nil {
		return
	}
	s := fmt.Sprintf(format, a...)
	_, o.failed = io.WriteString(o.w, s)
	if o.since >= 0 {
		o.since += strings.Count(s, "\n")
	}
}

// typed counts a line that the terminal echoed as the person typed it.
func (o *output) typed() {
	if o.since >= 0 {
		o.since++
	}
}

// note writes a line about a move: at once, or, when boards are drawn in
// place, under each board until the next prompt (so that a person sees
// their move and the reply under the board that shows both).
func (o *output) note(format string, a ...any) {
	if !o.redraw {
		o.printf(format, a...)
		return
	}
	o.pending = append(o.pending, fmt.Sprintf(format, a...))
}

// board writes a drawing without the spaces at the ends of its lines: on a
// terminal, over the previous one and what followed it.
func (o *output) board(s string) {
	if o.redraw && o.failed == nil {
		if o.since > 0 {
			o.term.ClearLines(o.since)
		}
		o.since = 0
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	o.printf("%s\n", strings.Join(lines, "\n"))
	for _, n := range o.pending {
		o.printf("%s", n)
	}
}

// prompted starts a new turn's notes.
func (o *output) prompted() { o.pending = nil }

// err returns err, or the first write error.
func (o *output) err(err error) error {
	if err == nil && o.failed != nil {
		return fmt.Errorf("write: %w", o.failed)
	}
	return err
}

// style is a way of painting text in colour.
type style int

const (
	bold style = iota
	dim
	reverse
	red
	green
	yellow
	cyan
)

// paint styles s when drawing in colour.
func (o *output) paint(s string, styles ...style) string {
	if !o.colour || len(styles) == 0 {
		return s
	}
	t := o.term.String(s)
	for _, st := range styles {
		switch st {
		case bold:
			t = t.Bold()
		case dim:
			t = t.Faint()
		case reverse:
			t = t.Reverse()
		case red, green, yellow, cyan:
			t = t.Foreground(o.term.Color(map[style]string{red: "1", green: "2", yellow: "3", cyan: "6"}[st]))
		}
	}
	return t.String()
}

// stone draws a side's mark, X or O, in its colour; last marks the last
// move, win a stone of the winning line.
func (o *output) stone(side int, last, win bool) string {
	s := []style{bold, cyan}
	if side == 1 {
		s[1] = yellow
	}
	if win {
		s[1] = green
	}
	if last || win {
		s = append(s, reverse)
	}
	return o.paint("XO"[side:side+1], s...)
}

// side names a side, in its colour.
func (o *output) side(side int) string { return o.stone(side, false, false) }

func (o *output) refuse(why string) { o.printf("%s\n", o.paint("refused: "+why, red)) }

func (o *output) result(res outcome, why string) string {
	s := map[outcome]string{xWins: "X wins", oWins: "O wins", drawn: "draw"}[res]
	if why != "" {
		s += ": " + why
	}
	return o.paint(s, bold, green)
}

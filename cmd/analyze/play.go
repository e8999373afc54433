package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/woprlabs/wopr/internal/terminal"
	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/game"
	"github.com/woprlabs/wopr/pkg/player"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

func init() { gameCommands = append(gameCommands, playCommand) }

// Limits of the terminal's series.
const (
	maxPlayGames = 1_000_000
	maxPlayDelay = time.Minute
)

// bigOpponent is O's default on boards too big for the perfect player.
const bigOpponent = "engine:time=1s"

// seriesFlags are the flags both games' play commands share.
func seriesFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "games", Value: 1, Usage: fmt.Sprintf("`N` games in a series (X stays X), 1 to %d; the tally follows", maxPlayGames)},
		&cli.DurationFlag{Name: "delay", Value: 500 * time.Millisecond, Usage: "`D` before each move when no human plays, so a person can watch (0: none)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`S` seeds the random moves: game i of a series draws from (S, i)"},
	}
}

func playCommand() *cli.Command {
	return &cli.Command{
		Name:  "play",
		Usage: "play an m,n,k-game in the terminal: a person against the engine, two people, or two programs",
		Description: "Players: human, random, perfect (exact play, boards of up to 16 cells), engine:depth=D,\n" +
			"engine:time=T. Rows, columns and cells are numbered from 0, top left first: a human types a\n" +
			"move as row,col or as the cell's number (0 to R*C-1, row-major: 0-8 on 3x3, as the board\n" +
			"shows), u to take back the last pair of moves, h for the engine's suggestion and evaluation, e\n" +
			"to write the game down (\"3x3 k3: 1,1 0,0\", which --moves and the web read), q to quit; q or\n" +
			"the end of the input prints the tally of the games finished and exits 0. On a terminal the\n" +
			"board is drawn in place, in colour unless NO_COLOR is set; a won game shows its line between\n" +
			"stars, and a person is offered another game after the last of the series.\n\n" +
			"Examples:\n" +
			"   analyze play                                   # you (X) against perfect play on 3x3\n" +
			"   analyze play -x perfect -o human               # you move second\n" +
			"   analyze play -x random -o perfect --games 20 --delay 0\n" +
			"   analyze play --board 4x4 --k 3 -o engine:depth=6\n" +
			"   analyze play --moves \"3x3 k3: 1,1 0,0\"                   # take a game up again",
		OnUsageError: onUsageError,
		Flags: append(append(boardFlags(mnk.MaxSide),
			&cli.StringFlag{Name: "x", Value: "human", Usage: "`PLAYER` of X: human, random, perfect, engine:depth=D or engine:time=T"},
			&cli.StringFlag{Name: "o", Value: "perfect", Usage: "`PLAYER` of O", DefaultText: "perfect, or " + bigOpponent + " on boards over 16 cells"},
			&cli.StringFlag{Name: "moves", Usage: "start every game from `GAME`: a game written down, \"3x3 k3: 1,1 0,0\" (its board and k), or moves \"1,1 0,0\" on --board"},
		), seriesFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("play takes no arguments, got %q", c.Args().First())
			}
			rows, cols, k, err := board(c, mnk.MaxSide)
			if err != nil {
				return err
			}
			start, err := startMoves(c, &rows, &cols, &k)
			if err != nil {
				return err
			}
			g, err := mnktasks.NewGame(rows, cols, k)
			if err != nil {
				return usagef("%v", err)
			}
			if len(start) > 0 {
				r := game.MNKRecord{Rows: rows, Cols: cols, K: k, Moves: start}
				s, err := game.NewMNKFromRecord(r)
				if err != nil {
					return usagef("--moves: %v", err)
				}
				if s.Result() != mnk.Ongoing {
					return usagef("--moves %q: the game is over", r)
				}
			}
			o := c.String("o")
			if !c.IsSet("o") && g.Cells() > terminal.MaxPerfectCells {
				o = bigOpponent
			}
			var specs [2]player.Spec
			for i, s := range []string{c.String("x"), o} {
				name := []string{"-x", "-o"}[i]
				if specs[i], err = player.Parse(s); err != nil {
					return usagef("%s: %v", name, err)
				}
				if specs[i].Kind == player.Perfect && g.Cells() > terminal.MaxPerfectCells {
					return usagef("%s perfect: perfect plays boards of up to %d cells; this one has %d", name, terminal.MaxPerfectCells, g.Cells())
				}
			}
			opt, err := seriesOptions(c)
			if err != nil {
				return err
			}
			m, err := terminal.NewMNK(g, specs[0], specs[1])
			if err != nil {
				return err
			}
			m.Start = start
			_, err = terminal.PlayMNK(c.Context, m, opt)
			return err
		},
	}
}

func nineboardPlayCommand() *cli.Command {
	return &cli.Command{
		Name:  "play",
		Usage: "play nine-board tic-tac-toe in the terminal: a person against the engine, two people, or two programs",
		Description: "Players: human, random, engine:depth=D (1 to 30 plies), engine:time=T (per move). The\n" +
			"default opponent, engine:depth=8, replies at once (milliseconds) and the same way every time\n" +
			"in the same position. A human types a move as board:cell or board,cell (1-9 each, as the\n" +
			"agent and matches write them) or only the cell when the board is given; u takes back the last\n" +
			"pair of moves, h shows the engine's suggestion and evaluation, q quits. In first-triple the\n" +
			"referee makes X's first move at random, as in matches; two programs play a match's games.\n\n" +
			"Examples:\n" +
			"   analyze nineboard play                               # you (X) against engine:depth=8\n" +
			"   analyze nineboard play --variant ultimate -x engine:depth=8 -o human\n" +
			"   analyze nineboard play -x engine:depth=6 -o random --games 10 --delay 0",
		OnUsageError: onUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "x", Value: "human", Usage: "`PLAYER` of X: human, random, engine:depth=D or engine:time=T"},
			&cli.StringFlag{Name: "o", Value: "engine:depth=8", Usage: "`PLAYER` of O"},
			variantFlag(),
		}, seriesFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			v, err := variant(c)
			if err != nil {
				return err
			}
			var seats [2]player.Spec
			for i, s := range []string{c.String("x"), c.String("o")} {
				if s == "human" {
					seats[i] = player.Spec{Kind: player.Human}
					continue
				}
				if seats[i], err = player.ParseNineboard(s); err != nil {
					return usagef("%s: %v (or human)", []string{"-x", "-o"}[i], err)
				}
			}
			opt, err := seriesOptions(c)
			if err != nil {
				return err
			}
			_, err = terminal.PlayNineboard(c.Context, terminal.Nineboard{Variant: v, X: seats[0], O: seats[1]}, opt)
			return err
		},
	}
}

// seriesOptions reads the series flags and wires the terminal.
func seriesOptions(c *cli.Context) (terminal.Options, error) {
	o := terminal.Options{
		In: os.Stdin, Out: os.Stdout,
		Colour: isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "",
		Echo:   !isTerminal(os.Stdin),
		Redraw: isTerminal(os.Stdout) && isTerminal(os.Stdin),
		Games:  c.Int("games"), Delay: c.Duration("delay"), Seed: c.Uint64("seed"),
	}
	if o.Games < 1 || o.Games > maxPlayGames {
		return o, usagef("--games %d: want 1 to %d", o.Games, maxPlayGames)
	}
	if o.Delay < 0 || o.Delay > maxPlayDelay {
		return o, usagef("--delay %v: want 0 (none) to %v", o.Delay, maxPlayDelay)
	}
	return o, nil
}

// isTerminal says whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// startMoves reads --moves: a game written down (game.MNKRecord), whose
// board and k are the game's (and must agree with --board and --k where
// they are given), or moves alone on the --board game.
func startMoves(c *cli.Context, rows, cols, k *int) ([][2]int, error) {
	text := strings.TrimSpace(c.String("moves"))
	if text == "" {
		return nil, nil
	}
	if !strings.Contains(text, ":") {
		text = fmt.Sprintf("%dx%d k%d: %s", *rows, *cols, *k, text)
	}
	r, err := game.ParseMNKRecord(text)
	if err != nil {
		return nil, usagef("--moves: %v", err)
	}
	if c.IsSet("board") && (r.Rows != *rows || r.Cols != *cols) || c.IsSet("k") && r.K != *k {
		return nil, usagef("--moves %q: the game is %dx%d k%d, not --board %dx%d --k %d", c.String("moves"), r.Rows, r.Cols, r.K, *rows, *cols, *k)
	}
	*rows, *cols, *k = r.Rows, r.Cols, r.K
	return r.Moves, nil
}

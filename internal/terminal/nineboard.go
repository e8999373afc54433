package terminal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/game"
	"github.com/woprlabs/wopr/pkg/player"
)

// Nineboard is a nine-board game to play: the variant and the two sides,
// each a person (player.Human) or a nine-board player of pkg/player
// (random or the engine).
type Nineboard struct {
	Variant nineboard.Variant
	X, O    player.Spec
}

// PlayNineboard plays a series of nine-board games. The programs play as
// in a match (nineboard match): in first-triple the referee makes X's first
// move at random, the random player draws a move uniformly, and each engine
// searches with its own table, cleared before each game; so two programs
// play the games of a match with the same seed.
func PlayNineboard(ctx context.Context, n Nineboard, o Options) (Tally, error) {
	g := &nineboardGame{Nineboard: n, s: game.NewNineboard(n.Variant)}
	for side, s := range []player.Spec{n.X, n.O} {
		g.seats[side].Spec = s
		if s.Kind == player.Human {
			continue
		}
		p, err := player.NewNineboard(s)
		if err != nil {
			return Tally{}, err
		}
		g.seats[side].Player = p
	}
	return series(ctx, g, o)
}

// nineboardGame is the loop's view of a nine-board game. A move is a
// nineboard.Move.
type nineboardGame struct {
	Nineboard
	s     *game.Nineboard
	seats [2]game.NineboardSeat // a person's has no Player
	hints *player.Nineboard
}

func (g *nineboardGame) start(_ context.Context, rng *rand.Rand) (string, error) {
	g.s.Reset()
	for _, s := range g.seats {
		if s.Player != nil {
			s.Player.Clear()
		}
	}
	m := g.s.Open(rng)
	if m == nineboard.NoMove {
		return "", nil
	}
	return fmt.Sprintf("the referee makes X's first move: %s", m), nil
}

func (g *nineboardGame) toMove() int         { return int(g.s.ToMove()) }
func (g *nineboardGame) human(side int) bool { return g.seats[side].Player == nil }

func (g *nineboardGame) play(m int)    { g.s.Play(nineboard.Move(m)) }
func (g *nineboardGame) takeBack()     { g.s.TakeBack() }
func (g *nineboardGame) undoable() int { return g.s.Undoable() }
func (g *nineboardGame) moveText(m int) string {
	return nineboard.Move(m).String()
}

func (g *nineboardGame) players() [2]string { return [2]string{g.X.String(), g.O.String()} }

func (g *nineboardGame) title() string { return "nine-board tic-tac-toe (" + g.Variant.String() + ")" }

func (g *nineboardGame) syntax() string {
	if next := g.s.Board().Next(); next != nineboard.AnyBoard {
		return fmt.Sprintf("board:cell or a cell of board %d", next+1)
	}
	return "board:cell"
}

// record is the moves as a match writes them, the referee's first.
func (g *nineboardGame) export() string { return "" }

func (g *nineboardGame) record() string {
	moves := g.s.Moves()
	ms := make([]string, len(moves))
	for i, m := range moves {
		ms[i] = m.String()
	}
	return strings.Join(ms, " ")
}

func (g *nineboardGame) result() (outcome, string) {
	switch r := g.s.Result(); r {
	case nineboard.Ongoing:
		return ongoing, ""
	case nineboard.Draw:
		return drawn, g.s.Why()
	default:
		return outcome(r), g.s.Why()
	}
}

// parseMove reads "board:cell" or "board,cell", 1-9 each.
func parseMove(s string) (nineboard.Move, error) {
	bs, cs, ok := strings.Cut(s, ":")
	if !ok {
		bs, cs, ok = strings.Cut(s, ",")
	}
	bd, err1 := strconv.Atoi(strings.TrimSpace(bs))
	c, err2 := strconv.Atoi(strings.TrimSpace(cs))
	if !ok || err1 != nil || err2 != nil {
		return nineboard.NoMove, fmt.Errorf("not a move: %q: want board:cell, 1-9 each", s)
	}
	if bd < 1 || bd > 9 || c < 1 || c > 9 {
		return nineboard.NoMove, fmt.Errorf("off the board: %s: boards and cells are 1 to 9", s)
	}
	return nineboard.NewMove(bd-1, c-1), nil
}

// parse reads "board:cell", "board,cell", or a lone cell of the board to
// play in.
func (g *nineboardGame) parse(s string) (int, error) {
	next := g.s.Board().Next()
	var m nineboard.Move
	if c, err := strconv.Atoi(s); err == nil && !strings.ContainsAny(s, ":,") {
		if next == nineboard.AnyBoard {
			return 0, fmt.Errorf("not a move: %q: any board may be played, so say which: board:cell", s)
		}
		if c < 1 || c > 9 {
			return 0, fmt.Errorf("off the board: %d: cells are 1 to 9", c)
		}
		m = nineboard.NewMove(next, c-1)
	} else if m, err = parseMove(s); err != nil {
		return 0, err
	}
	switch why := g.s.Refuse(m); {
	case why == 0:
		return int(m), nil
	case why&game.Taken != 0:
		return 0, fmt.Errorf("occupied: %s", m)
	case why&game.WrongBoard != 0:
		return 0, fmt.Errorf("wrong board: %s: play in board %d", m, next+1)
	}
	return 0, fmt.Errorf("closed: %s: board %d is won or full", m, m.Board()+1)
}

func (g *nineboardGame) think(ctx context.Context, rng *rand.Rand) (int, error) {
	info, err := g.s.Reply(ctx, g.seats[g.toMove()], rng)
	return int(info.Move), err
}

func (g *nineboardGame) hint(ctx context.Context) (string, error) {
	if g.hints == nil {
		g.hints, _ = player.NewNineboard(player.Spec{Kind: player.Engine, Depth: game.NineboardHintDepth})
	}
	info, err := g.s.Reply(ctx, game.NineboardSeat{Spec: g.hints.Spec(), Player: g.hints}, nil)
	if err != nil {
		return "", err
	}
	switch {
	case info.Score > nineboard.MateBound:
		return fmt.Sprintf("%s, a win, the game ending %s (engine, depth %d)", info.Move, plies(nineboard.Mate-info.Score), info.Depth), nil
	case info.Score < -nineboard.MateBound:
		return fmt.Sprintf("%s, a loss, the game ending %s (engine, depth %d)", info.Move, plies(nineboard.Mate+info.Score), info.Depth), nil
	}
	return fmt.Sprintf("%s, score %+d (engine, depth %d)", info.Move, info.Score, info.Depth), nil
}

// draw writes the nine boards in their grid, each under its number. The
// boards the side to move may play in are marked (>board 5<) and show
// their empty cells' numbers; the others show dots. The last move is in
// brackets. In ultimate, a won board's label says who won it.
//
//	 board 1  |  board 2  |  board 3
//	 .  .  .  |  .  .  .  |  .  .  .
//	 . [X] .  |  .  .  .  |  .  .  .
//	 .  .  .  |  .  .  .  |  .  .  .
//	----------+-----------+----------
//	 board 4  | >board 5< |  board 6
//	 .  .  .  |  1  2  3  |  .  .  .
//	 ...
func (g *nineboardGame) draw(w *output) {
	var open [9]bool
	for _, bd := range g.s.Playable() {
		open[bd] = true
	}
	b := g.s.Board()
	last := b.LastMove()
	var sb strings.Builder
	for br := range 3 {
		if br > 0 {
			sb.WriteString("  " + strings.Repeat("-", 10) + "+" + strings.Repeat("-", 11) + "+" + strings.Repeat("-", 10) + "\n")
		}
		blocks := func(f func(bd int) string) {
			sb.WriteString("  ")
			for bc := range 3 {
				if bc > 0 {
					sb.WriteString(" | ")
				}
				sb.WriteString(f(br*3 + bc))
			}
			sb.WriteString("\n")
		}
		blocks(func(bd int) string {
			for side, p := range []nineboard.Player{nineboard.X, nineboard.O} {
				if b.Won(p)>>bd&1 != 0 {
					return fmt.Sprintf("board %d:", bd+1) + w.stone(side, false, false)
				}
			}
			if open[bd] {
				return w.paint(fmt.Sprintf(">board %d<", bd+1), bold, green)
			}
			return fmt.Sprintf(" board %d ", bd+1)
		})
		for cr := range 3 {
			blocks(func(bd int) string {
				var cells strings.Builder
				for cc := range 3 {
					c := cr*3 + cc
					mark := last != nineboard.NoMove && last == nineboard.NewMove(bd, c)
					side, taken := b.At(bd, c)
					switch {
					case taken && mark:
						cells.WriteString("[" + w.stone(int(side), true, false) + "]")
					case taken:
						cells.WriteString(" " + w.stone(int(side), false, false) + " ")
					case open[bd]:
						cells.WriteString(" " + w.paint(strconv.Itoa(c+1), green) + " ")
					default:
						cells.WriteString(" " + w.paint(".", dim) + " ")
					}
				}
				return cells.String()
			})
		}
	}
	w.board(sb.String())
}

package terminal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/player"
)

// hintDepth is the depth of the engine's search for a hint: deeper than
// the default opponent (engine:depth=8), and still quick: about 70 ms a
// move against random, against 5 ms at depth 8 (docs/benchmarks.md).
const hintDepth = 10

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
	g := &nineboardGame{Nineboard: n, b: nineboard.NewBoard(n.Variant)}
	for side, s := range []player.Spec{n.X, n.O} {
		if s.Kind == player.Human {
			continue
		}
		p, err := player.NewNineboard(s)
		if err != nil {
			return Tally{}, err
		}
		g.programs[side] = p
	}
	return series(ctx, g, o)
}

// nineboardGame is the loop's view of a nine-board game. A move is a
// nineboard.Move.
type nineboardGame struct {
	Nineboard
	b        *nineboard.Board
	programs [2]*player.Nineboard // nil for a person
	hints    *player.Nineboard
	moves    []nineboard.Move
	opening  int // moves made by the referee
}

func (g *nineboardGame) start(_ context.Context, rng *rand.Rand) (string, error) {
	g.b.Reset(g.Variant)
	g.moves = g.moves[:0]
	for _, p := range g.programs {
		if p != nil {
			p.Clear()
		}
	}
	g.opening = 0
	if g.Variant != nineboard.FirstTriple {
		return "", nil
	}
	m := nineboard.RandomOpening(rng)
	g.play(int(m))
	g.opening = 1
	return fmt.Sprintf("the referee makes X's first move: %s", m), nil
}

func (g *nineboardGame) toMove() int         { return int(g.b.Side()) }
func (g *nineboardGame) human(side int) bool { return g.programs[side] == nil }

func (g *nineboardGame) play(m int) {
	g.b.Make(nineboard.Move(m))
	g.moves = append(g.moves, nineboard.Move(m))
}

func (g *nineboardGame) takeBack() {
	g.b.Unmake()
	g.moves = g.moves[:len(g.moves)-1]
}
func (g *nineboardGame) undoable() int { return g.b.Ply() - g.opening }
func (g *nineboardGame) moveText(m int) string {
	return nineboard.Move(m).String()
}

func (g *nineboardGame) players() [2]string { return [2]string{g.X.String(), g.O.String()} }

func (g *nineboardGame) title() string { return "nine-board tic-tac-toe (" + g.Variant.String() + ")" }

func (g *nineboardGame) syntax() string {
	if g.b.Next() != nineboard.AnyBoard {
		return fmt.Sprintf("board:cell or a cell of board %d", g.b.Next()+1)
	}
	return "board:cell"
}

// record is the moves as a match writes them, the referee's first.
func (g *nineboardGame) record() string {
	ms := make([]string, len(g.moves))
	for i, m := range g.moves {
		ms[i] = m.String()
	}
	return strings.Join(ms, " ")
}

func (g *nineboardGame) result() (outcome, string) {
	last := g.b.LastMove()
	switch r := g.b.Result(); {
	case r == nineboard.Ongoing:
		return ongoing, ""
	case r == nineboard.Draw && g.Variant == nineboard.FirstTriple:
		return drawn, fmt.Sprintf("%s is sent to board %d, which is full", strings.ToUpper(g.b.Side().String()), last.Cell()+1)
	case r == nineboard.Draw:
		return drawn, "no board is left to play in"
	case g.Variant == nineboard.FirstTriple:
		return outcome(r), fmt.Sprintf("three in a row in board %d", last.Board()+1)
	default:
		return outcome(r), "three boards in a row"
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
	var m nineboard.Move
	if c, err := strconv.Atoi(s); err == nil && !strings.ContainsAny(s, ":,") {
		if g.b.Next() == nineboard.AnyBoard {
			return 0, fmt.Errorf("not a move: %q: any board may be played, so say which: board:cell", s)
		}
		if c < 1 || c > 9 {
			return 0, fmt.Errorf("off the board: %d: cells are 1 to 9", c)
		}
		m = nineboard.NewMove(g.b.Next(), c-1)
	} else if m, err = parseMove(s); err != nil {
		return 0, err
	}
	if g.b.Legal(m) {
		return int(m), nil
	}
	if _, taken := g.b.At(m.Board(), m.Cell()); taken {
		return 0, fmt.Errorf("occupied: %s", m)
	}
	if next := g.b.Next(); next != nineboard.AnyBoard {
		return 0, fmt.Errorf("wrong board: %s: play in board %d", m, next+1)
	}
	return 0, fmt.Errorf("closed: %s: board %d is won or full", m, m.Board()+1)
}

func (g *nineboardGame) think(ctx context.Context, rng *rand.Rand) (int, error) {
	info, err := g.programs[g.toMove()].Move(ctx, g.b, rng)
	return int(info.Move), err
}

func (g *nineboardGame) hint(ctx context.Context) (string, error) {
	if g.hints == nil {
		g.hints, _ = player.NewNineboard(player.Spec{Kind: player.Engine, Depth: hintDepth})
	}
	info, err := g.hints.Move(ctx, g.b, nil)
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
	if g.b.Result() == nineboard.Ongoing {
		var buf [81]nineboard.Move
		for _, m := range g.b.Moves(buf[:0]) {
			open[m.Board()] = true
		}
	}
	last := g.b.LastMove()
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
				if g.b.Won(p)>>bd&1 != 0 {
					return fmt.Sprintf("board %d:", bd+1) + w.stone(side, false)
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
					side, taken := g.b.At(bd, c)
					switch {
					case taken && mark:
						cells.WriteString("[" + w.stone(int(side), true) + "]")
					case taken:
						cells.WriteString(" " + w.stone(int(side), false) + " ")
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

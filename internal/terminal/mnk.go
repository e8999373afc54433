package terminal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/player"
)

// MaxPerfectCells is the largest board the perfect player plays, and the
// largest on which hints are exact.
const MaxPerfectCells = player.MaxPerfectCells

// hintTime is the engine's time for a hint on a board too big to solve.
const hintTime = time.Second

// MNKSeat is a side of an m,n,k-game.
type MNKSeat struct {
	Spec player.Spec
	// Player makes the moves; nil when Spec is human: the person at the
	// keyboard types them.
	Player player.Player
}

// MNK is an m,n,k-game to play: the board, the two sides, and the player
// that answers h.
type MNK struct {
	Game *mnk.Game
	X, O MNKSeat
	// Hint suggests moves, and HintSpec says what it is; when Hint is nil,
	// HintErr says why there are no hints.
	Hint     player.Player
	HintSpec player.Spec
	HintErr  error
}

// NewMNK makes the players of g named by x and o, and the hint: the
// perfect player on boards of up to MaxPerfectCells, otherwise the engine
// with a second per move. A hint that cannot be made is no error: h says
// why.
func NewMNK(g *mnk.Game, x, o player.Spec) (MNK, error) {
	m := MNK{Game: g, X: MNKSeat{Spec: x}, O: MNKSeat{Spec: o}}
	for _, s := range []*MNKSeat{&m.X, &m.O} {
		if s.Spec.Kind == player.Human {
			continue
		}
		if s.Spec.Kind == player.Perfect && g.Cells() > MaxPerfectCells {
			return MNK{}, fmt.Errorf("player perfect: perfect plays boards of up to %d cells", MaxPerfectCells)
		}
		p, err := player.New(s.Spec, g)
		if err != nil {
			return MNK{}, err
		}
		s.Player = p
	}
	m.HintSpec = player.Spec{Kind: player.Perfect}
	if g.Cells() > MaxPerfectCells {
		m.HintSpec = player.Spec{Kind: player.Engine, Time: hintTime}
	}
	m.Hint, m.HintErr = player.New(m.HintSpec, g)
	return m, nil
}

// PlayMNK plays a series of m's game.
func PlayMNK(ctx context.Context, m MNK, o Options) (Tally, error) {
	return series(ctx, &mnkGame{MNK: m}, o)
}

// mnkGame is the loop's view of an m,n,k-game. A move is a cell,
// mnk.Cell(row, col).
type mnkGame struct {
	MNK
	pos   mnk.Position
	res   mnk.Result
	moves []int
}

func (g *mnkGame) start(context.Context, *rand.Rand) (string, error) {
	g.pos, g.res, g.moves = mnk.Position{}, mnk.Ongoing, g.moves[:0]
	return "", nil
}

func (g *mnkGame) seat(side int) MNKSeat {
	if side == 0 {
		return g.X
	}
	return g.O
}

func (g *mnkGame) toMove() int {
	if g.pos.XToMove() {
		return 0
	}
	return 1
}

func (g *mnkGame) human(side int) bool { return g.seat(side).Player == nil }

func (g *mnkGame) result() (outcome, string) {
	switch g.res {
	case mnk.XWin:
		return xWins, ""
	case mnk.OWin:
		return oWins, ""
	case mnk.Draw:
		return drawn, ""
	}
	return ongoing, ""
}

func (g *mnkGame) play(cell int) {
	g.pos, g.res = g.Game.Play(g.pos, cell)
	g.moves = append(g.moves, cell)
}

func (g *mnkGame) takeBack() {
	last := uint64(1) << g.moves[len(g.moves)-1]
	g.moves = g.moves[:len(g.moves)-1]
	g.pos.X &^= last
	g.pos.O &^= last
	g.res = mnk.Ongoing
}

func (g *mnkGame) undoable() int { return len(g.moves) }

// number is a cell's number as a person types it: 1 to rows*cols, row-major.
func (g *mnkGame) number(cell int) int { return cell/8*g.Game.Cols + cell%8 + 1 }

func (g *mnkGame) moveText(cell int) string {
	return fmt.Sprintf("%d,%d (%d)", cell/8, cell%8, g.number(cell))
}

func (g *mnkGame) record() string {
	s := make([]string, len(g.moves))
	for i, c := range g.moves {
		s[i] = fmt.Sprintf("%d,%d", c/8, c%8)
	}
	return strings.Join(s, " ")
}

func (g *mnkGame) syntax() string {
	return fmt.Sprintf("row,col or 1-%d", g.Game.Cells())
}

func (g *mnkGame) players() [2]string { return [2]string{g.X.Spec.String(), g.O.Spec.String()} }

func (g *mnkGame) title() string {
	return fmt.Sprintf("%dx%d, %d in a row", g.Game.Rows, g.Game.Cols, g.Game.K)
}

// parse reads "row,col" (from 0) or a cell number (from 1, row-major).
func (g *mnkGame) parse(s string) (int, error) {
	rows, cols := g.Game.Rows, g.Game.Cols
	var r, c int
	if rs, cs, ok := strings.Cut(s, ","); ok {
		var err1, err2 error
		r, err1 = strconv.Atoi(strings.TrimSpace(rs))
		c, err2 = strconv.Atoi(strings.TrimSpace(cs))
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("not a move: %q: want row,col or a cell number", s)
		}
		if r < 0 || r >= rows || c < 0 || c >= cols {
			return 0, fmt.Errorf("off the board: %s: rows 0 to %d, columns 0 to %d", s, rows-1, cols-1)
		}
	} else {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("not a move: %q: want row,col or a cell number", s)
		}
		if n < 1 || n > rows*cols {
			return 0, fmt.Errorf("off the board: %d: cells 1 to %d", n, rows*cols)
		}
		r, c = (n-1)/cols, (n-1)%cols
	}
	cell := mnk.Cell(r, c)
	if g.Game.Empty(g.pos)>>cell&1 == 0 {
		return 0, fmt.Errorf("occupied: %s", g.moveText(cell))
	}
	return cell, nil
}

func (g *mnkGame) think(ctx context.Context, rng *rand.Rand) (int, error) {
	p := g.seat(g.toMove())
	ch, err := p.Player.Move(ctx, g.pos, rng)
	if err != nil {
		return 0, fmt.Errorf("player %s: %w", p.Spec, err)
	}
	if ch.Cell < 0 || ch.Cell > 63 || g.Game.Empty(g.pos)>>ch.Cell&1 == 0 {
		return 0, fmt.Errorf("player %s: cell %d is not an empty cell of the board", p.Spec, ch.Cell)
	}
	return ch.Cell, nil
}

func (g *mnkGame) hint(ctx context.Context) (string, error) {
	if g.Hint == nil {
		if g.HintErr == nil {
			return "", errors.New("no player for hints")
		}
		return "", g.HintErr
	}
	ch, err := g.Hint.Move(ctx, g.pos, nil)
	if err != nil {
		return "", err
	}
	move := g.moveText(ch.Cell)
	if g.HintSpec.Kind == player.Perfect {
		switch ch.Value {
		case mnk.Win:
			return fmt.Sprintf("%s, a win, the game ending %s (perfect)", move, plies(ch.Plies)), nil
		case mnk.Loss:
			return fmt.Sprintf("%s, a loss, the game ending %s (perfect)", move, plies(ch.Plies)), nil
		}
		return fmt.Sprintf("%s, a draw (perfect)", move), nil
	}
	const mateBound = search.Mate - 64
	switch {
	case ch.Score > mateBound:
		return fmt.Sprintf("%s, a win, the game ending %s (%s, depth %d)", move, plies(search.Mate-ch.Score), g.HintSpec, ch.Depth), nil
	case ch.Score < -mateBound:
		return fmt.Sprintf("%s, a loss, the game ending %s (%s, depth %d)", move, plies(search.Mate+ch.Score), g.HintSpec, ch.Depth), nil
	}
	return fmt.Sprintf("%s, score %+d (%s, depth %d)", move, ch.Score, g.HintSpec, ch.Depth), nil
}

// plies says "in N plies".
func plies(n int) string {
	if n == 1 {
		return "in 1 ply"
	}
	return fmt.Sprintf("in %d plies", n)
}

// draw writes the board with its coordinates: columns above, rows on the
// left, each empty cell showing its number, the last move in brackets.
//
//	    0   1   2
//	  +---+---+---+
//	0 | X | 2 | 3 |
//	  +---+---+---+
//	1 | 4 |[O]| 6 |
//	  +---+---+---+
//	2 | 7 | 8 | X |
//	  +---+---+---+
func (g *mnkGame) draw(w *output) {
	rows, cols := g.Game.Rows, g.Game.Cols
	width := len(strconv.Itoa(rows * cols)) // of a cell's number
	last := -1
	if len(g.moves) > 0 {
		last = g.moves[len(g.moves)-1]
	}
	var b strings.Builder
	rule := "    +" + strings.Repeat(strings.Repeat("-", width+2)+"+", cols) + "\n"
	b.WriteString("    ")
	for c := range cols {
		if c > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, " %*d", width+1, c)
	}
	b.WriteString("\n" + rule)
	for r := range rows {
		fmt.Fprintf(&b, "%3d |", r)
		for c := range cols {
			cell := mnk.Cell(r, c)
			bit := uint64(1) << cell
			open, shut := " ", " "
			if cell == last {
				open, shut = "[", "]"
			}
			pad := strings.Repeat(" ", width-1)
			switch {
			case g.pos.X&bit != 0:
				b.WriteString(pad + open + w.stone(0, cell == last) + shut + "|")
			case g.pos.O&bit != 0:
				b.WriteString(pad + open + w.stone(1, cell == last) + shut + "|")
			default:
				fmt.Fprintf(&b, " %s |", w.paint(fmt.Sprintf("%*d", width, g.number(cell)), dim))
			}
		}
		b.WriteString("\n" + rule)
	}
	w.board(b.String())
}

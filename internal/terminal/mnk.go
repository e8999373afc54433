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
	"github.com/woprlabs/wopr/pkg/game"
	"github.com/woprlabs/wopr/pkg/player"
)

// MaxPerfectCells is the largest board the perfect player plays, and the
// largest on which hints are exact.
const MaxPerfectCells = player.MaxPerfectCells

// hintTime is the engine's time for a hint on a board too big to solve.
const hintTime = time.Second

// MNKSeat is a side of an m,n,k-game. Its Player makes the moves; it is
// nil when Spec is human: the person at the keyboard types them.
type MNKSeat = game.MNKSeat

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
	// Start are the moves every game of the series starts from (a kept
	// game, analyze play --moves), row and column from 0.
	Start [][2]int
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
	g, err := newMNKGame(m)
	if err != nil {
		return Tally{}, err
	}
	return series(ctx, g, o)
}

// mnkGame is the loop's view of an m,n,k-game. A move is a cell,
// mnk.Cell(row, col), as the players choose them.
type mnkGame struct {
	MNK
	s *game.MNK
}

func newMNKGame(m MNK) (*mnkGame, error) {
	s, err := game.NewMNK(m.Game.Rows, m.Game.Cols, m.Game.K)
	if err != nil {
		return nil, err
	}
	return &mnkGame{MNK: m, s: s}, nil
}

// index is cell's number in the game, row*cols+col.
func (g *mnkGame) index(cell int) int { return cell/8*g.Game.Cols + cell%8 }

// cell is the mnk.Cell of the game's cell i.
func (g *mnkGame) cell(i int) int { return mnk.Cell(i/g.Game.Cols, i%g.Game.Cols) }

func (g *mnkGame) start(context.Context, *rand.Rand) (string, error) {
	g.s.Reset()
	if len(g.Start) == 0 {
		return "", nil
	}
	if err := g.s.PlayRecord(g.Start); err != nil {
		return "", err
	}
	if g.s.Result() != mnk.Ongoing {
		return "", fmt.Errorf("game %s: the game is over", g.s.Record())
	}
	return fmt.Sprintf("from %s", g.s.Record()), nil
}

func (g *mnkGame) export() string { return g.s.Record().String() }

func (g *mnkGame) seat(side int) MNKSeat {
	if side == 0 {
		return g.X
	}
	return g.O
}

func (g *mnkGame) toMove() int {
	if g.s.XToMove() {
		return 0
	}
	return 1
}

func (g *mnkGame) human(side int) bool { return g.seat(side).Player == nil }

func (g *mnkGame) result() (outcome, string) {
	switch g.s.Result() {
	case mnk.XWin:
		return xWins, ""
	case mnk.OWin:
		return oWins, ""
	case mnk.Draw:
		return drawn, ""
	}
	return ongoing, ""
}

func (g *mnkGame) play(cell int) { g.s.Play(g.index(cell)) }

func (g *mnkGame) takeBack() { g.s.TakeBack() }

func (g *mnkGame) undoable() int { return len(g.s.Moves()) - len(g.Start) }

// number is a cell's number as a person types it: from 0, row-major, as
// rows and columns are numbered (0 to rows*cols-1).
func (g *mnkGame) number(cell int) int { return cell/8*g.Game.Cols + cell%8 }

func (g *mnkGame) moveText(cell int) string {
	return fmt.Sprintf("%d,%d (%d)", cell/8, cell%8, g.number(cell))
}

func (g *mnkGame) record() string {
	moves := g.s.Moves()
	s := make([]string, len(moves))
	for i, c := range moves {
		s[i] = fmt.Sprintf("%d,%d", c/g.Game.Cols, c%g.Game.Cols)
	}
	return strings.Join(s, " ")
}

func (g *mnkGame) syntax() string {
	return fmt.Sprintf("row,col or 0-%d", g.Game.Cells()-1)
}

func (g *mnkGame) players() [2]string { return [2]string{g.X.Spec.String(), g.O.Spec.String()} }

func (g *mnkGame) title() string {
	return fmt.Sprintf("%dx%d, %d in a row", g.Game.Rows, g.Game.Cols, g.Game.K)
}

// parse reads "row,col" or a cell number, row-major, all from 0.
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
		if n < 0 || n >= rows*cols {
			return 0, fmt.Errorf("off the board: %d: cells 0 to %d", n, rows*cols-1)
		}
		r, c = n/cols, n%cols
	}
	cell := mnk.Cell(r, c)
	if g.s.Refuse(r, c)&game.Taken != 0 {
		return 0, fmt.Errorf("occupied: %s", g.moveText(cell))
	}
	return cell, nil
}

func (g *mnkGame) think(ctx context.Context, rng *rand.Rand) (int, error) {
	i, err := g.s.Reply(ctx, g.seat(g.toMove()), rng)
	return g.cell(i), err
}

func (g *mnkGame) hint(ctx context.Context) (string, error) {
	if g.Hint == nil {
		if g.HintErr == nil {
			return "", errors.New("no player for hints")
		}
		return "", g.HintErr
	}
	ch, err := g.Hint.Move(ctx, g.s.Position(), nil)
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
// left, each empty cell showing its number, the last move in brackets, and,
// once the game is won, the winning line between stars (and in colour).
//
//	    0   1   2
//	  +---+---+---+
//	0 | X | 1 | 2 |
//	  +---+---+---+
//	1 | 3 |[O]| 5 |
//	  +---+---+---+
//	2 | 6 | 7 | X |
//	  +---+---+---+
func (g *mnkGame) draw(w *output) {
	rows, cols := g.Game.Rows, g.Game.Cols
	width := len(strconv.Itoa(rows*cols - 1)) // of a cell's number
	board, moves := g.s.Board(), g.s.Moves()
	last := -1
	if len(moves) > 0 {
		last = g.cell(moves[len(moves)-1])
	}
	win := map[int]bool{} // the winning line's cells, row*cols+col
	for _, i := range g.s.Line() {
		win[i] = true
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
			open, shut := " ", " "
			switch {
			case win[r*cols+c]:
				open, shut = "*", "*"
			case cell == last:
				open, shut = "[", "]"
			}
			pad := strings.Repeat(" ", width-1)
			switch stone := board[r*cols+c]; stone {
			case 1, 2:
				b.WriteString(pad + open + w.stone(int(stone)-1, cell == last, win[r*cols+c]) + shut + "|")
			default:
				fmt.Fprintf(&b, " %s |", w.paint(fmt.Sprintf("%*d", width, g.number(cell)), dim))
			}
		}
		b.WriteString("\n" + rule)
	}
	w.board(b.String())
}

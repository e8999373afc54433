package game

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/player"
)

// NineboardHintDepth is the depth of the engine that hints and analyses
// nine-board positions: deeper than analyze nineboard play's default
// opponent (engine:depth=8), and still quick: about 70 ms a move against
// random, against 5 ms at depth 8 (docs/benchmarks.md).
const NineboardHintDepth = 10

// NineboardSeat is a side of a nine-board game: a person (player.Human),
// whose moves a face reads and who has no Reply, or a nine-board player
// of pkg/player.
type NineboardSeat struct {
	Spec player.Spec
	// Player makes the program's moves. When it is nil, Reply makes one
	// for each move, its table empty: an engine's table is megabytes, too
	// much for an idle game to keep.
	Player *player.Nineboard
}

// Nineboard is a nine-board game in progress: the board, the moves played
// (the referee's opening first), and the result with its reason.
type Nineboard struct {
	b       *nineboard.Board
	moves   []nineboard.Move
	opening int // moves made by the referee
}

// NewNineboard returns the empty board of variant v.
func NewNineboard(v nineboard.Variant) *Nineboard {
	return &Nineboard{b: nineboard.NewBoard(v)}
}

// NineboardAt returns a game from a copy of b, whose moves are not known:
// Moves lists only the moves played from b, and none before can be taken
// back.
func NineboardAt(b *nineboard.Board) *Nineboard {
	c := *b
	return &Nineboard{b: &c}
}

// Open makes the referee's first move for X in first-triple, a board and
// a cell drawn from rng (nineboard.RandomOpening) as matches draw it, and
// returns it; in ultimate there is none, and it returns nineboard.NoMove.
// The game must be new.
func (g *Nineboard) Open(rng *rand.Rand) nineboard.Move {
	if g.b.Variant() != nineboard.FirstTriple {
		return nineboard.NoMove
	}
	m := nineboard.RandomOpening(rng)
	g.Play(m)
	g.opening = 1
	return m
}

// Variant is the game's rule set.
func (g *Nineboard) Variant() nineboard.Variant { return g.b.Variant() }

// Reset takes every move back, the referee's too.
func (g *Nineboard) Reset() {
	g.b.Reset(g.b.Variant())
	g.moves, g.opening = g.moves[:0], 0
}

// Clone returns a copy of g that shares nothing that changes.
func (g *Nineboard) Clone() *Nineboard {
	b := *g.b
	return &Nineboard{b: &b, moves: slices.Clone(g.moves), opening: g.opening}
}

// Board returns a copy of the board.
func (g *Nineboard) Board() *nineboard.Board {
	b := *g.b
	return &b
}

// Moves returns the moves played, the referee's first.
func (g *Nineboard) Moves() []nineboard.Move { return slices.Clone(g.moves) }

// RefereeMoves is the number of moves the referee made (Open).
func (g *Nineboard) RefereeMoves() int { return g.opening }

// Undoable is the number of moves TakeBack may take back: not the
// referee's.
func (g *Nineboard) Undoable() int { return len(g.moves) - g.opening }

// ToMove is the side to move.
func (g *Nineboard) ToMove() nineboard.Player { return g.b.Side() }

// Result is the state of the game.
func (g *Nineboard) Result() nineboard.Result { return g.b.Result() }

// Why says why the game is over, or "" while it goes on.
func (g *Nineboard) Why() string {
	last := g.b.LastMove()
	first := g.b.Variant() == nineboard.FirstTriple
	switch r := g.b.Result(); {
	case r == nineboard.Ongoing:
		return ""
	case r == nineboard.Draw && first:
		return fmt.Sprintf("%s is sent to board %d, which is full", strings.ToUpper(g.b.Side().String()), last.Cell()+1)
	case r == nineboard.Draw:
		return "no board is left to play in"
	case first:
		return fmt.Sprintf("three in a row in board %d", last.Board()+1)
	}
	return "three boards in a row"
}

// winner is the side that won, and whether one did.
func (g *Nineboard) winner() (nineboard.Player, bool) {
	switch g.b.Result() {
	case nineboard.XWin:
		return nineboard.X, true
	case nineboard.OWin:
		return nineboard.O, true
	}
	return 0, false
}

// WinningLine returns the cells of the lines of three through the last
// move, in order, when it won a first-triple game; nil otherwise.
func (g *Nineboard) WinningLine() []nineboard.Move {
	p, won := g.winner()
	if !won || g.b.Variant() != nineboard.FirstTriple {
		return nil
	}
	last := g.b.LastMove()
	var line []nineboard.Move
	for _, c := range linesThrough(g.b.Cells(p, last.Board()), last.Cell()) {
		line = append(line, nineboard.NewMove(last.Board(), c))
	}
	return line
}

// WinningBoards returns the boards (0-8) of the lines of three won boards
// through the last move's board, in order, when it won an ultimate game;
// nil otherwise.
func (g *Nineboard) WinningBoards() []int {
	p, won := g.winner()
	if !won || g.b.Variant() != nineboard.Ultimate {
		return nil
	}
	return linesThrough(g.b.Won(p), g.b.LastMove().Board())
}

// nineLines are the lines of a 3x3 board (and of the grid of boards) as
// 9-bit masks, cell c bit c.
var nineLines = [8]uint16{0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124}

// linesThrough returns the cells (0-8) of the lines of a 3x3 board that
// mask fills through cell, in order.
func linesThrough(mask uint16, cell int) []int {
	var in uint16
	for _, l := range nineLines {
		if mask&l == l && l>>cell&1 != 0 {
			in |= l
		}
	}
	var out []int
	for ; in != 0; in &= in - 1 {
		out = append(out, bits.TrailingZeros16(in))
	}
	return out
}

// Playable returns the boards (0-8) the side to move may play in, in
// order; none once the game is over.
func (g *Nineboard) Playable() []int {
	var buf [81]nineboard.Move
	var open uint16
	for _, m := range g.b.Moves(buf[:0]) {
		open |= 1 << m.Board()
	}
	var boards []int
	for ; open != 0; open &= open - 1 {
		boards = append(boards, bits.TrailingZeros16(open))
	}
	return boards
}

// Refuse returns why the side to move may not play m (a board and a cell,
// 0-8 each) now: Over (the only reason once the game is over), OffBoard,
// or any of Taken, WrongBoard and Closed; 0 if it may.
func (g *Nineboard) Refuse(m nineboard.Move) Reasons {
	switch {
	case g.b.Result() != nineboard.Ongoing:
		return Over
	case m > 80:
		return OffBoard
	case g.b.Legal(m):
		return 0
	}
	var r Reasons
	bd := m.Board()
	stones := g.b.Cells(nineboard.X, bd) | g.b.Cells(nineboard.O, bd)
	if stones>>m.Cell()&1 != 0 {
		r |= Taken
	}
	if next := g.b.Next(); next != nineboard.AnyBoard && next != bd {
		r |= WrongBoard
	}
	if stones == 0777 || (g.b.Won(nineboard.X)|g.b.Won(nineboard.O))>>bd&1 != 0 {
		r |= Closed
	}
	return r
}

// Play makes m, which must be legal.
func (g *Nineboard) Play(m nineboard.Move) {
	if !g.b.Legal(m) {
		panic(fmt.Sprintf("game: play %v: not a legal move", m))
	}
	g.b.Make(m)
	g.moves = append(g.moves, m)
}

// TakeBack takes back the last move; Undoable must be at least 1.
func (g *Nineboard) TakeBack() {
	if g.Undoable() < 1 {
		panic("game: take back: no move of the players to take back")
	}
	g.b.Unmake()
	g.moves = g.moves[:len(g.moves)-1]
}

// Reply returns seat's move for the side to move, which it does not play,
// with the engine's search (see player.Nineboard.Move). The game must be
// going on. A search cut short by ctx is no move: the error is ctx's.
func (g *Nineboard) Reply(ctx context.Context, seat NineboardSeat, rng *rand.Rand) (nineboard.Info, error) {
	p := seat.Player
	if p == nil {
		var err error
		if p, err = player.NewNineboard(seat.Spec); err != nil {
			return nineboard.Info{}, err
		}
	}
	info, err := p.Move(ctx, g.b, rng)
	if err != nil {
		return info, err
	}
	if !g.b.Legal(info.Move) {
		return info, fmt.Errorf("player %s chose %v, not a legal move", seat.Spec, info.Move)
	}
	return info, nil
}

package game

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/player"
)

// tableBytes is the table of an analysis's search, and of an engine's
// reply on a board too big for pkg/player's players (which size their own
// tables).
const tableBytes = 16 << 20

// MNKSeat is a side of an m,n,k-game: a person (player.Human), whose
// moves a face reads and who has no Reply, or a program of pkg/player.
type MNKSeat struct {
	Spec player.Spec
	// Player makes the program's moves on boards of up to mnk.MaxSide on a
	// side. When it is nil, Reply makes one for each move: an engine
	// player owns a table of megabytes, too much for an idle game to keep.
	// On bigger boards Reply plays Spec itself: random, or the engine's
	// search.BigSearcher.
	Player player.Player
}

// MNK is an m,n,k-game in progress. Its cells are numbered row*cols+col,
// as search.BigPosition numbers them (not as mnk.Cell does). A board of up to
// mnk.MaxSide on a side is the engine's mnk.Game, on which the players of
// pkg/player play; a bigger one (gomoku's 15x15) is its search.BigGame, on
// which the random player and search.BigSearcher do.
type MNK struct {
	rows, cols, k int
	small         *mnk.Game       // boards of up to mnk.MaxSide on a side, else nil
	big           *search.BigGame // the others

	board  search.BigPosition // 0 empty, 1 X, 2 O
	pos    mnk.Position       // board, on small's bitboards
	moves  []int
	result mnk.Result
	line   []int // the winning lines' cells, sorted
}

// NewMNK returns the empty board of rows x cols, k in a row. The error is
// the engine's.
func NewMNK(rows, cols, k int) (*MNK, error) {
	g := &MNK{rows: rows, cols: cols, k: k}
	var err error
	if rows <= mnk.MaxSide && cols <= mnk.MaxSide {
		g.small, err = mnk.New(rows, cols, k)
	} else {
		g.big, err = search.NewBig(rows, cols, k)
	}
	if err != nil {
		return nil, err
	}
	g.board = make(search.BigPosition, rows*cols)
	return g, nil
}

// Rows is the number of rows of the board.
func (g *MNK) Rows() int { return g.rows }

// Cols is the number of columns of the board.
func (g *MNK) Cols() int { return g.cols }

// K is the length of a winning line.
func (g *MNK) K() int { return g.k }

// Exact says whether the perfect player plays the board: at most
// player.MaxPerfectCells cells and mnk.MaxSide on a side. There a seat may
// be perfect, and Analyse is perfect play's.
func (g *MNK) Exact() bool { return g.small != nil && g.small.Cells() <= player.MaxPerfectCells }

// Reset takes every move back.
func (g *MNK) Reset() {
	clear(g.board)
	g.pos, g.moves, g.result, g.line = mnk.Position{}, g.moves[:0], mnk.Ongoing, nil
}

// Clone returns a copy of g that shares nothing that changes.
func (g *MNK) Clone() *MNK {
	c := *g
	c.board, c.moves, c.line = slices.Clone(g.board), slices.Clone(g.moves), slices.Clone(g.line)
	return &c
}

// Board returns the board, a cell per byte: 0 empty, 1 X, 2 O.
func (g *MNK) Board() search.BigPosition { return slices.Clone(g.board) }

// Position returns the board as a position of the engine's mnk.Game, on
// boards of up to mnk.MaxSide on a side (the players' positions).
func (g *MNK) Position() mnk.Position { return g.pos }

// Moves returns the cells played, X's first.
func (g *MNK) Moves() []int { return slices.Clone(g.moves) }

// XToMove says whether X is to move: as many X as O stones.
func (g *MNK) XToMove() bool { return len(g.moves)%2 == 0 }

// Result is the state of the game.
func (g *MNK) Result() mnk.Result { return g.result }

// Line returns the cells of the lines of at least k stones through the
// last move, sorted, when it won the game; nil otherwise.
func (g *MNK) Line() []int { return slices.Clone(g.line) }

// Refuse returns why the side to move may not play (row, col) now: Over
// (the only reason once the game is over), OffBoard or Taken; 0 if it
// may.
func (g *MNK) Refuse(row, col int) Reasons {
	switch {
	case g.result != mnk.Ongoing:
		return Over
	case row < 0 || row >= g.rows || col < 0 || col >= g.cols:
		return OffBoard
	case g.board[row*g.cols+col] != 0:
		return Taken
	}
	return 0
}

// Play puts the side to move's stone on cell and judges the game by the
// engine's rules. The game must be going on and the cell empty.
func (g *MNK) Play(cell int) {
	if g.result != mnk.Ongoing || cell < 0 || cell >= len(g.board) || g.board[cell] != 0 {
		panic(fmt.Sprintf("game: play cell %d: not an empty cell of a %dx%d game going on", cell, g.rows, g.cols))
	}
	side := int8(1)
	if !g.XToMove() {
		side = 2
	}
	g.board[cell] = side
	g.moves = append(g.moves, cell)
	if g.small != nil {
		g.pos, g.result = g.small.Play(g.pos, mnk.Cell(cell/g.cols, cell%g.cols))
	} else {
		g.result = g.big.Status(g.board)
	}
	g.line = nil
	if g.result == mnk.XWin || g.result == mnk.OWin {
		g.line = g.lineThrough(cell)
	}
}

// TakeBack takes back the last move; there must be one.
func (g *MNK) TakeBack() {
	last := g.moves[len(g.moves)-1]
	g.moves = g.moves[:len(g.moves)-1]
	g.board[last] = 0
	if g.small != nil {
		bit := uint64(1) << mnk.Cell(last/g.cols, last%g.cols)
		g.pos.X &^= bit
		g.pos.O &^= bit
	}
	g.result, g.line = mnk.Ongoing, nil
}

// lineThrough returns the cells of the lines of at least k stones through
// cell, in every direction, sorted.
func (g *MNK) lineThrough(cell int) []int {
	side := g.board[cell]
	r0, c0 := cell/g.cols, cell%g.cols
	line := []int{cell}
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		var run []int
		for _, sign := range [2]int{1, -1} {
			for r, c := r0+sign*d[0], c0+sign*d[1]; r >= 0 && r < g.rows && c >= 0 && c < g.cols && g.board[r*g.cols+c] == side; r, c = r+sign*d[0], c+sign*d[1] {
				run = append(run, r*g.cols+c)
			}
		}
		if len(run)+1 >= g.k {
			line = append(line, run...)
		}
	}
	slices.Sort(line)
	return slices.Compact(line)
}

// Reply returns seat's move for the side to move, which it does not play:
// seat's Player's, or on a board of more than mnk.MaxSide on a side,
// random's (uniform among the empty cells, from rng) or the engine's
// search to Spec's depth or for its time. The game must be going on. The
// error wraps ctx's when the search was cut short.
func (g *MNK) Reply(ctx context.Context, seat MNKSeat, rng *rand.Rand) (int, error) {
	if g.small == nil {
		return g.bigReply(ctx, seat.Spec, rng)
	}
	pl := seat.Player
	if pl == nil {
		var err error
		if pl, err = player.New(seat.Spec, g.small); err != nil {
			return 0, err
		}
	}
	ch, err := pl.Move(ctx, g.pos, rng)
	if err != nil {
		return 0, fmt.Errorf("player %s: %w", seat.Spec, err)
	}
	if ch.Cell < 0 || ch.Cell > 63 || g.small.Empty(g.pos)>>ch.Cell&1 == 0 {
		return 0, fmt.Errorf("player %s: cell %d is not an empty cell of the board", seat.Spec, ch.Cell)
	}
	return ch.Cell/8*g.cols + ch.Cell%8, nil
}

// bigReply is Reply on a board of more than mnk.MaxSide on a side.
func (g *MNK) bigReply(ctx context.Context, s player.Spec, rng *rand.Rand) (int, error) {
	var cell int
	switch s.Kind {
	case player.Random:
		var empty []int
		for i, v := range g.board {
			if v == 0 {
				empty = append(empty, i)
			}
		}
		cell = empty[rng.IntN(len(empty))]
	case player.Engine:
		res, err := search.NewBigSearcher(g.big, tableBytes).Search(ctx, g.board, s.Depth, s.Time)
		if err != nil {
			return 0, fmt.Errorf("player %s: %w", s, err)
		}
		cell = res.Move
	default:
		return 0, fmt.Errorf("player %s: boards of more than %d on a side are played by random and engine players", s, mnk.MaxSide)
	}
	if cell < 0 || cell >= len(g.board) || g.board[cell] != 0 {
		return 0, fmt.Errorf("player %s: cell %d is not an empty cell of the board", s, cell)
	}
	return cell, nil
}

// MNKAnalysis is the view of a position that Analyse takes, for the side
// to move.
type MNKAnalysis struct {
	// Engine is perfect (exact) or the engine's search for a time.
	Engine player.Spec
	// PV is the principal variation, cells, the best move first.
	PV []int
	// Value is the position's value when Known: exact (perfect, or a
	// search that reached the end of every line), or a forced result the
	// search found. Plies counts to the end with best play.
	Value mnk.Value
	Known bool
	Exact bool
	// NearOnly: the forced result holds among the moves near stones, the
	// only ones the engine searches on boards of more than 64 cells (a
	// result within 3 plies holds among all moves).
	NearOnly bool
	Plies    int
	// Score is the search's score for the side to move (0 for perfect);
	// Depth its last complete iteration.
	Score   int
	Depth   int
	Nodes   uint64
	Elapsed time.Duration
}

// Analyse returns the view of the position, which must be going on: the
// perfect player's line where the board is Exact, else the engine's search
// for budget.
func (g *MNK) Analyse(ctx context.Context, budget time.Duration) (MNKAnalysis, error) {
	start := time.Now()
	if g.Exact() {
		a := MNKAnalysis{Engine: player.Spec{Kind: player.Perfect}, Known: true, Exact: true}
		o, err := player.Oracle(g.small)
		if err != nil {
			return a, err
		}
		p := g.pos
		for res := mnk.Ongoing; res == mnk.Ongoing; {
			m, nodes, err := o.Best(ctx, p)
			if err != nil {
				return a, err
			}
			a.Nodes += nodes
			if len(a.PV) == 0 {
				a.Value, a.Plies = m.Value, m.Plies
			}
			a.PV = append(a.PV, m.Cell/8*g.cols+m.Cell%8)
			p, res = g.small.Play(p, m.Cell)
		}
		a.Elapsed = time.Since(start)
		return a, nil
	}
	a := MNKAnalysis{Engine: player.Spec{Kind: player.Engine, Time: budget}}
	var (
		res  search.Result
		err  error
		near bool
	)
	if g.small != nil {
		res, err = search.New(g.small, tableBytes).Search(ctx, g.pos, 0, budget)
		for i, c := range res.PV {
			res.PV[i] = c/8*g.cols + c%8
		}
	} else {
		s := search.NewBigSearcher(g.big, tableBytes)
		res, err = s.Search(ctx, g.board, 0, budget)
		near = s.Near
	}
	if err != nil {
		return a, err
	}
	a.PV, a.Score, a.Depth, a.Nodes = res.PV, res.Score, res.Depth, res.Nodes
	n := res.MatePlies()
	a.NearOnly = near && (n > 3 || n < -3)
	switch {
	case n > 0:
		a.Value, a.Plies, a.Known, a.Exact = mnk.Win, n, true, !a.NearOnly
	case n < 0:
		a.Value, a.Plies, a.Known, a.Exact = mnk.Loss, -n, true, !a.NearOnly
	case res.Exhaustive:
		a.Value, a.Known, a.Exact = mnk.Drawn, true, true
	}
	a.Elapsed = time.Since(start)
	return a, nil
}

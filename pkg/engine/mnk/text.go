package mnk

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSyntax reports text that Parse or ParseMoves cannot read.
var ErrSyntax = errors.New("syntax error")

// String returns p as rows of 'X', 'O' and '.', top row first, separated by
// '/', e.g. "X.O/.X./..." for 3x3. Stones outside the board are not shown.
func (g *Game) String(p Position) string {
	var sb strings.Builder
	sb.Grow(g.Rows * (g.Cols + 1))
	for r := range g.Rows {
		if r > 0 {
			sb.WriteByte('/')
		}
		for c := range g.Cols {
			bit := uint64(1) << Cell(r, c)
			switch {
			case p.X&bit != 0:
				sb.WriteByte('X')
			case p.O&bit != 0:
				sb.WriteByte('O')
			default:
				sb.WriteByte('.')
			}
		}
	}
	return sb.String()
}

// Parse reads a position in the format of String ('x' and 'o' are accepted
// too) and checks that it is valid (see Valid). Errors wrap ErrSyntax or
// ErrInvalidPosition and name the row and column at fault.
func (g *Game) Parse(s string) (Position, error) {
	rows := strings.Split(s, "/")
	if len(rows) != g.Rows {
		return Position{}, fmt.Errorf("parse %q: %d rows, want %d for a %dx%d board: %w", s, len(rows), g.Rows, g.Rows, g.Cols, ErrSyntax)
	}
	var p Position
	for r, row := range rows {
		if len(row) != g.Cols {
			return Position{}, fmt.Errorf("parse %q: row %d has %d cells, want %d: %w", s, r, len(row), g.Cols, ErrSyntax)
		}
		for c := range g.Cols {
			bit := uint64(1) << Cell(r, c)
			switch row[c] {
			case 'X', 'x':
				p.X |= bit
			case 'O', 'o':
				p.O |= bit
			case '.':
			default:
				return Position{}, fmt.Errorf("parse %q: row %d column %d: %q, want X, O or '.': %w", s, r, c, row[c], ErrSyntax)
			}
		}
	}
	if err := g.Valid(p); err != nil {
		return Position{}, err // it names the board
	}
	return p, nil
}

// ParseMoves plays a game from the empty board and returns the position
// reached. The moves are "row,col" pairs, 0-based, separated by spaces, e.g.
// "1,1 0,0 2,2". Errors name the move (1-based) and say what is wrong: a
// malformed item, a cell outside the board, an occupied cell, or a move
// after the game ended.
func (g *Game) ParseMoves(s string) (Position, error) {
	var p Position
	res := Ongoing
	for i, item := range strings.Fields(s) {
		rs, cs, ok := strings.Cut(item, ",")
		r, err1 := strconv.Atoi(rs)
		c, err2 := strconv.Atoi(cs)
		if !ok || err1 != nil || err2 != nil {
			return Position{}, fmt.Errorf("move %d %q: want row,col: %w", i+1, item, ErrSyntax)
		}
		if r < 0 || r >= g.Rows || c < 0 || c >= g.Cols {
			return Position{}, fmt.Errorf("move %d %q: outside the %dx%d board: %w", i+1, item, g.Rows, g.Cols, ErrInvalidPosition)
		}
		if res != Ongoing {
			return Position{}, fmt.Errorf("move %d %q: the game is over (%s): %w", i+1, item, res, ErrInvalidPosition)
		}
		cell := Cell(r, c)
		if (p.X|p.O)>>cell&1 != 0 {
			return Position{}, fmt.Errorf("move %d %q: cell is occupied: %w", i+1, item, ErrInvalidPosition)
		}
		p, res = g.Play(p, cell)
	}
	return p, nil
}

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
	return WriteBoard(g.Rows, g.Cols, func(r, c int) int8 {
		bit := uint64(1) << Cell(r, c)
		switch {
		case p.X&bit != 0:
			return 1
		case p.O&bit != 0:
			return 2
		}
		return 0
	})
}

// Parse reads a position in the format of String ('x' and 'o' are accepted
// too) and checks that it is valid (see Valid). Errors wrap ErrSyntax or
// ErrInvalidPosition and name the row and column at fault.
func (g *Game) Parse(s string) (Position, error) {
	var p Position
	err := ReadBoard(s, g.Rows, g.Cols, func(r, c int, side int8) {
		if side == 1 {
			p.X |= 1 << Cell(r, c)
		} else {
			p.O |= 1 << Cell(r, c)
		}
	})
	if err != nil {
		return Position{}, err
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
	err := ReadMoves(s, g.Rows, g.Cols, func(r, c int) error {
		if res != Ongoing {
			return fmt.Errorf("the game is over (%s): %w", res, ErrInvalidPosition)
		}
		cell := Cell(r, c)
		if (p.X|p.O)>>cell&1 != 0 {
			return fmt.Errorf("cell is occupied: %w", ErrInvalidPosition)
		}
		p, res = g.Play(p, cell)
		return nil
	})
	if err != nil {
		return Position{}, err
	}
	return p, nil
}

// WriteBoard writes a rows x cols board in String's format; at gives the
// stone on each cell (0 none, 1 X, 2 O).
func WriteBoard(rows, cols int, at func(r, c int) int8) string {
	var sb strings.Builder
	sb.Grow(rows * (cols + 1))
	for r := range rows {
		if r > 0 {
			sb.WriteByte('/')
		}
		for c := range cols {
			sb.WriteByte(".XO"[at(r, c)])
		}
	}
	return sb.String()
}

// ReadBoard reads a rows x cols board in String's format ('x' and 'o' too)
// and calls set for every stone (side 1 X, 2 O). Errors wrap ErrSyntax and
// name the row and column at fault.
func ReadBoard(s string, rows, cols int, set func(r, c int, side int8)) error {
	lines := strings.Split(s, "/")
	if len(lines) != rows {
		return fmt.Errorf("parse %q: %d rows, want %d for a %dx%d board: %w", s, len(lines), rows, rows, cols, ErrSyntax)
	}
	for r, row := range lines {
		if len(row) != cols {
			return fmt.Errorf("parse %q: row %d has %d cells, want %d: %w", s, r, len(row), cols, ErrSyntax)
		}
		for c := range cols {
			switch row[c] {
			case 'X', 'x':
				set(r, c, 1)
			case 'O', 'o':
				set(r, c, 2)
			case '.':
			default:
				return fmt.Errorf("parse %q: row %d column %d: %q, want X, O or '.': %w", s, r, c, row[c], ErrSyntax)
			}
		}
	}
	return nil
}

// ReadMoves reads "row,col" moves (0-based, separated by spaces) of a rows x
// cols board and calls play for each in turn. Errors name the move (1-based)
// and say what is wrong: a malformed item, a cell outside the board, or
// what play said.
func ReadMoves(s string, rows, cols int, play func(r, c int) error) error {
	for i, item := range strings.Fields(s) {
		rs, cs, ok := strings.Cut(item, ",")
		r, err1 := strconv.Atoi(rs)
		c, err2 := strconv.Atoi(cs)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("move %d %q: want row,col: %w", i+1, item, ErrSyntax)
		}
		if r < 0 || r >= rows || c < 0 || c >= cols {
			return fmt.Errorf("move %d %q: outside the %dx%d board: %w", i+1, item, rows, cols, ErrInvalidPosition)
		}
		if err := play(r, c); err != nil {
			return fmt.Errorf("move %d %q: %w", i+1, item, err)
		}
	}
	return nil
}

package sudoku

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Item is one puzzle read by Parse: a grid, or the reason the text at Line
// is not a puzzle.
type Item struct {
	Line int   // 1-based line where the puzzle starts
	Grid Grid  // the puzzle, if Err is nil
	Err  error // why the text is not a puzzle, e.g. "80 cells, want 81"; the caller prefixes FILE:LINE
}

// maxLine is the longest line Parse keeps; a longer line is reported as
// malformed by its length, without holding it in memory.
const maxLine = 64 << 10

// Parse reads puzzles from r and calls yield for each in input order, with
// either a grid or a precise error: it never stops at a bad puzzle, so every
// puzzle line of the input gives exactly one item.
//
// Two layouts are read, and may be mixed:
//   - one puzzle per line: 81 cells, row-major, 1-9 for givens and '.', '0'
//     or '_' for empty cells;
//   - the 9-row grid layout: 9 lines of 9 cells, with optional '|', '-', '+'
//     separators (lines made of separators alone are skipped), ended by a
//     blank line or the ninth row.
//
// Spaces, tabs and separators are ignored anywhere in a line; blank lines
// and lines whose first non-blank character is '#' are skipped (a UTF-8 byte
// order mark at the start too). A line of 9 cells starts a grid, in which
// every other line counts as a row (a bad row makes the whole grid one
// malformed item); any other line outside a grid must have 81 cells. Any
// other text is an error, labels such as "Grid 01" included.
//
// Parse stops only when yield returns an error (which it returns) or at
// the end of r (a read error is returned as such).
func Parse(r io.Reader, yield func(Item) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		buf    []byte // the current line when it spans several buffers
		lineNo int
		grid   struct {
			start int // line of the first row; 0: not in a grid
			rows  int // rows read, good or bad
			g     Grid
			err   error
		}
	)
	flushGrid := func() error {
		if grid.start == 0 {
			return nil
		}
		it := Item{Line: grid.start, Grid: grid.g, Err: grid.err}
		if it.Err == nil && grid.rows < 9 {
			it.Err = fmt.Errorf("grid of %d rows, want 9 (or 81 cells on one line)", grid.rows)
		}
		if it.Err != nil {
			it.Grid = Grid{}
		}
		grid.start, grid.rows, grid.g, grid.err = 0, 0, Grid{}, nil
		return yield(it)
	}
	for {
		line, rerr := br.ReadSlice('\n')
		long := false
		if errors.Is(rerr, bufio.ErrBufferFull) {
			// Gather a long line, keeping at most maxLine bytes of it.
			buf = append(buf[:0], line...)
			for errors.Is(rerr, bufio.ErrBufferFull) {
				line, rerr = br.ReadSlice('\n')
				if len(buf) < maxLine {
					buf = append(buf, line...)
				} else {
					long = true
				}
			}
			if !long {
				buf = append(buf, line...)
			}
			line = buf
		}
		if rerr != nil && rerr != io.EOF {
			return rerr
		}
		if len(line) == 0 && rerr == io.EOF {
			return flushGrid()
		}
		lineNo++
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a UTF-8 byte order mark
		}
		var s lineScan
		if long {
			s = lineScan{badCol: -1, cells: len(line)}
			s.err = fmt.Errorf("line longer than %d bytes, want 81 cells", maxLine)
		} else {
			s = scanLine(line)
		}
		switch {
		case s.blank:
			if err := flushGrid(); err != nil {
				return err
			}
		case s.comment, s.separators:
			// skipped, also inside a grid
		case grid.start != 0:
			if grid.err == nil {
				switch {
				case s.err != nil:
					grid.err = fmt.Errorf("row %d (line %d): %w", grid.rows+1, lineNo, s.err)
				case s.cells != 9:
					grid.err = fmt.Errorf("row %d (line %d): %d cells, want 9", grid.rows+1, lineNo, s.cells)
				default:
					copy(grid.g[9*grid.rows:], s.grid[:9])
				}
			}
			grid.rows++
			if grid.rows == 9 {
				if err := flushGrid(); err != nil {
					return err
				}
			}
		case s.err == nil && s.cells == 9:
			grid.start, grid.rows = lineNo, 1
			copy(grid.g[:9], s.grid[:9])
		default:
			it := Item{Line: lineNo, Err: s.err}
			if it.Err == nil && s.cells != 81 {
				it.Err = fmt.Errorf("%d cells, want 81", s.cells)
			}
			if it.Err == nil {
				it.Grid = s.grid
			}
			if err := yield(it); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return flushGrid()
		}
	}
}

// lineScan is what scanLine found in one line.
type lineScan struct {
	blank, comment, separators bool
	cells                      int  // cells read (also past 81)
	grid                       Grid // the first 81 cells
	badCol                     int  // 1-based column of the first bad character, or -1
	err                        error
}

// scanLine reads one line (with or without its '\n').
func scanLine(line []byte) lineScan {
	s := lineScan{badCol: -1}
	col := 0
	seps := false
	for i := 0; i < len(line); {
		c := line[i]
		size := 1
		col++
		switch {
		case c >= '1' && c <= '9':
			if s.cells < 81 {
				s.grid[s.cells] = c - '0'
			}
			s.cells++
		case c == '.' || c == '0' || c == '_':
			s.cells++
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case c == '|' || c == '-' || c == '+':
			seps = true
		case c == '#' && s.cells == 0 && !seps:
			s.comment = true
			return s
		default:
			r, n := utf8.DecodeRune(line[i:])
			size = n
			if s.badCol < 0 {
				s.badCol = col
				s.err = fmt.Errorf("column %d: %q is not a digit or an empty mark", col, r)
			}
		}
		i += size
	}
	if s.badCol < 0 && s.cells == 0 {
		if seps {
			s.separators = true
		} else {
			s.blank = true
		}
	}
	return s
}

// ParseLine reads one puzzle of 81 cells on one line ('.', '0' or '_' for
// empty cells; spaces and '|', '-', '+' separators ignored).
func ParseLine(line string) (Grid, error) {
	s := scanLine([]byte(line))
	switch {
	case s.err != nil:
		return Grid{}, s.err
	case s.cells != 81:
		return Grid{}, fmt.Errorf("%d cells, want 81", s.cells)
	}
	return s.grid, nil
}

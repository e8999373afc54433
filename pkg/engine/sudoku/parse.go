package sudoku

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
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
	p := parser{yield: yield}
	var buf []byte // the current line when it spans several buffers
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
			return p.end()
		}
		if err := p.line(line, long); err != nil {
			return err
		}
		if rerr == io.EOF {
			return p.end()
		}
	}
}

// ParseBytes is Parse of a text in memory whose first line is line
// firstLine of its file (1 for a whole file): items and the reasons inside
// grids carry the file's line numbers, and a byte order mark is skipped only
// at line 1. Parsing the pieces that Cut makes, each from its own first
// line, gives exactly the items of parsing the whole text.
func ParseBytes(data []byte, firstLine int, yield func(Item) error) error {
	p := parser{yield: yield, lineNo: firstLine - 1}
	for line := range bytes.Lines(data) {
		if err := p.line(line, len(line) > maxLine); err != nil {
			return err
		}
	}
	return p.end()
}

// Cut splits the text data (a whole file) into pieces of per items each
// (one more when the line that ends an unfinished grid is a puzzle too),
// cutting only between lines and never inside a grid, and calls yield with
// each piece, the line number of its first line, its number of items, and
// its length after Compact (equal to len(piece) when Compact would not
// change it). A piece ends early, between items, once Compact would make it
// maxBytes long or more (maxBytes <= 0: no limit); lines that hold no item
// (comments, blank lines) go with the piece before them, so a piece may
// have no items. The pieces cover data exactly and ParseBytes(piece, line,
// ...), or ParseBytes of Compact(piece), reads each piece's items. Cut
// reads each line once, without building the grids of one-line puzzles.
func Cut(data []byte, per, maxBytes int, yield func(piece []byte, line, items, compacted int) error) error {
	return CutFrom(data, 1, per, maxBytes, yield)
}

// CutFrom is Cut of a text whose first line is line firstLine of its file,
// as ParseBytes reads one: the text after a place where Cut of the whole
// file cuts is cut as Cut cuts the rest of the file, and the line numbers
// are the file's. A file can so be cut a part at a time.
func CutFrom(data []byte, firstLine, per, maxBytes int, yield func(piece []byte, line, items, compacted int) error) error {
	if per < 1 {
		per = 1
	}
	items, size := 0, 0
	p := parser{yield: func(Item) error { items++; return nil }, countOnly: true, lineNo: firstLine - 1}
	start, startLine, off := 0, firstLine, 0
	for line := range bytes.Lines(data) {
		off += len(line)
		if p.grid.start == 0 && p.lineNo > 0 && isPlain(line) {
			// The common case, as p.line would count it (past line 1 and
			// its byte order mark).
			p.lineNo++
			items++
			size += len(line)
		} else {
			if err := p.line(line, len(line) > maxLine); err != nil {
				return err
			}
			size += compactLen(line)
		}
		if p.grid.start == 0 && (items >= per || maxBytes > 0 && size >= maxBytes) {
			if err := yield(data[start:off], startLine, items, size); err != nil {
				return err
			}
			start, startLine, items, size = off, p.lineNo+1, 0, 0
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	if start < len(data) {
		return yield(data[start:], startLine, items, size)
	}
	return nil
}

// Compact appends to dst the text with what the parser does not read left
// out: a comment line becomes "#", a line longer than the parser keeps
// becomes its first maxLine+1 bytes (still too long). Parsing the result
// gives the same items, with the same lines and reasons; its size is
// bounded by the number of lines, and never more than the text's. (A byte
// order mark at the start is kept.)
func Compact(dst, text []byte) []byte {
	for line := range bytes.Lines(text) {
		body, nl := bytes.CutSuffix(line, []byte{'\n'})
		switch {
		case len(line) > maxLine:
			dst = append(dst, body[:min(len(body), maxLine+1)]...)
		case isComment(line):
			dst = append(dst, '#')
		default:
			dst = append(dst, body...)
		}
		if nl {
			dst = append(dst, '\n')
		}
	}
	return dst
}

// compactLen is the length of line in Compact's output.
func compactLen(line []byte) int {
	n := len(line)
	nl := 0
	if n > 0 && line[n-1] == '\n' {
		nl = 1
	}
	switch {
	case n > maxLine:
		return min(n-nl, maxLine+1) + nl
	case isComment(line):
		return 1 + nl
	}
	return n
}

// isComment tells a line whose first character other than a space or a tab
// is '#' (as scanLine reads it).
func isComment(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t':
		case '#':
			return true
		default:
			return false
		}
	}
	return false
}

// parser is the state of Parse between lines: the line number and the grid
// being read, if any.
type parser struct {
	yield     func(Item) error
	lineNo    int
	countOnly bool // Cut: one-line puzzles need not be built
	grid      struct {
		start int // line of the first row; 0: not in a grid
		rows  int // rows read, good or bad
		g     Grid
		err   error
	}
}

// flushGrid yields the grid being read, if any.
func (p *parser) flushGrid() error {
	if p.grid.start == 0 {
		return nil
	}
	it := Item{Line: p.grid.start, Grid: p.grid.g, Err: p.grid.err}
	if it.Err == nil && p.grid.rows < 9 {
		rows := "rows"
		if p.grid.rows == 1 {
			rows = "row"
		}
		it.Err = fmt.Errorf("grid of %d %s, want 9 (or 81 cells on one line)", p.grid.rows, rows)
	}
	if it.Err != nil {
		it.Grid = Grid{}
	}
	p.grid.start, p.grid.rows, p.grid.g, p.grid.err = 0, 0, Grid{}, nil
	return p.yield(it)
}

// end finishes the text: a grid still open is yielded.
func (p *parser) end() error { return p.flushGrid() }

// line reads one line, with its '\n' if it has one; long says that the line
// was longer than maxLine (and was cut).
func (p *parser) line(line []byte, long bool) error {
	p.lineNo++
	if p.lineNo == 1 {
		line = bytes.TrimPrefix(line, []byte("\ufeff")) // a UTF-8 byte order mark
	}
	if p.grid.start == 0 && !long {
		// The common case first: one puzzle of 81 plain cells.
		if it, ok := plainLine(line, p.countOnly); ok {
			it.Line = p.lineNo
			return p.yield(it)
		}
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
		return p.flushGrid()
	case s.comment, s.separators:
		// skipped, also inside a grid
	case p.grid.start != 0 && s.cells > maxRowCells:
		// Not a row (a one-line puzzle after an unfinished grid, or a
		// stray line of 9 cells before it): the grid ends here.
		if err := p.flushGrid(); err != nil {
			return err
		}
		return p.yield(lineItem(p.lineNo, s))
	case p.grid.start != 0:
		if p.grid.err == nil {
			switch {
			case s.err != nil:
				p.grid.err = fmt.Errorf("row %d (line %d): %w", p.grid.rows+1, p.lineNo, s.err)
			case s.cells != 9:
				p.grid.err = fmt.Errorf("row %d (line %d): %d cells, want 9", p.grid.rows+1, p.lineNo, s.cells)
			default:
				copy(p.grid.g[9*p.grid.rows:], s.grid[:9])
			}
		}
		p.grid.rows++
		if p.grid.rows == 9 {
			return p.flushGrid()
		}
	case s.err == nil && s.cells == 9:
		p.grid.start, p.grid.rows = p.lineNo, 1
		copy(p.grid.g[:9], s.grid[:9])
	default:
		return p.yield(lineItem(p.lineNo, s))
	}
	return nil
}

// maxRowCells is the most cells a line in a grid can have and still be
// read as a (bad) row: a line with more is a puzzle of its own.
const maxRowCells = 2 * 9

// lineItem is the puzzle on one line.
func lineItem(lineNo int, s lineScan) Item {
	it := Item{Line: lineNo, Err: s.err}
	if it.Err == nil && s.cells != 81 {
		it.Err = fmt.Errorf("%d cells, want 81", s.cells)
	}
	if it.Err == nil {
		it.Grid = s.grid
	}
	return it
}

// cellValue maps a byte of a plain line to its digit (0 for an empty mark),
// or to 255 for any other byte.
var cellValue = func() (t [256]uint8) {
	for i := range t {
		t[i] = 255
	}
	for c := byte('1'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	t['.'], t['0'], t['_'] = 0, 0, 0
	return t
}()

// plainLine reads a line of exactly 81 cells and nothing else but its line
// end; ok is false for any other line, which scanLine then reads. Without
// build, the grid is not filled in.
//
// It reads the cells eight at a time (plainWord), in about 30% less time
// than a cell at a time through cellValue (BenchmarkParse;
// docs/benchmarks.md).
func plainLine(line []byte, countOnly bool) (it Item, ok bool) {
	if countOnly {
		return it, readPlain(line, nil)
	}
	return it, readPlain(line, &it.Grid)
}

// isPlain tells whether a line is one puzzle of 81 plain cells, as
// plainLine reads it, without building the grid.
func isPlain(line []byte) bool { return readPlain(line, nil) }

// readPlain reads a line of exactly 81 plain cells (and its line end) into
// g, if g is not nil, and tells whether it is one.
func readPlain(line []byte, g *Grid) bool {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	if n != 81 {
		return false
	}
	last := cellValue[line[80]]
	bad := uint64(last)
	for i := 0; i < 80; i += 8 {
		cells, b := plainWord(binary.LittleEndian.Uint64(line[i:]))
		bad |= b
		if g != nil {
			binary.LittleEndian.PutUint64(g[i:], cells)
		}
	}
	if g != nil {
		g[80] = last
	}
	return bad&^0x0f == 0
}

// SWAR constants: a byte of ones, and the top bit of every byte.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// plainWord reads eight characters of a line, the first in the low byte:
// their cells (the digit, or 0 for an empty mark '.', '0' or '_'), and bad,
// zero if every one is a cell as cellValue has it, else the top bit of
// each byte that is not (callers OR bad over a line and test it once: a
// branch a word cost more than the tests). Each test works within bytes
// below 0x80 without a carry or borrow between them; a byte of 0x80 or more
// is bad whatever the tests say of its neighbours.
func plainWord(x uint64) (cells, bad uint64) {
	digit := ((x | highs) - '0'*ones) & (('9'*ones | highs) - x) & highs // '0' <= b <= '9'
	empty := zeroBytes(x^'.'*ones) | zeroBytes(x^'_'*ones)
	return x & (0x0f * ones) & (digit >> 7 * 0xff), (x | ^(digit | empty)) & highs
}

// zeroBytes has the top bit of each zero byte of x set, and no other bit.
func zeroBytes(x uint64) uint64 { return ^((x&lows + lows) | x | lows) }

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
				what := strconv.QuoteRune(r)
				if r == utf8.RuneError && n == 1 {
					what = fmt.Sprintf(`'\x%02x'`, c) // not UTF-8: the byte itself
				}
				s.err = fmt.Errorf("column %d: %s is not a digit or an empty mark", col, what)
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

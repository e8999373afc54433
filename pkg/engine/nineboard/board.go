// Package nineboard is an engine for nine-board tic-tac-toe: nine 3x3 boards
// in a 3x3 grid, where a move in cell c sends the opponent to board c.
//
// Two variants are played. In FirstTriple (the course variant) the first
// three in a row in any board wins, and a player sent to a full board draws
// the game. In Ultimate a won or full board is closed, a player sent to a
// closed board may move in any open board, three won boards in a row on the
// grid of boards win, and a position with no legal move is a draw.
//
// Boards and cells are numbered 0-8 here, row-major; the referee protocol's
// 1-9 is the caller's business. The package does no I/O.
package nineboard

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
)

// Variant is a rule set.
type Variant uint8

const (
	// FirstTriple: the first three in a row in any board wins; being sent
	// to a full board is a draw.
	FirstTriple Variant = iota
	// Ultimate: boards close when won or full; three won boards in a row win.
	Ultimate
)

// String returns the variant's name as the command line spells it.
func (v Variant) String() string {
	if v == Ultimate {
		return "ultimate"
	}
	return "first-triple"
}

// ParseVariant parses "first-triple" or "ultimate".
func ParseVariant(s string) (Variant, error) {
	switch s {
	case "first-triple":
		return FirstTriple, nil
	case "ultimate":
		return Ultimate, nil
	}
	return 0, fmt.Errorf("variant %q: want first-triple or ultimate", s)
}

// Player is X (moves first) or O.
type Player uint8

const (
	X Player = iota
	O
)

// String returns "x" or "o".
func (p Player) String() string { return [2]string{"x", "o"}[p&1] }

// Result is the state of a game.
type Result uint8

const (
	Ongoing Result = iota
	XWin
	OWin
	Draw
)

// String names the result.
func (r Result) String() string {
	return [...]string{"ongoing", "x wins", "o wins", "draw"}[r&3]
}

// Move is a board and a cell, encoded as board*9+cell (0..80).
type Move uint8

// NoMove is not a move.
const NoMove Move = 255

// NewMove returns the move in cell (0-8) of board (0-8).
func NewMove(board, cell int) Move { return Move(board*9 + cell) }

// Board returns the board (0-8) the move is in.
func (m Move) Board() int { return int(m) / 9 }

// Cell returns the cell (0-8) of the move.
func (m Move) Cell() int { return int(m) % 9 }

// String renders the move 1-based as the protocol does, "board:cell".
func (m Move) String() string {
	if m > 80 {
		return "none"
	}
	return fmt.Sprintf("%d:%d", m.Board()+1, m.Cell()+1)
}

// AnyBoard is the target of a player who may move in any open board.
const AnyBoard = -1

// MaxPly is the longest game: 81 moves.
const MaxPly = 81

const full9 = 0x1FF

// lines are the eight three-in-a-rows of a 3x3 board as 9-bit masks.
var lines = [8]uint16{0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124}

var (
	// hasLine[m] says whether mask m contains a line.
	hasLine [512]bool
	// completes[m] is the set of cells not in m that would complete a line
	// with m: a player's two-in-a-row threats before checking the cell is
	// empty.
	completes [512]uint16
)

func init() {
	for m := range 512 {
		for _, l := range lines {
			if uint16(m)&l == l {
				hasLine[m] = true
			}
			if missing := l &^ uint16(m); bits.OnesCount16(missing) == 1 {
				completes[m] |= missing
			}
		}
	}
}

// undo is what Make saves for Unmake.
type undo struct {
	move   Move
	next   int8
	result Result
	won    [2]uint16
	full   uint16
	hash   uint64
}

// Board is a position with make/unmake. The cells are nine 9-bit masks per
// side (uint16 each, 36 bytes); the undo record keeps the few fields a move
// changes besides one cell (target, result, won and full boards, hash), so
// Unmake is a restore, not a recomputation. Make saves a 24-byte undo
// record where copy-make would copy the 72-byte state (the fields before
// hist); copy-make was not measured. Speeds: BenchmarkPerft,
// BenchmarkMakeUnmake and BenchmarkSearch (docs/benchmarks.md).
type Board struct {
	variant Variant
	cells   [2][9]uint16
	won     [2]uint16 // Ultimate: boards won by each side
	full    uint16    // boards with no empty cell
	next    int8      // board the side to move must play in, or AnyBoard
	side    Player
	ply     int
	result  Result
	hash    uint64
	hist    [MaxPly]undo
}

// NewBoard returns the empty position of variant v, with a free first move.
func NewBoard(v Variant) *Board {
	b := &Board{variant: v, next: AnyBoard}
	b.hash = zobristNext[0]
	return b
}

// Reset makes b the empty position of variant v.
func (b *Board) Reset(v Variant) {
	*b = Board{variant: v, next: AnyBoard, hash: zobristNext[0]}
}

// Variant returns the rules b is played by.
func (b *Board) Variant() Variant { return b.variant }

// Side returns the player to move.
func (b *Board) Side() Player { return b.side }

// Ply returns the number of moves made.
func (b *Board) Ply() int { return b.ply }

// Result returns the state of the game.
func (b *Board) Result() Result { return b.result }

// Next returns the board the side to move must play in, or AnyBoard.
func (b *Board) Next() int { return int(b.next) }

// Hash returns the position's Zobrist hash (cells, target board and side).
func (b *Board) Hash() uint64 { return b.hash }

// Cells returns the cells of board (0-8) held by p as a 9-bit mask.
func (b *Board) Cells(p Player, board int) uint16 { return b.cells[p][board] }

// Won returns the boards (bit b for board b, 0-8) that p has won in
// Ultimate; in FirstTriple a won board ends the game and Won is 0.
func (b *Board) Won(p Player) uint16 { return b.won[p] }

// At returns the player in cell of board, and false if it is empty.
func (b *Board) At(board, cell int) (Player, bool) {
	switch {
	case b.cells[X][board]>>cell&1 != 0:
		return X, true
	case b.cells[O][board]>>cell&1 != 0:
		return O, true
	}
	return 0, false
}

// LastMove returns the last move made, or NoMove.
func (b *Board) LastMove() Move {
	if b.ply == 0 {
		return NoMove
	}
	return b.hist[b.ply-1].move
}

// closed is the set of boards no one may play in: won (Ultimate) or full.
func (b *Board) closed() uint16 { return b.won[X] | b.won[O] | b.full }

// targets is the set of boards the side to move may play in.
func (b *Board) targets() uint16 {
	if b.result != Ongoing {
		return 0
	}
	if b.next >= 0 {
		return 1 << b.next
	}
	return full9 &^ b.closed()
}

// Moves appends the legal moves to buf and returns it. It writes into the
// caller's buffer and allocates nothing when cap(buf) >= 81.
func (b *Board) Moves(buf []Move) []Move {
	for t := b.targets(); t != 0; t &= t - 1 {
		bd := bits.TrailingZeros16(t)
		base := Move(bd * 9)
		for e := full9 &^ (b.cells[X][bd] | b.cells[O][bd]); e != 0; e &= e - 1 {
			buf = append(buf, base+Move(bits.TrailingZeros16(e)))
		}
	}
	return buf
}

// CountMoves returns the number of legal moves.
func (b *Board) CountMoves() int {
	n := 0
	for t := b.targets(); t != 0; t &= t - 1 {
		bd := bits.TrailingZeros16(t)
		n += 9 - bits.OnesCount16(b.cells[X][bd]|b.cells[O][bd])
	}
	return n
}

// Legal says whether m is a legal move.
func (b *Board) Legal(m Move) bool {
	if m > 80 {
		return false
	}
	bd, c := m.Board(), m.Cell()
	return b.targets()>>bd&1 != 0 && (b.cells[X][bd]|b.cells[O][bd])>>c&1 == 0
}

// Make plays m, which must be legal, and returns the new result.
func (b *Board) Make(m Move) Result {
	b.hist[b.ply] = undo{move: m, next: b.next, result: b.result, won: b.won, full: b.full, hash: b.hash}
	p := b.side
	bd, c := m.Board(), m.Cell()
	own := b.cells[p][bd] | 1<<c
	b.cells[p][bd] = own
	h := b.hash ^ zobristCell[p][m] ^ zobristNext[b.next+1] ^ zobristSide
	if (own|b.cells[p^1][bd]) == full9 && !(b.variant == Ultimate && hasLine[own]) {
		b.full |= 1 << bd
	}
	b.next = int8(c)
	if b.variant == FirstTriple {
		switch {
		case hasLine[own]:
			b.result = XWin + Result(p)
		case b.full>>c&1 != 0:
			b.result = Draw
		}
	} else {
		if hasLine[own] {
			b.won[p] |= 1 << bd
			if hasLine[b.won[p]] {
				b.result = XWin + Result(p)
			}
		}
		if b.closed()>>c&1 != 0 {
			b.next = AnyBoard
		}
		if b.result == Ongoing && b.closed() == full9 {
			b.result = Draw
		}
	}
	b.hash = h ^ zobristNext[b.next+1]
	b.side = p ^ 1
	b.ply++
	if invariants {
		b.check()
	}
	return b.result
}

// Unmake takes back the last move.
func (b *Board) Unmake() {
	b.ply--
	u := &b.hist[b.ply]
	b.side ^= 1
	b.cells[b.side][u.move.Board()] &^= 1 << u.move.Cell()
	b.next, b.result, b.won, b.full, b.hash = u.next, u.result, u.won, u.full, u.hash
	if invariants {
		b.check()
	}
}

// Perft counts the move sequences of exactly depth moves from b (games that
// end sooner are not counted). b is restored on return.
func (b *Board) Perft(depth int) uint64 {
	if b.result != Ongoing {
		return 0
	}
	if depth <= 1 {
		if depth == 1 {
			return uint64(b.CountMoves())
		}
		return 1
	}
	var n uint64
	for t := b.targets(); t != 0; t &= t - 1 {
		bd := bits.TrailingZeros16(t)
		for e := full9 &^ (b.cells[X][bd] | b.cells[O][bd]); e != 0; e &= e - 1 {
			b.Make(NewMove(bd, bits.TrailingZeros16(e)))
			n += b.Perft(depth - 1)
			b.Unmake()
		}
	}
	return n
}

// zobrist keys: a stone of a side in a square, the target board (AnyBoard
// first), the side to move. Fixed by a splitmix64 sequence so hashes are the
// same in every process.
var (
	zobristCell [2][81]uint64
	zobristNext [10]uint64
	zobristSide uint64
)

func init() {
	s := uint64(0x6E696E65626F6172) // "nineboar"
	next := func() uint64 {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		return z ^ z>>31
	}
	for p := range 2 {
		for i := range 81 {
			zobristCell[p][i] = next()
		}
	}
	for i := range zobristNext {
		zobristNext[i] = next()
	}
	zobristSide = next()
}

// ErrBadPosition is returned by Parse for a string that is not a position.
var ErrBadPosition = errors.New("bad position")

// Parse reads a position written as 81 characters 'x', 'o' or '.' (board 1
// cells 1-9, board 2, ..., spaces and '/' ignored), followed by the side to
// move and the target board: "x 5" or "o any". Cells are placed without
// playing moves, so the result is recomputed but not the order of play;
// positions already over are rejected.
func Parse(v Variant, s string) (*Board, error) {
	fields := strings.Fields(strings.ReplaceAll(s, "/", " "))
	if len(fields) < 3 {
		return nil, fmt.Errorf("%w: want cells, side and target board", ErrBadPosition)
	}
	cells := strings.Join(fields[:len(fields)-2], "")
	if len(cells) != 81 {
		return nil, fmt.Errorf("%w: %d cells, want 81", ErrBadPosition, len(cells))
	}
	b := NewBoard(v)
	b.hash = 0
	var n [2]int
	for i, ch := range cells {
		var p Player
		switch ch {
		case 'x', 'X':
			p = X
		case 'o', 'O':
			p = O
		case '.':
			continue
		default:
			return nil, fmt.Errorf("%w: character %q at %d", ErrBadPosition, ch, i+1)
		}
		b.cells[p][i/9] |= 1 << (i % 9)
		b.hash ^= zobristCell[p][i]
		n[p]++
	}
	switch fields[len(fields)-2] {
	case "x":
		b.side = X
	case "o":
		b.side, b.hash = O, b.hash^zobristSide
	default:
		return nil, fmt.Errorf("%w: side %q, want x or o", ErrBadPosition, fields[len(fields)-2])
	}
	if n[X]-n[O] != int(b.side) {
		return nil, fmt.Errorf("%w: %d x and %d o with %s to move", ErrBadPosition, n[X], n[O], b.side)
	}
	b.ply = n[X] + n[O]
	for bd := range 9 {
		xs, os := b.cells[X][bd], b.cells[O][bd]
		if v == FirstTriple && (hasLine[xs] || hasLine[os]) {
			return nil, fmt.Errorf("%w: board %d has three in a row", ErrBadPosition, bd+1)
		}
		switch {
		case v == Ultimate && hasLine[xs] && hasLine[os]:
			return nil, fmt.Errorf("%w: board %d won by both", ErrBadPosition, bd+1)
		case v == Ultimate && hasLine[xs]:
			b.won[X] |= 1 << bd
		case v == Ultimate && hasLine[os]:
			b.won[O] |= 1 << bd
		case xs|os == full9:
			b.full |= 1 << bd
		}
	}
	if hasLine[b.won[X]] || hasLine[b.won[O]] {
		return nil, fmt.Errorf("%w: the game is won", ErrBadPosition)
	}
	switch t := fields[len(fields)-1]; t {
	case "any":
		b.next = AnyBoard
	default:
		if len(t) != 1 || t[0] < '1' || t[0] > '9' {
			return nil, fmt.Errorf("%w: target board %q, want 1-9 or any", ErrBadPosition, t)
		}
		b.next = int8(t[0] - '1')
		if b.closed()>>b.next&1 != 0 {
			if v == FirstTriple {
				return nil, fmt.Errorf("%w: target board %s is full", ErrBadPosition, t)
			}
			b.next = AnyBoard
		}
	}
	b.hash ^= zobristNext[b.next+1]
	if b.targets() == 0 {
		return nil, fmt.Errorf("%w: no legal move", ErrBadPosition)
	}
	return b, nil
}

// String renders b in the form Parse reads: nine groups of nine cells, the
// side to move and the target board.
func (b *Board) String() string {
	var s strings.Builder
	for bd := range 9 {
		if bd > 0 {
			s.WriteByte('/')
		}
		for c := range 9 {
			p, ok := b.At(bd, c)
			switch {
			case !ok:
				s.WriteByte('.')
			case p == X:
				s.WriteByte('x')
			default:
				s.WriteByte('o')
			}
		}
	}
	s.WriteByte(' ')
	s.WriteString(b.side.String())
	if b.next == AnyBoard {
		s.WriteString(" any")
	} else {
		fmt.Fprintf(&s, " %d", b.next+1)
	}
	return s.String()
}

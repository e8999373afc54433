package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
)

// MaxBigSide is the largest side of a board that the big-board search
// takes: gomoku is played on 15x15, and go boards are 19x19.
const MaxBigSide = 19

// MaxBigK is the longest line of a BigGame: the heuristic weighs a window
// by four to the power of its stones, and its sum over a 19x19 board must
// stay far below Mate.
const MaxBigK = 8

// BigGame is an m,n,k-game on a board of up to MaxBigSide on a side, too
// big for the 64-bit Game: only the depth-limited search (BigSearcher)
// plays it. Its cells are numbered r*Cols+c. The windows are Game's (k
// cells in a row, column or diagonal).
type BigGame struct {
	Rows, Cols, K int
	cells         int
	nwin          int
	winCells      []int16   // window w's cells: winCells[w*K : (w+1)*K]
	cellWin       [][]int32 // the windows through each cell
	near          [][]int16 // the cells at most two rows and columns away from each cell
	zobrist       [][2]uint64
}

// NewBig returns the m,n,k-game of rows x cols (1 to MaxBigSide each) with
// k in a row; errors match ErrBoardSize or ErrK.
func NewBig(rows, cols, k int) (*BigGame, error) {
	if rows < 1 || rows > MaxBigSide || cols < 1 || cols > MaxBigSide {
		return nil, &sizeError{fmt.Sprintf("board %dx%d: want 1 <= rows, cols <= %d", rows, cols, MaxBigSide), mnk.ErrBoardSize}
	}
	if maxk := min(max(rows, cols), MaxBigK); k < 1 || k > maxk {
		return nil, &sizeError{fmt.Sprintf("k %d is out of range for a %dx%d board: want 1 <= k <= %d", k, rows, cols, maxk), mnk.ErrK}
	}
	g := &BigGame{Rows: rows, Cols: cols, K: k, cells: rows * cols}
	dirs := [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	if k == 1 {
		dirs = dirs[:1] // every direction gives the same one-cell window
	}
	g.cellWin = make([][]int32, g.cells)
	for r := range rows {
		for c := range cols {
			for _, d := range dirs {
				er, ec := r+(k-1)*d[0], c+(k-1)*d[1]
				if er < 0 || er >= rows || ec < 0 || ec >= cols {
					continue
				}
				for i := range k {
					cell := (r+i*d[0])*cols + c + i*d[1]
					g.winCells = append(g.winCells, int16(cell))
					g.cellWin[cell] = append(g.cellWin[cell], int32(g.nwin))
				}
				g.nwin++
			}
		}
	}
	g.near = make([][]int16, g.cells)
	for cell := range g.cells {
		r, c := cell/cols, cell%cols
		for nr := max(r-2, 0); nr <= min(r+2, rows-1); nr++ {
			for nc := max(c-2, 0); nc <= min(c+2, cols-1); nc++ {
				if nr != r || nc != c {
					g.near[cell] = append(g.near[cell], int16(nr*cols+nc))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(rows), uint64(cols)<<8|uint64(k)))
	g.zobrist = make([][2]uint64, g.cells)
	for i := range g.zobrist {
		g.zobrist[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	return g, nil
}

// Cells returns the number of cells.
func (g *BigGame) Cells() int { return g.cells }

// Cell returns the number of the cell in row r, column c (0-based).
func (g *BigGame) Cell(r, c int) int { return r*g.Cols + c }

// BigPosition is a position of a BigGame: each cell empty (0), X (1) or
// O (2).
type BigPosition []int8

// Ply returns the number of stones.
func (p BigPosition) Ply() int {
	n := 0
	for _, v := range p {
		if v != 0 {
			n++
		}
	}
	return n
}

// XToMove reports whether X is to move (as many X as O stones).
func (p BigPosition) XToMove() bool { return p.Ply()%2 == 0 }

// lines returns the windows side (1 or 2) fills.
func (g *BigGame) lines(p BigPosition, side int8) []int {
	var ws []int
	for w := range g.nwin {
		full := true
		for _, c := range g.winCells[w*g.K : (w+1)*g.K] {
			if p[c] != side {
				full = false
				break
			}
		}
		if full {
			ws = append(ws, w)
		}
	}
	return ws
}

// Status returns the result of p: a side with k in a row has won, a full
// board is a draw, anything else is Ongoing. p must be valid.
func (g *BigGame) Status(p BigPosition) mnk.Result {
	switch {
	case len(g.lines(p, 1)) > 0:
		return mnk.XWin
	case len(g.lines(p, 2)) > 0:
		return mnk.OWin
	case p.Ply() == g.cells:
		return mnk.Draw
	}
	return mnk.Ongoing
}

// Valid reports whether p can arise in a game: as many X as O stones or
// one more, no line for the side that did not move last, and the lines of
// the side that did all through one cell (its last move).
func (g *BigGame) Valid(p BigPosition) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s: %w", g.String(p), fmt.Sprintf(format, a...), mnk.ErrInvalidPosition)
	}
	if len(p) != g.cells {
		return bad("%d cells, want %d", len(p), g.cells)
	}
	nx, no := 0, 0
	for _, v := range p {
		switch v {
		case 1:
			nx++
		case 2:
			no++
		}
	}
	if nx != no && nx != no+1 {
		return bad("%d X and %d O stones: want as many X as O or one more", nx, no)
	}
	last, other, lastName, otherName := int8(1), int8(2), "X", "O"
	if nx == no {
		last, other, lastName, otherName = 2, 1, "O", "X"
	}
	if len(g.lines(p, other)) > 0 {
		return bad("%s has a line but %s moved last", otherName, lastName)
	}
	if ws := g.lines(p, last); len(ws) > 1 {
		common := map[int16]int{}
		for _, w := range ws {
			for _, c := range g.winCells[w*g.K : (w+1)*g.K] {
				common[c]++
			}
		}
		shared := false
		for _, n := range common {
			shared = shared || n == len(ws)
		}
		if !shared {
			return bad("%s has lines that no single last move completed", lastName)
		}
	}
	return nil
}

// String returns p as rows of 'X', 'O' and '.', top row first, separated
// by '/' (mnk.Game.String's format).
func (g *BigGame) String(p BigPosition) string {
	return mnk.WriteBoard(g.Rows, g.Cols, func(r, c int) int8 { return p[r*g.Cols+c] })
}

// Parse reads a position in String's format ('x' and 'o' too) and checks
// that it is valid; errors wrap ErrSyntax or ErrInvalidPosition.
func (g *BigGame) Parse(s string) (BigPosition, error) {
	p := make(BigPosition, g.cells)
	if err := mnk.ReadBoard(s, g.Rows, g.Cols, func(r, c int, side int8) { p[r*g.Cols+c] = side }); err != nil {
		return nil, err
	}
	if err := g.Valid(p); err != nil {
		return nil, err
	}
	return p, nil
}

// ParseMoves plays "row,col" moves (0-based, separated by spaces) from the
// empty board, as mnk.Game.ParseMoves does.
func (g *BigGame) ParseMoves(s string) (BigPosition, error) {
	p := make(BigPosition, g.cells)
	res := mnk.Ongoing
	err := mnk.ReadMoves(s, g.Rows, g.Cols, func(r, c int) error {
		if res != mnk.Ongoing {
			return fmt.Errorf("the game is over (%s): %w", res, mnk.ErrInvalidPosition)
		}
		cell := r*g.Cols + c
		if p[cell] != 0 {
			return fmt.Errorf("cell is occupied: %w", mnk.ErrInvalidPosition)
		}
		p[cell] = 1 + int8(p.Ply()%2) // X on an even ply
		res = g.Status(p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// BigSearcher is the depth-limited search of Searcher for a BigGame, with
// the same rules at every node (a line completed at once, two enemy
// threats, a forced block), the same heuristic over the k-windows, the same
// mate scores and the same table policy (an entry cuts only at the depth it
// was searched to, so scores do not depend on the table). The board lives
// in per-window stone counts, with the heuristic and the windows one stone
// from a line kept up to date as moves are made and unmade, so a node reads
// them rather than scanning the board (the table is keyed by a Zobrist hash,
// without symmetries). On boards of more
// than 64 cells only the empty cells within two rows and columns of a stone
// are searched (the centre on an empty board), as in gomoku programs; with
// Near false every empty cell is, as Searcher does (the tests compare the
// two). It is not safe for concurrent use.
type BigSearcher struct {
	g *BigGame
	// Near restricts the moves to the empty cells near stones.
	Near bool

	board  []int8     // 0 empty, 1 X, 2 O
	count  [][2]uint8 // stones of X and O on each window
	hash   uint64
	stones int
	// evalX is the heuristic for X (the sum of every window's value), and
	// open[s] lists the windows where side s (0: X, 1: O) has k-1 stones
	// and the other side none, at openAt[s][w]-1 (0: not listed): both
	// kept as stones come and go, so a node reads them instead of
	// scanning every window.
	evalX  int32
	open   [2][]int32
	openAt [2][]int32
	tt     []bigEntry
	mask   uint64
	nodes  uint64
	ply    int

	ctx      context.Context
	deadline time.Time
	abort    bool

	pv     [][]int16 // pv[d][d:pvLen[d]]: the line from distance d
	pvLen  []int
	prevPV []int
	onPV   []bool
	moves  [][]int16
	scores [][]int32
	mark   []uint32
	epoch  uint32
}

type bigEntry struct {
	key   uint64
	score int32
	move  int16
	depth int8
	bound int8 // 0: empty, else boundLower, boundUpper or boundExact
}

// NewBigSearcher returns a searcher for g with a transposition table of at
// most ttBytes bytes (ttBytes < 16 turns it off), searching near stones
// only if g has more than 64 cells.
func NewBigSearcher(g *BigGame, ttBytes int) *BigSearcher {
	n := g.cells + 1
	s := &BigSearcher{g: g, Near: g.cells > 64, board: make([]int8, g.cells), count: make([][2]uint8, g.nwin),
		pv: make([][]int16, n+1), pvLen: make([]int, n+1), onPV: make([]bool, n+1), moves: make([][]int16, n+1),
		scores: make([][]int32, n+1), mark: make([]uint32, g.cells)}
	for i := range 2 {
		s.open[i] = make([]int32, 0, g.nwin)
		s.openAt[i] = make([]int32, g.nwin)
	}
	pv, moves, scores := make([]int16, (n+1)*(n+1)), make([]int16, (n+1)*g.cells), make([]int32, (n+1)*g.cells)
	for i := range n + 1 {
		s.pv[i] = pv[i*(n+1) : (i+1)*(n+1)]
		s.moves[i] = moves[i*g.cells : (i+1)*g.cells]
		s.scores[i] = scores[i*g.cells : (i+1)*g.cells]
	}
	if ttBytes >= 16 {
		size := 1
		for size*2*16 <= ttBytes {
			size *= 2
		}
		s.tt = make([]bigEntry, size)
		s.mask = uint64(size - 1)
	}
	return s
}

// Nodes returns the number of positions searched by all calls.
func (s *BigSearcher) Nodes() uint64 { return s.nodes }

func (s *BigSearcher) place(cell int, side int8) {
	s.board[cell] = side
	s.hash ^= s.g.zobrist[cell][side-1]
	s.stones++
	for _, w := range s.g.cellWin[cell] {
		s.recount(w, side-1, 1)
	}
}

func (s *BigSearcher) remove(cell int) {
	side := s.board[cell]
	s.board[cell] = 0
	s.hash ^= s.g.zobrist[cell][side-1]
	s.stones--
	for _, w := range s.g.cellWin[cell] {
		s.recount(w, side-1, -1)
	}
}

// windowValue is a window's share of the heuristic for X: four to the power
// of X's stones if O has none, minus the same for O.
func windowValue(c [2]uint8) int32 {
	var v int32
	if c[1] == 0 {
		v += 1 << (2 * c[0])
	}
	if c[0] == 0 {
		v -= 1 << (2 * c[1])
	}
	return v
}

// recount adds delta stones of side (0: X, 1: O) to window w, keeping
// evalX and the open lists.
func (s *BigSearcher) recount(w int32, side int8, delta int8) {
	c := &s.count[w]
	k1 := uint8(s.g.K - 1)
	s.evalX -= windowValue(*c)
	was := [2]bool{c[0] == k1 && c[1] == 0, c[1] == k1 && c[0] == 0}
	c[side] = uint8(int8(c[side]) + delta)
	s.evalX += windowValue(*c)
	now := [2]bool{c[0] == k1 && c[1] == 0, c[1] == k1 && c[0] == 0}
	for i := range 2 {
		switch {
		case now[i] && !was[i]:
			s.open[i] = append(s.open[i], w)
			s.openAt[i][w] = int32(len(s.open[i]))
		case was[i] && !now[i]:
			at := s.openAt[i][w] - 1
			last := s.open[i][len(s.open[i])-1]
			s.open[i][at] = last
			s.openAt[i][last] = at + 1
			s.open[i] = s.open[i][:len(s.open[i])-1]
			s.openAt[i][w] = 0
		}
	}
}

// reset empties the board.
func (s *BigSearcher) reset() {
	clear(s.board)
	s.hash, s.stones, s.evalX = 0, 0, 0
	for i := range 2 {
		s.open[i] = s.open[i][:0]
		clear(s.openAt[i])
	}
	k1 := uint8(s.g.K - 1)
	for w := range s.count {
		s.count[w] = [2]uint8{}
		s.evalX += windowValue(s.count[w])
		for i := range 2 {
			if k1 == 0 { // k = 1: every empty window is one stone from a line
				s.open[i] = append(s.open[i], int32(w))
				s.openAt[i][w] = int32(len(s.open[i]))
			}
		}
	}
}

// emptyIn returns the first empty cell of window w (-1 if none).
func (s *BigSearcher) emptyIn(w int) int {
	for _, c := range s.g.winCells[w*s.g.K : (w+1)*s.g.K] {
		if s.board[c] == 0 {
			return int(c)
		}
	}
	return -1
}

// Search searches p (valid, not over) by iterative deepening to maxDepth
// plies (0: to the end of the game) or until budget runs out (0: none), as
// Searcher.Search does; cells in the result are numbered r*Cols+c.
func (s *BigSearcher) Search(ctx context.Context, p BigPosition, maxDepth int, budget time.Duration) (Result, error) {
	g := s.g
	s.ctx, s.abort, s.deadline = ctx, false, time.Time{}
	if g.Status(p) != mnk.Ongoing {
		return Result{Move: -1}, nil
	}
	s.reset()
	for cell, v := range p {
		if v != 0 {
			s.place(cell, v)
		}
	}
	return deepen(ctx, maxDepth, g.cells-s.stones, !s.Near, budget, &s.nodes, &s.abort, &s.deadline, &s.prevPV,
		func(depth int) (int32, []int) {
			s.ply, s.onPV[0] = 0, true
			score := s.search(depth, -Mate-1, Mate+1)
			return score, ints(s.pv[0][:s.pvLen[0]])
		})
}

func (s *BigSearcher) search(depth int, alpha, beta int32) int32 {
	s.nodes++
	ply := s.ply
	s.pvLen[ply] = ply
	if s.nodes&pollMask == 0 && (s.ctx.Err() != nil || !s.deadline.IsZero() && time.Now().After(s.deadline)) {
		s.abort = true
	}
	if s.abort {
		return 0
	}
	g := s.g
	if s.stones == g.cells {
		return 0
	}
	me := 0 // index of the side to move in count
	if s.stones&1 == 1 {
		me = 1
	}
	them := 1 - me
	if len(s.open[me]) > 0 {
		s.pv[ply][ply] = int16(s.emptyIn(int(s.open[me][0])))
		s.pvLen[ply] = ply + 1
		return Mate - int32(ply+1)
	}
	threat, threat2 := -1, -1 // two distinct cells where the opponent completes a line
	for _, w := range s.open[them] {
		switch c := s.emptyIn(int(w)); {
		case threat < 0:
			threat = c
		case c != threat:
			threat2 = c
		}
		if threat2 >= 0 {
			break
		}
	}
	if threat2 >= 0 {
		s.pv[ply][ply], s.pv[ply][ply+1] = int16(min(threat, threat2)), int16(max(threat, threat2))
		s.pvLen[ply] = ply + 2
		return -(Mate - int32(ply+2))
	}
	if depth == 0 {
		if me == 1 {
			return -s.evalX
		}
		return s.evalX
	}
	var entry *bigEntry
	ttMove := -1
	if s.tt != nil {
		entry = &s.tt[s.hash&s.mask]
		if entry.bound != 0 && entry.key == s.hash {
			ttMove = int(entry.move)
			if int(entry.depth) == depth {
				if sc := fromTable(entry.score, ply); cuts(entry.bound, sc, alpha, beta) {
					return sc
				}
			}
		}
	}
	alpha0 := alpha

	moves, sc := s.moves[ply], s.scores[ply]
	n := 0
	if threat >= 0 {
		moves[0] = int16(threat)
		n = 1
	} else {
		pvMove := -1
		if s.onPV[ply] && ply < len(s.prevPV) {
			pvMove = s.prevPV[ply]
		}
		n = s.orderMoves(moves, sc, me, pvMove, ttMove)
	}

	best, bestMove := int32(-Mate-1), -1
	side := int8(me + 1)
	for i := range n {
		// Select the best move left: most nodes cut off after a few
		// moves, so sorting all of them would cost more than it saves.
		bi := i
		for j := i + 1; j < n; j++ {
			if sc[j] > sc[bi] {
				bi = j
			}
		}
		moves[i], moves[bi], sc[i], sc[bi] = moves[bi], moves[i], sc[bi], sc[i]
		c := int(moves[i])
		s.place(c, side)
		s.ply++
		s.onPV[ply+1] = s.onPV[ply] && ply < len(s.prevPV) && c == s.prevPV[ply]
		v := -s.search(depth-1, -beta, -alpha)
		s.ply--
		s.remove(c)
		if s.abort {
			return 0
		}
		if v > best {
			best, bestMove = v, c
			if v > alpha {
				alpha = v
				s.pv[ply][ply] = int16(c)
				copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
				s.pvLen[ply] = s.pvLen[ply+1]
				if alpha >= beta {
					break
				}
			}
		}
	}
	if entry != nil {
		*entry = bigEntry{s.hash, toTable(best, ply), int16(bestMove), int8(depth), boundOf(best, alpha0, beta)}
	}
	return best
}

// orderMoves lists the moves of the side me (count index) into moves, with
// their ordering scores in sc (search takes them best first): the previous
// principal variation's move, the table's, then by the window weights of
// Searcher (attack 4, defence 3, times four to the power of the stones on
// each open window through the cell).
func (s *BigSearcher) orderMoves(moves []int16, sc []int32, me, pvMove, ttMove int) int {
	g := s.g
	s.epoch++
	if s.epoch == 0 {
		clear(s.mark)
		s.epoch = 1
	}
	n := 0
	add := func(c int) {
		if s.board[c] != 0 || s.mark[c] == s.epoch {
			return
		}
		s.mark[c] = s.epoch
		var v int32
		switch c {
		case pvMove:
			v = 1 << 30
		case ttMove:
			v = 1 << 29
		default:
			for _, w := range g.cellWin[c] {
				a, b := s.count[w][me], s.count[w][1-me]
				if b == 0 {
					v += 4 << (2 * a)
				}
				if a == 0 {
					v += 3 << (2 * b)
				}
			}
		}
		moves[n], sc[n] = int16(c), v
		n++
	}
	switch {
	case !s.Near:
		for c := range g.cells {
			add(c)
		}
	case s.stones == 0:
		add(g.Rows/2*g.Cols + g.Cols/2)
	default:
		for c, v := range s.board {
			if v != 0 {
				for _, d := range g.near[c] {
					add(int(d))
				}
			}
		}
	}
	return n
}

// sizeError is a bad game size: its message says what is allowed, and it
// matches mnk.ErrBoardSize or mnk.ErrK with errors.Is.
type sizeError struct {
	msg  string
	kind error
}

func (e *sizeError) Error() string { return e.msg }

func (e *sizeError) Unwrap() error { return e.kind }

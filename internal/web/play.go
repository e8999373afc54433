package web

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/player"
)

// The m,n,k games of /play: boards of up to maxPlaySide on a side, the
// person against one of the players of pkg/player. Boards of up to
// mnk.MaxSide on a side are the engine's mnk.Game (the perfect player's
// oracle, search.Searcher); bigger ones, gomoku's 15x15, search.BigGame
// and search.BigSearcher. The server keeps the board as a cell per byte,
// row-major (r*cols+c), which is a search.BigPosition as it is.
//
// A move is made under the game's mutex; the engine's reply is searched
// outside it, with the game marked thinking, so that the state can be read
// meanwhile and a second move is refused as out of turn rather than queued
// behind the search. If the reply fails (the request is cancelled, or the
// search outlasts replyLimit), the person's move is taken back: a refused
// request leaves the game as it was.

const (
	// maxPlaySide is the largest side of a board at /play: gomoku's.
	maxPlaySide = 15
	// bigOpponent is the default opponent on boards too big for the
	// perfect player, as for analyze play.
	bigOpponent = "engine:time=1s"
	// maxOpponentTime bounds an engine opponent's time per move: a
	// browser's player waits for it, and it holds a core meanwhile.
	maxOpponentTime = 10 * time.Second
	// replyLimit bounds one reply of the engine, whatever the opponent: a
	// deep depth-limited search of a big board could outlast anyone's
	// patience.
	replyLimit = 30 * time.Second
	// analysisTime is the engine's time for an analysis where it cannot
	// be exact; maxAnalysisTime bounds the time a request may ask for.
	analysisTime    = time.Second
	maxAnalysisTime = 10 * time.Second
	// mnkTableBytes is the table of a search of an analysis or of a big
	// board's reply (pkg/player sizes its own players' tables).
	mnkTableBytes = 16 << 20
)

// engineSlots bounds the searches running at once in the process, one per
// core: more would only share the cores and make every player wait
// longer. A search waits for a slot under its request's context.
var engineSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// withEngine runs f in an engine slot.
func withEngine(ctx context.Context, f func() error) error {
	select {
	case engineSlots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-engineSlots }()
	return f()
}

// replyError answers a failed engine reply or analysis: the request gone
// or the search too long (503, the state unchanged), or a fault.
func (s *Server) replyError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case r.Context().Err() != nil:
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("wopr did not answer within %v: choose a shorter time or a shallower depth", replyLimit))
	default:
		s.log.Error("web: engine", "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal error: the engine failed")
	}
}

// sideName is "x" or "o" for 1 or 2.
func sideName(side int8) string { return [3]string{"", "x", "o"}[side] }

// mnkGame is one m,n,k game against the engine. mu guards every field but
// the immutable ones (the board's size, the players).
type mnkGame struct {
	rows, cols, k int
	small         *mnk.Game       // boards of up to mnk.MaxSide on a side, else nil
	big           *search.BigGame // the others
	human         int8            // 1: X, 2: O
	opp           player.Spec

	mu       sync.Mutex
	cells    []int8 // r*cols+c: 0 empty, 1 X, 2 O
	moves    []int
	result   mnk.Result
	line     []int // the winning line's cells, sorted
	thinking bool
	rng      *rand.Rand // the random opponent's, used by one reply at a time
}

// mnkNew is the body of POST /api/mnk/games.
type mnkNew struct {
	Rows     int    `json:"rows"`
	Cols     int    `json:"cols"`
	K        int    `json:"k"`
	Human    string `json:"human"`
	Opponent string `json:"opponent"`
}

// mnkMove is the body of POST /api/mnk/games/{id}/moves; both fields are
// required.
type mnkMove struct {
	Row *int `json:"row"`
	Col *int `json:"col"`
}

// mnkState is a game as the API shows it.
type mnkState struct {
	ID       string `json:"id"`
	Rows     int    `json:"rows"`
	Cols     int    `json:"cols"`
	K        int    `json:"k"`
	Human    string `json:"human"`
	Opponent string `json:"opponent"`
	// Board is a string per row, top first, of "X", "O" and ".".
	Board []string `json:"board"`
	// ToMove is "x" or "o", "" once the game is over; Result is "" while
	// it goes on, then "x", "o" or "draw".
	ToMove      string   `json:"to_move"`
	Result      string   `json:"result"`
	WinningLine [][2]int `json:"winning_line"`
	Moves       [][2]int `json:"moves"`
	// Thinking: the engine is searching its reply.
	Thinking bool `json:"thinking"`
}

// mnkAnalysis is the engine's view of a position.
type mnkAnalysis struct {
	// Engine is "perfect" (exact, boards of up to 16 cells) or the
	// engine's search with its time.
	Engine string `json:"engine"`
	ToMove string `json:"to_move"`
	Best   [2]int `json:"best"`
	// PV is the principal variation, Best first.
	PV [][2]int `json:"pv"`
	// Value is "win", "draw" or "loss" for the side to move when it is
	// known (Exact), or a forced result among the moves searched; "" for
	// a heuristic score. Plies counts to the end with best play.
	Value string `json:"value"`
	Exact bool   `json:"exact"`
	Plies int    `json:"plies,omitempty"`
	// Score is the search's score for the side to move (0 for perfect);
	// Depth its last complete iteration.
	Score   int     `json:"score"`
	Depth   int     `json:"depth"`
	Nodes   uint64  `json:"nodes"`
	Seconds float64 `json:"seconds"`
	Summary string  `json:"summary"`
}

func (s *Server) playRoutes() {
	s.mux.HandleFunc("GET /play", func(w http.ResponseWriter, r *http.Request) {
		s.page(w, "play.html", map[string]any{"Title": "Play", "Nav": "play",
			"MaxSide": maxPlaySide, "MaxPerfectCells": player.MaxPerfectCells, "SmallSide": mnk.MaxSide, "MaxBigK": search.MaxBigK})
	})
	s.mux.HandleFunc("POST /api/mnk/games", s.mnkCreate)
	s.mux.HandleFunc("GET /api/mnk/games/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		g, ok := s.mnk.get(id)
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no game %q (unknown, or forgotten after %v idle)", id, s.o.IdleGame))
			return
		}
		g.mu.Lock()
		st := g.state(id)
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
	})
	s.mux.HandleFunc("POST /api/mnk/games/{id}/moves", s.mnkMove)
	s.mux.HandleFunc("GET /api/mnk/games/{id}/analysis", s.mnkAnalyse)
}

// newMNKGame checks the parameters of a game; the error names the field.
func newMNKGame(p mnkNew) (*mnkGame, error) {
	if p.Rows < 1 || p.Rows > maxPlaySide {
		return nil, fmt.Errorf("rows %d: want 1 to %d", p.Rows, maxPlaySide)
	}
	if p.Cols < 1 || p.Cols > maxPlaySide {
		return nil, fmt.Errorf("cols %d: want 1 to %d", p.Cols, maxPlaySide)
	}
	if maxK := max(p.Rows, p.Cols); p.K < 1 || p.K > maxK {
		return nil, fmt.Errorf("k %d: want 1 to %d (the longer side of %dx%d)", p.K, maxK, p.Rows, p.Cols)
	}
	g := &mnkGame{rows: p.Rows, cols: p.Cols, k: p.K}
	var err error
	if p.Rows <= mnk.MaxSide && p.Cols <= mnk.MaxSide {
		g.small, err = mnk.New(p.Rows, p.Cols, p.K)
	} else {
		if p.K > search.MaxBigK {
			return nil, fmt.Errorf("k %d: the engine plays boards of more than %d on a side with k up to %d", p.K, mnk.MaxSide, search.MaxBigK)
		}
		g.big, err = search.NewBig(p.Rows, p.Cols, p.K)
	}
	if err != nil {
		return nil, fmt.Errorf("rows, cols, k: %v", err)
	}
	switch strings.ToLower(p.Human) {
	case "", "x":
		g.human = 1
	case "o":
		g.human = 2
	default:
		return nil, fmt.Errorf("human %q: want \"x\" (you move first) or \"o\"", p.Human)
	}
	cells := p.Rows * p.Cols
	perfectOK := g.small != nil && cells <= player.MaxPerfectCells
	opp := p.Opponent
	if opp == "" {
		opp = "perfect"
		if !perfectOK {
			opp = bigOpponent
		}
	}
	if g.opp, err = player.Parse(opp); err != nil {
		return nil, fmt.Errorf("opponent: %v", err)
	}
	switch {
	case g.opp.Kind == player.Human:
		return nil, fmt.Errorf("opponent human: you play against wopr: want perfect, random, engine:depth=D or engine:time=T")
	case g.opp.Kind == player.Perfect && !perfectOK:
		return nil, fmt.Errorf("opponent perfect: perfect play is known for boards of up to %d cells (and %d on a side); %dx%d has %d: choose %s",
			player.MaxPerfectCells, mnk.MaxSide, p.Rows, p.Cols, cells, bigOpponent)
	case g.opp.Time > maxOpponentTime:
		return nil, fmt.Errorf("opponent %s: at most %v a move here", g.opp, maxOpponentTime)
	}
	g.cells = make([]int8, cells)
	g.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	return g, nil
}

func (s *Server) mnkCreate(w http.ResponseWriter, r *http.Request) {
	var p mnkNew
	if !readJSON(w, r, &p) {
		return
	}
	g, err := newMNKGame(p)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The game is no one else's until it is stored: no lock needed.
	if g.human == 2 {
		cell, err := g.reply(r.Context(), slices.Clone(g.cells), g.rng)
		if err != nil {
			s.replyError(w, r, err)
			return
		}
		g.play(cell)
	}
	id := s.mnk.add(g)
	writeJSON(w, http.StatusCreated, g.state(id))
}

func (s *Server) mnkMove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	g, ok := s.mnk.get(id)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no game %q (unknown, or forgotten after %v idle)", id, s.o.IdleGame))
		return
	}
	var m mnkMove
	if !readJSON(w, r, &m) {
		return
	}
	if m.Row == nil || m.Col == nil {
		writeError(w, http.StatusBadRequest, `want {"row": R, "col": C}, both from 0`)
		return
	}
	g.mu.Lock()
	status, why := g.refuse(*m.Row, *m.Col)
	if status != 0 {
		g.mu.Unlock()
		writeError(w, status, why)
		return
	}
	g.play(*m.Row*g.cols + *m.Col)
	if g.result != mnk.Ongoing {
		st := g.state(id)
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
		return
	}
	g.thinking = true
	cells := slices.Clone(g.cells)
	g.mu.Unlock()

	cell, err := g.reply(r.Context(), cells, g.rng)

	g.mu.Lock()
	defer g.mu.Unlock()
	g.thinking = false
	if err != nil {
		g.takeBack()
		s.replyError(w, r, err)
		return
	}
	g.play(cell)
	writeJSON(w, http.StatusOK, g.state(id))
}

// refuse says why the person may not play (row, col) now, with the status
// to answer, or returns 0. g.mu is held.
func (g *mnkGame) refuse(row, col int) (int, string) {
	switch {
	case g.result != mnk.Ongoing:
		return http.StatusConflict, "the game is over: " + resultWords(g.result)
	case g.thinking || g.toMove() != g.human:
		return http.StatusConflict, fmt.Sprintf("out of turn: it is %s's move, wopr's", strings.ToUpper(sideName(3-g.human)))
	case row < 0 || row >= g.rows || col < 0 || col >= g.cols:
		return http.StatusBadRequest, fmt.Sprintf("cell %d,%d is off the board: rows 0 to %d, columns 0 to %d", row, col, g.rows-1, g.cols-1)
	case g.cells[row*g.cols+col] != 0:
		return http.StatusConflict, fmt.Sprintf("cell %d,%d is taken", row, col)
	}
	return 0, ""
}

func resultWords(r mnk.Result) string {
	switch r {
	case mnk.XWin:
		return "X won"
	case mnk.OWin:
		return "O won"
	}
	return "a draw"
}

// toMove is the side to move, 1 (X) or 2 (O).
func (g *mnkGame) toMove() int8 {
	if len(g.moves)%2 == 0 {
		return 1
	}
	return 2
}

// play puts the side to move's stone on cell (empty; the game going on)
// and judges the game by the engine's rules.
func (g *mnkGame) play(cell int) {
	g.cells[cell] = g.toMove()
	g.moves = append(g.moves, cell)
	if g.small != nil {
		g.result = g.small.Status(g.position(g.cells))
	} else {
		g.result = g.big.Status(search.BigPosition(g.cells))
	}
	g.line = nil
	if g.result == mnk.XWin || g.result == mnk.OWin {
		g.line = g.lineThrough(cell)
	}
}

// takeBack takes back the last move.
func (g *mnkGame) takeBack() {
	last := g.moves[len(g.moves)-1]
	g.moves = g.moves[:len(g.moves)-1]
	g.cells[last] = 0
	g.result, g.line = mnk.Ongoing, nil
}

// lineThrough returns the cells of the lines of at least k stones through
// cell, in every direction, sorted.
func (g *mnkGame) lineThrough(cell int) []int {
	side := g.cells[cell]
	r0, c0 := cell/g.cols, cell%g.cols
	line := []int{cell}
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		var run []int
		for _, sign := range [2]int{1, -1} {
			for r, c := r0+sign*d[0], c0+sign*d[1]; r >= 0 && r < g.rows && c >= 0 && c < g.cols && g.cells[r*g.cols+c] == side; r, c = r+sign*d[0], c+sign*d[1] {
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

// position is cells as a mnk.Position of g.small.
func (g *mnkGame) position(cells []int8) mnk.Position {
	var p mnk.Position
	for i, v := range cells {
		bit := uint64(1) << mnk.Cell(i/g.cols, i%g.cols)
		switch v {
		case 1:
			p.X |= bit
		case 2:
			p.O |= bit
		}
	}
	return p
}

// reply is the opponent's move in cells (a copy of the board: the search
// runs without the game's lock), searched under ctx and replyLimit.
func (g *mnkGame) reply(ctx context.Context, cells []int8, rng *rand.Rand) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, replyLimit)
	defer cancel()
	if g.opp.Kind == player.Random {
		var empty []int
		for i, v := range cells {
			if v == 0 {
				empty = append(empty, i)
			}
		}
		return empty[rng.IntN(len(empty))], nil
	}
	cell := -1
	err := withEngine(ctx, func() error {
		if g.small != nil {
			// A player per move: an engine player owns a table of
			// megabytes, too much to keep for every idle game.
			pl, err := player.New(g.opp, g.small)
			if err != nil {
				return err
			}
			ch, err := pl.Move(ctx, g.position(cells), rng)
			if err != nil {
				return err
			}
			cell = ch.Cell/8*g.cols + ch.Cell%8
			return nil
		}
		res, err := search.NewBigSearcher(g.big, mnkTableBytes).Search(ctx, search.BigPosition(cells), g.opp.Depth, g.opp.Time)
		if err != nil {
			return err
		}
		cell = res.Move
		return nil
	})
	if err != nil {
		return 0, err
	}
	if cell < 0 || cell >= len(cells) || cells[cell] != 0 {
		return 0, fmt.Errorf("player %s chose cell %d, not an empty cell", g.opp, cell)
	}
	return cell, nil
}

// state is the game as the API shows it. g.mu is held.
func (g *mnkGame) state(id string) mnkState {
	st := mnkState{ID: id, Rows: g.rows, Cols: g.cols, K: g.k, Human: sideName(g.human), Opponent: g.opp.String(),
		Board: make([]string, g.rows), WinningLine: [][2]int{}, Moves: make([][2]int, len(g.moves)), Thinking: g.thinking}
	var b strings.Builder
	for r := range g.rows {
		b.Reset()
		for c := range g.cols {
			b.WriteByte(".XO"[g.cells[r*g.cols+c]])
		}
		st.Board[r] = b.String()
	}
	switch g.result {
	case mnk.Ongoing:
		st.ToMove = sideName(g.toMove())
	case mnk.XWin:
		st.Result = "x"
	case mnk.OWin:
		st.Result = "o"
	case mnk.Draw:
		st.Result = "draw"
	}
	for _, c := range g.line {
		st.WinningLine = append(st.WinningLine, [2]int{c / g.cols, c % g.cols})
	}
	for i, c := range g.moves {
		st.Moves[i] = [2]int{c / g.cols, c % g.cols}
	}
	return st
}

func (s *Server) mnkAnalyse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	g, ok := s.mnk.get(id)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no game %q (unknown, or forgotten after %v idle)", id, s.o.IdleGame))
		return
	}
	budget := analysisTime
	if t := r.URL.Query().Get("time"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d < time.Millisecond || d > maxAnalysisTime {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("time %q: want a duration from 1ms to %v, e.g. 500ms", t, maxAnalysisTime))
			return
		}
		budget = d
	}
	g.mu.Lock()
	cells, result := slices.Clone(g.cells), g.result
	g.mu.Unlock()
	if result != mnk.Ongoing {
		writeError(w, http.StatusConflict, "the game is over: "+resultWords(result)+"; nothing to analyse")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), replyLimit)
	defer cancel()
	var a mnkAnalysis
	err := withEngine(ctx, func() error {
		var err error
		a, err = g.analyse(ctx, cells, budget)
		return err
	})
	if err != nil {
		s.replyError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// analyse is the engine's view of cells (a position going on): exact on
// the boards the perfect player plays, else a search for budget.
func (g *mnkGame) analyse(ctx context.Context, cells []int8, budget time.Duration) (mnkAnalysis, error) {
	start := time.Now()
	toMove := int8(1)
	if search.BigPosition(cells).Ply()%2 == 1 {
		toMove = 2
	}
	me, them := strings.ToUpper(sideName(toMove)), strings.ToUpper(sideName(3-toMove))
	a := mnkAnalysis{ToMove: sideName(toMove), PV: [][2]int{}}
	rc := func(cell int) [2]int { return [2]int{cell / g.cols, cell % g.cols} }
	if g.small != nil && g.small.Cells() <= player.MaxPerfectCells {
		o, err := player.Oracle(g.small)
		if err != nil {
			return a, err
		}
		p := g.position(cells)
		first := true
		for res := mnk.Ongoing; res == mnk.Ongoing; {
			m, nodes, err := o.Best(ctx, p)
			if err != nil {
				return a, err
			}
			a.Nodes += nodes
			if first {
				a.Value, a.Plies, first = m.Value.String(), m.Plies, false
			}
			a.PV = append(a.PV, [2]int{m.Cell / 8, m.Cell % 8})
			p, res = g.small.Play(p, m.Cell)
		}
		a.Engine, a.Exact, a.Best = "perfect", true, a.PV[0]
		switch a.Value {
		case "win":
			a.Summary = fmt.Sprintf("%s wins in %s with best play", me, pliesWords(a.Plies))
		case "loss":
			a.Summary = fmt.Sprintf("%s wins in %s with best play", them, pliesWords(a.Plies))
		default:
			a.Summary = "a draw with best play"
		}
		a.Seconds = time.Since(start).Seconds()
		return a, nil
	}
	var (
		res  search.Result
		err  error
		near bool
	)
	if g.small != nil {
		res, err = search.New(g.small, mnkTableBytes).Search(ctx, g.position(cells), 0, budget)
		for i, c := range res.PV {
			res.PV[i] = c/8*g.cols + c%8
		}
	} else {
		s := search.NewBigSearcher(g.big, mnkTableBytes)
		res, err = s.Search(ctx, search.BigPosition(cells), 0, budget)
		near = s.Near
	}
	if err != nil {
		return a, err
	}
	a.Engine = player.Spec{Kind: player.Engine, Time: budget}.String()
	a.Score, a.Depth, a.Nodes = res.Score, res.Depth, res.Nodes
	for _, c := range res.PV {
		a.PV = append(a.PV, rc(c))
	}
	if len(a.PV) > 0 {
		a.Best = a.PV[0]
	}
	n := res.MatePlies()
	among := ""
	if near && (n > 3 || n < -3) {
		among = " among moves near stones"
	}
	switch {
	case n > 0:
		a.Value, a.Plies, a.Exact = "win", n, among == ""
		a.Summary = fmt.Sprintf("%s wins in %s%s (depth %d)", me, pliesWords(n), among, res.Depth)
	case n < 0:
		a.Value, a.Plies, a.Exact = "loss", -n, among == ""
		a.Summary = fmt.Sprintf("%s wins in %s%s (depth %d)", them, pliesWords(-n), among, res.Depth)
	case res.Exhaustive:
		a.Value, a.Exact = "draw", true
		a.Summary = "a draw with best play"
	default:
		a.Summary = fmt.Sprintf("score %+d for %s (heuristic, depth %d)", res.Score, me, res.Depth)
	}
	a.Seconds = time.Since(start).Seconds()
	return a, nil
}

// pliesWords is "1 ply" or "N plies".
func pliesWords(n int) string {
	if n == 1 {
		return "1 ply"
	}
	return fmt.Sprintf("%d plies", n)
}

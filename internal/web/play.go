package web

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
	"github.com/woprlabs/wopr/pkg/game"
	"github.com/woprlabs/wopr/pkg/player"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// The m,n,k games of /play: boards of up to maxPlaySide on a side, the
// person against one of the players of pkg/player. A game is a game.MNK:
// boards of up to mnk.MaxSide on a side are the engine's mnk.Game,
// bigger ones, gomoku's 15x15, its search.BigGame.
//
// A move is made under the game's mutex; the engine's reply is searched
// outside it, on a clone, with the game marked thinking, so that the state
// can be read meanwhile and a second move is refused as out of turn rather
// than queued behind the search. If the reply fails (the request is
// cancelled, or the search outlasts replyLimit), the person's move is
// taken back: a refused request leaves the game as it was.

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
// the immutable ones (the players).
type mnkGame struct {
	human int8 // 1: X, 2: O
	opp   player.Spec

	mu       sync.Mutex
	s        *game.MNK
	thinking bool
	rng      *rand.Rand // the random opponent's, used by one reply at a time
}

// mnkNew is the body of POST /api/mnk/games. Each field may be left out,
// as analyze play's flags may: the board is then 3x3 (a side left out is
// the other's), k the CLI's default for the board (mnktasks.DefaultK), the
// human X, and the opponent perfect where it can be.
type mnkNew struct {
	Rows     *int   `json:"rows"`
	Cols     *int   `json:"cols"`
	K        *int   `json:"k"`
	Human    string `json:"human"`
	Opponent string `json:"opponent"`
	// Game, if set, is a game written down ("3x3 k3: 1,1 0,0",
	// game.MNKRecord): the new game is its board and k (rows, cols and k
	// may be left out, or must agree) after its moves.
	Game string `json:"game"`
}

// defaultSide is the side of a board left out of POST /api/mnk/games, as
// analyze play's --board 3x3.
const defaultSide = 3

// size is the board and k that p asks for, with the defaults.
func (p mnkNew) size() (rows, cols, k int) {
	rows, cols = defaultSide, defaultSide
	switch {
	case p.Rows != nil && p.Cols != nil:
		rows, cols = *p.Rows, *p.Cols
	case p.Rows != nil:
		rows, cols = *p.Rows, *p.Rows
	case p.Cols != nil:
		rows, cols = *p.Cols, *p.Cols
	}
	if p.K != nil {
		return rows, cols, *p.K
	}
	return rows, cols, mnktasks.DefaultK(rows, cols)
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
	// Record is the game written down (game.MNKRecord), which POST
	// /api/mnk/games takes back as "game".
	Record string `json:"record"`
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
	var record *game.MNKRecord
	if p.Game != "" {
		r, err := game.ParseMNKRecord(p.Game)
		if err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name string
			sent *int
			game int
		}{{"rows", p.Rows, r.Rows}, {"cols", p.Cols, r.Cols}, {"k", p.K, r.K}} {
			if f.sent != nil && *f.sent != f.game {
				return nil, fmt.Errorf("%s %d: the game sent is %dx%d k%d", f.name, *f.sent, r.Rows, r.Cols, r.K)
			}
		}
		p.Rows, p.Cols, p.K, record = &r.Rows, &r.Cols, &r.K, &r
	}
	rows, cols, k := p.size()
	if rows < 1 || rows > maxPlaySide {
		return nil, fmt.Errorf("rows %d: want 1 to %d", rows, maxPlaySide)
	}
	if cols < 1 || cols > maxPlaySide {
		return nil, fmt.Errorf("cols %d: want 1 to %d", cols, maxPlaySide)
	}
	if maxK := max(rows, cols); k < 1 || k > maxK {
		return nil, fmt.Errorf("k %d: want 1 to %d (the longer side of %dx%d)", k, maxK, rows, cols)
	}
	if (rows > mnk.MaxSide || cols > mnk.MaxSide) && k > search.MaxBigK {
		return nil, fmt.Errorf("k %d: the engine plays boards of more than %d on a side with k up to %d", k, mnk.MaxSide, search.MaxBigK)
	}
	s, err := game.NewMNK(rows, cols, k)
	if err != nil {
		return nil, fmt.Errorf("rows, cols, k: %v", err)
	}
	if record != nil {
		if err := s.PlayRecord(record.Moves); err != nil {
			return nil, err
		}
		if s.Result() != mnk.Ongoing {
			return nil, fmt.Errorf("game %q: the game is over", p.Game)
		}
	}
	g := &mnkGame{s: s}
	switch strings.ToLower(p.Human) {
	case "", "x":
		g.human = 1
	case "o":
		g.human = 2
	default:
		return nil, fmt.Errorf("human %q: want \"x\" (you move first) or \"o\"", p.Human)
	}
	cells := rows * cols
	perfectOK := s.Exact()
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
			player.MaxPerfectCells, mnk.MaxSide, rows, cols, cells, bigOpponent)
	case g.opp.Time > maxOpponentTime:
		return nil, fmt.Errorf("opponent %s: at most %v a move here", g.opp, maxOpponentTime)
	}
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
	if g.toMove() != g.human {
		cell, err := g.reply(r.Context(), g.s)
		if err != nil {
			s.replyError(w, r, err)
			return
		}
		g.s.Play(cell)
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
	g.s.Play(*m.Row*g.s.Cols() + *m.Col)
	if g.s.Result() != mnk.Ongoing {
		st := g.state(id)
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
		return
	}
	g.thinking = true
	clone := g.s.Clone()
	g.mu.Unlock()

	cell, err := g.reply(r.Context(), clone)

	g.mu.Lock()
	defer g.mu.Unlock()
	g.thinking = false
	if err != nil {
		g.s.TakeBack()
		s.replyError(w, r, err)
		return
	}
	g.s.Play(cell)
	writeJSON(w, http.StatusOK, g.state(id))
}

// refuse says why the person may not play (row, col) now, with the status
// to answer, or returns 0. g.mu is held.
func (g *mnkGame) refuse(row, col int) (int, string) {
	why := g.s.Refuse(row, col)
	switch {
	case why&game.Over != 0:
		return http.StatusConflict, "the game is over: " + resultWords(g.s.Result())
	case g.thinking || g.toMove() != g.human:
		return http.StatusConflict, fmt.Sprintf("out of turn: it is %s's move, wopr's", strings.ToUpper(sideName(3-g.human)))
	case why&game.OffBoard != 0:
		return http.StatusBadRequest, fmt.Sprintf("cell %d,%d is off the board: rows 0 to %d, columns 0 to %d", row, col, g.s.Rows()-1, g.s.Cols()-1)
	case why&game.Taken != 0:
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
	if g.s.XToMove() {
		return 1
	}
	return 2
}

// reply is the opponent's move in s (a clone of the game when others may
// read it: the search runs without the game's lock), searched under ctx
// and replyLimit. The seat has no player: game.MNK.Reply makes one for the
// move.
func (g *mnkGame) reply(ctx context.Context, s *game.MNK) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, replyLimit)
	defer cancel()
	seat := game.MNKSeat{Spec: g.opp}
	if g.opp.Kind == player.Random {
		return s.Reply(ctx, seat, g.rng)
	}
	cell := -1
	err := withEngine(ctx, func() error {
		var err error
		cell, err = s.Reply(ctx, seat, g.rng)
		return err
	})
	return cell, err
}

// state is the game as the API shows it. g.mu is held.
func (g *mnkGame) state(id string) mnkState {
	rows, cols, board, moves := g.s.Rows(), g.s.Cols(), g.s.Board(), g.s.Moves()
	st := mnkState{ID: id, Rows: rows, Cols: cols, K: g.s.K(), Human: sideName(g.human), Opponent: g.opp.String(),
		Board: make([]string, rows), WinningLine: [][2]int{}, Moves: make([][2]int, len(moves)), Thinking: g.thinking}
	var b strings.Builder
	for r := range rows {
		b.Reset()
		for c := range cols {
			b.WriteByte(".XO"[board[r*cols+c]])
		}
		st.Board[r] = b.String()
	}
	switch g.s.Result() {
	case mnk.Ongoing:
		st.ToMove = sideName(g.toMove())
	case mnk.XWin:
		st.Result = "x"
	case mnk.OWin:
		st.Result = "o"
	case mnk.Draw:
		st.Result = "draw"
	}
	for _, c := range g.s.Line() {
		st.WinningLine = append(st.WinningLine, [2]int{c / cols, c % cols})
	}
	for i, c := range moves {
		st.Moves[i] = [2]int{c / cols, c % cols}
	}
	st.Record = g.s.Record().String()
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
	clone := g.s.Clone()
	g.mu.Unlock()
	if result := clone.Result(); result != mnk.Ongoing {
		writeError(w, http.StatusConflict, "the game is over: "+resultWords(result)+"; nothing to analyse")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), replyLimit)
	defer cancel()
	var a game.MNKAnalysis
	err := withEngine(ctx, func() error {
		var err error
		a, err = clone.Analyse(ctx, budget)
		return err
	})
	if err != nil {
		s.replyError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, mnkAnalysisOf(clone, a))
}

// mnkAnalysisOf is the API's view of a, the analysis of s.
func mnkAnalysisOf(s *game.MNK, a game.MNKAnalysis) mnkAnalysis {
	toMove := int8(1)
	if !s.XToMove() {
		toMove = 2
	}
	me, them := strings.ToUpper(sideName(toMove)), strings.ToUpper(sideName(3-toMove))
	cols := s.Cols()
	v := mnkAnalysis{Engine: a.Engine.String(), ToMove: sideName(toMove), PV: [][2]int{}, Exact: a.Exact, Plies: a.Plies,
		Score: a.Score, Depth: a.Depth, Nodes: a.Nodes, Seconds: a.Elapsed.Seconds()}
	for _, c := range a.PV {
		v.PV = append(v.PV, [2]int{c / cols, c % cols})
	}
	if len(v.PV) > 0 {
		v.Best = v.PV[0]
	}
	if a.Known {
		v.Value = a.Value.String()
	}
	among := ""
	if a.NearOnly {
		among = " among moves near stones"
	}
	switch {
	case a.Engine.Kind == player.Perfect && a.Value == mnk.Win:
		v.Summary = fmt.Sprintf("%s wins in %s with best play", me, pliesWords(a.Plies))
	case a.Engine.Kind == player.Perfect && a.Value == mnk.Loss:
		v.Summary = fmt.Sprintf("%s wins in %s with best play", them, pliesWords(a.Plies))
	case a.Known && a.Value == mnk.Win:
		v.Summary = fmt.Sprintf("%s wins in %s%s (depth %d)", me, pliesWords(a.Plies), among, a.Depth)
	case a.Known && a.Value == mnk.Loss:
		v.Summary = fmt.Sprintf("%s wins in %s%s (depth %d)", them, pliesWords(a.Plies), among, a.Depth)
	case a.Known:
		v.Summary = "a draw with best play"
	default:
		v.Summary = fmt.Sprintf("score %+d for %s (heuristic, depth %d)", a.Score, me, a.Depth)
	}
	return v
}

// pliesWords is "1 ply" or "N plies".
func pliesWords(n int) string {
	if n == 1 {
		return "1 ply"
	}
	return fmt.Sprintf("%d plies", n)
}

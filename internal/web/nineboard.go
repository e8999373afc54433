package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/game"
	"github.com/woprlabs/wopr/pkg/player"
)

// Nine-board tic-tac-toe at /nineboard: the person against a nine-board
// player of pkg/player (random, or the engine at a depth or a time), as analyze
// nineboard play plays it; a game is a game.Nineboard. Boards and cells are
// 1 to 9 in the API, as the referee protocol and the terminal write them
// ("5:3"). In first-triple the referee makes X's first move at random, as
// in matches. Moves and replies are made as for the m,n,k games (see
// play.go): the search runs outside the game's lock, on a clone, with the
// game marked thinking, and a failed reply takes the person's move back.

// nineDefaultOpponent replies in milliseconds, the same move every time in
// the same position (analyze nineboard play's default).
const nineDefaultOpponent = "engine:depth=8"

// nineAnalyst analyses positions: the terminal's hint.
var nineAnalyst = game.NineboardSeat{Spec: player.Spec{Kind: player.Engine, Depth: game.NineboardHintDepth}}

// nineGame is one nine-board game against the engine. mu guards every
// field but the immutable ones (the players).
type nineGame struct {
	human nineboard.Player
	opp   player.Spec

	mu       sync.Mutex
	s        *game.Nineboard
	thinking bool
	rng      *rand.Rand
}

// nineNew is the body of POST /api/nineboard/games.
type nineNew struct {
	Human    string `json:"human"`
	Opponent string `json:"opponent"`
	Variant  string `json:"variant"`
}

// nineMove is the body of POST /api/nineboard/games/{id}/moves: board and
// cell, 1 to 9 each.
type nineMove struct {
	Board *int `json:"board"`
	Cell  *int `json:"cell"`
}

// nineState is a game as the API shows it.
type nineState struct {
	ID       string `json:"id"`
	Variant  string `json:"variant"`
	Human    string `json:"human"`
	Opponent string `json:"opponent"`
	// Boards are the nine boards, board 1 first, each a string of its
	// nine cells (row-major) of "X", "O" and ".".
	Boards []string `json:"boards"`
	// Won says who won each board (ultimate), "X", "O" or ".".
	Won    string `json:"won"`
	ToMove string `json:"to_move"`
	// Playable are the boards (1-9) the side to move may play in.
	Playable []int  `json:"playable"`
	Result   string `json:"result"`
	Why      string `json:"why"`
	// WinningLine is the winning cells as [board, cell] (first-triple);
	// WinningBoards the boards in a row (ultimate).
	WinningLine   [][2]int `json:"winning_line"`
	WinningBoards []int    `json:"winning_boards"`
	Moves         [][2]int `json:"moves"`
	RefereeMoves  int      `json:"referee_moves"`
	Thinking      bool     `json:"thinking"`
}

// nineAnalysis is the engine's view of a position.
type nineAnalysis struct {
	Engine  string   `json:"engine"`
	ToMove  string   `json:"to_move"`
	Best    [2]int   `json:"best"`
	PV      [][2]int `json:"pv"`
	Value   string   `json:"value"` // "win" or "loss" when forced, else ""
	Plies   int      `json:"plies,omitempty"`
	Score   int      `json:"score"`
	Depth   int      `json:"depth"`
	Nodes   uint64   `json:"nodes"`
	Seconds float64  `json:"seconds"`
	Summary string   `json:"summary"`
}

func (s *Server) nineboardRoutes() {
	s.mux.HandleFunc("GET /nineboard", func(w http.ResponseWriter, r *http.Request) {
		s.page(w, "nineboard.html", map[string]any{"Title": "Nine-board", "Nav": "nineboard"})
	})
	s.mux.HandleFunc("POST /api/nineboard/games", s.nineCreate)
	s.mux.HandleFunc("GET /api/nineboard/games/{id}", func(w http.ResponseWriter, r *http.Request) {
		g, id, ok := s.nineGet(w, r)
		if !ok {
			return
		}
		g.mu.Lock()
		st := g.state(id)
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
	})
	s.mux.HandleFunc("POST /api/nineboard/games/{id}/moves", s.nineMove)
	s.mux.HandleFunc("GET /api/nineboard/games/{id}/analysis", s.nineAnalyse)
}

func (s *Server) nineGet(w http.ResponseWriter, r *http.Request) (*nineGame, string, bool) {
	id := r.PathValue("id")
	g, ok := s.nine.get(id)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no game %q (unknown, or forgotten after %v idle)", id, s.o.IdleGame))
	}
	return g, id, ok
}

// newNineGame checks the parameters of a game; the error names the field.
func newNineGame(p nineNew) (*nineGame, error) {
	g := &nineGame{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
	if p.Variant == "" {
		p.Variant = nineboard.FirstTriple.String()
	}
	variant, err := nineboard.ParseVariant(p.Variant)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(p.Human) {
	case "", "x":
		g.human = nineboard.X
	case "o":
		g.human = nineboard.O
	default:
		return nil, fmt.Errorf("human %q: want \"x\" (you move first) or \"o\"", p.Human)
	}
	if p.Opponent == "" {
		p.Opponent = nineDefaultOpponent
	}
	if g.opp, err = player.ParseNineboard(p.Opponent); err != nil {
		return nil, fmt.Errorf("opponent: %v", err)
	}
	if g.opp.Time > maxOpponentTime {
		return nil, fmt.Errorf("opponent %s: at most %v a move here", g.opp, maxOpponentTime)
	}
	g.s = game.NewNineboard(variant)
	g.s.Open(g.rng)
	return g, nil
}

func (s *Server) nineCreate(w http.ResponseWriter, r *http.Request) {
	var p nineNew
	if !readJSON(w, r, &p) {
		return
	}
	g, err := newNineGame(p)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The game is no one else's until it is stored: no lock needed.
	if g.s.ToMove() != g.human {
		m, err := g.reply(r.Context(), g.s)
		if err != nil {
			s.replyError(w, r, err)
			return
		}
		g.s.Play(m)
	}
	id := s.nine.add(g)
	writeJSON(w, http.StatusCreated, g.state(id))
}

func (s *Server) nineMove(w http.ResponseWriter, r *http.Request) {
	g, id, ok := s.nineGet(w, r)
	if !ok {
		return
	}
	var m nineMove
	if !readJSON(w, r, &m) {
		return
	}
	if m.Board == nil || m.Cell == nil {
		writeError(w, http.StatusBadRequest, `want {"board": B, "cell": C}, 1 to 9 each`)
		return
	}
	g.mu.Lock()
	status, why := g.refuse(*m.Board, *m.Cell)
	if status != 0 {
		g.mu.Unlock()
		writeError(w, status, why)
		return
	}
	g.s.Play(nineboard.NewMove(*m.Board-1, *m.Cell-1))
	if g.s.Result() != nineboard.Ongoing {
		st := g.state(id)
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
		return
	}
	g.thinking = true
	clone := g.s.Clone()
	g.mu.Unlock()

	reply, err := g.reply(r.Context(), clone)

	g.mu.Lock()
	defer g.mu.Unlock()
	g.thinking = false
	if err != nil {
		g.s.TakeBack()
		s.replyError(w, r, err)
		return
	}
	g.s.Play(reply)
	writeJSON(w, http.StatusOK, g.state(id))
}

// refuse says why the person may not play cell of board (1-9 each) now,
// with the status to answer, or returns 0. g.mu is held.
func (g *nineGame) refuse(board, cell int) (int, string) {
	switch {
	case g.s.Result() != nineboard.Ongoing:
		return http.StatusConflict, "the game is over: " + nineResultWords(g.s.Result())
	case g.thinking || g.s.ToMove() != g.human:
		return http.StatusConflict, fmt.Sprintf("out of turn: it is %s's move, wopr's", strings.ToUpper(g.s.ToMove().String()))
	case board < 1 || board > 9:
		return http.StatusBadRequest, fmt.Sprintf("board %d: want 1 to 9", board)
	case cell < 1 || cell > 9:
		return http.StatusBadRequest, fmt.Sprintf("cell %d: want 1 to 9", cell)
	}
	m := nineboard.NewMove(board-1, cell-1)
	switch why := g.s.Refuse(m); {
	case why == 0:
		return 0, ""
	case why&game.WrongBoard != 0:
		return http.StatusConflict, fmt.Sprintf("wrong board: %s: play in board %d", m, g.s.Board().Next()+1)
	case why&game.Taken != 0:
		return http.StatusConflict, fmt.Sprintf("cell %s is taken", m)
	}
	return http.StatusConflict, fmt.Sprintf("board %d is closed (won or full): play in another", board)
}

func nineResultWords(r nineboard.Result) string {
	switch r {
	case nineboard.XWin:
		return "X won"
	case nineboard.OWin:
		return "O won"
	}
	return "a draw"
}

// reply is the opponent's move in s (a clone of the game when others may
// read it: the search runs without the game's lock), under ctx and
// replyLimit. The seat has no player: game.Nineboard.Reply makes one for
// the move.
func (g *nineGame) reply(ctx context.Context, s *game.Nineboard) (nineboard.Move, error) {
	seat := game.NineboardSeat{Spec: g.opp}
	if g.opp.Kind == player.Random {
		info, err := s.Reply(ctx, seat, g.rng)
		return info.Move, err
	}
	ctx, cancel := context.WithTimeout(ctx, replyLimit)
	defer cancel()
	var info nineboard.Info
	err := withEngine(ctx, func() error {
		var err error
		info, err = s.Reply(ctx, seat, g.rng)
		return err
	})
	return info.Move, err
}

// state is the game as the API shows it. g.mu is held.
func (g *nineGame) state(id string) nineState {
	b, moves := g.s.Board(), g.s.Moves()
	st := nineState{ID: id, Variant: g.s.Variant().String(), Human: g.human.String(), Opponent: g.opp.String(),
		Boards: make([]string, 9), Playable: []int{}, WinningLine: [][2]int{}, WinningBoards: []int{},
		Moves: make([][2]int, len(moves)), RefereeMoves: g.s.RefereeMoves(), Thinking: g.thinking}
	var won strings.Builder
	for bd := range 9 {
		var cells strings.Builder
		for c := range 9 {
			p, taken := b.At(bd, c)
			switch {
			case !taken:
				cells.WriteByte('.')
			case p == nineboard.X:
				cells.WriteByte('X')
			default:
				cells.WriteByte('O')
			}
		}
		st.Boards[bd] = cells.String()
		switch {
		case b.Won(nineboard.X)>>bd&1 != 0:
			won.WriteByte('X')
		case b.Won(nineboard.O)>>bd&1 != 0:
			won.WriteByte('O')
		default:
			won.WriteByte('.')
		}
	}
	st.Won = won.String()
	for i, m := range moves {
		st.Moves[i] = [2]int{m.Board() + 1, m.Cell() + 1}
	}
	switch r := b.Result(); r {
	case nineboard.Ongoing:
		st.ToMove = b.Side().String()
		for _, bd := range g.s.Playable() {
			st.Playable = append(st.Playable, bd+1)
		}
	case nineboard.Draw:
		st.Result, st.Why = "draw", g.s.Why()
	default:
		st.Result, st.Why = nineboard.X.String(), g.s.Why()
		if r == nineboard.OWin {
			st.Result = nineboard.O.String()
		}
		for _, m := range g.s.WinningLine() {
			st.WinningLine = append(st.WinningLine, [2]int{m.Board() + 1, m.Cell() + 1})
		}
		for _, bd := range g.s.WinningBoards() {
			st.WinningBoards = append(st.WinningBoards, bd+1)
		}
	}
	return st
}

func (s *Server) nineAnalyse(w http.ResponseWriter, r *http.Request) {
	g, _, ok := s.nineGet(w, r)
	if !ok {
		return
	}
	g.mu.Lock()
	clone := g.s.Clone()
	g.mu.Unlock()
	if result := clone.Result(); result != nineboard.Ongoing {
		writeError(w, http.StatusConflict, "the game is over: "+nineResultWords(result)+"; nothing to analyse")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), replyLimit)
	defer cancel()
	var info nineboard.Info
	start := time.Now()
	err := withEngine(ctx, func() error {
		var err error
		info, err = clone.Reply(ctx, nineAnalyst, nil)
		return err
	})
	if err != nil {
		s.replyError(w, r, err)
		return
	}
	side := clone.ToMove()
	me, them := strings.ToUpper(side.String()), strings.ToUpper((side ^ 1).String())
	a := nineAnalysis{Engine: nineAnalyst.Spec.String(), ToMove: side.String(), PV: [][2]int{},
		Best: [2]int{info.Move.Board() + 1, info.Move.Cell() + 1}, Score: info.Score, Depth: info.Depth, Nodes: info.Nodes,
		Seconds: time.Since(start).Seconds()}
	for _, m := range info.PV {
		a.PV = append(a.PV, [2]int{m.Board() + 1, m.Cell() + 1})
	}
	switch {
	case info.Score > nineboard.MateBound:
		a.Value, a.Plies = "win", nineboard.Mate-info.Score
		a.Summary = fmt.Sprintf("%s wins in %s (depth %d)", me, pliesWords(a.Plies), info.Depth)
	case info.Score < -nineboard.MateBound:
		a.Value, a.Plies = "loss", nineboard.Mate+info.Score
		a.Summary = fmt.Sprintf("%s wins in %s (depth %d)", them, pliesWords(a.Plies), info.Depth)
	default:
		a.Summary = fmt.Sprintf("score %+d for %s (heuristic, depth %d)", info.Score, me, info.Depth)
	}
	writeJSON(w, http.StatusOK, a)
}

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/search"
)

// decode decodes an answer of status want into v, failing otherwise.
func decode[T any](t testing.TB, w *httptest.ResponseRecorder, want int) T {
	t.Helper()
	var v T
	if w.Code != want {
		t.Fatalf("answer %d %s: want %d", w.Code, strings.TrimSpace(w.Body.String()), want)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("answer %q: %v", w.Body.String(), err)
	}
	return v
}

// newMNK creates a game and returns its state.
func newMNK(t testing.TB, s *Server, body string) mnkState {
	t.Helper()
	return decode[mnkState](t, do(t, s, "POST", "/api/mnk/games", body), http.StatusCreated)
}

func mnkGet(t testing.TB, s *Server, id string) mnkState {
	t.Helper()
	return decode[mnkState](t, do(t, s, "GET", "/api/mnk/games/"+id, ""), http.StatusOK)
}

func mnkPlay(t testing.TB, s *Server, id string, r, c int) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, s, "POST", "/api/mnk/games/"+id+"/moves", fmt.Sprintf(`{"row": %d, "col": %d}`, r, c))
}

// stones counts a board's X and O.
func stones(board []string) (x, o int) {
	for _, row := range board {
		x += strings.Count(row, "X")
		o += strings.Count(row, "O")
	}
	return x, o
}

func TestMNKCreateAndMove(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 3, "cols": 3, "k": 3, "human": "x", "opponent": "perfect"}`)
	if len(st.ID) != 32 || !slices.Equal(st.Board, []string{"...", "...", "..."}) || st.ToMove != "x" || st.Result != "" ||
		st.WinningLine == nil || len(st.WinningLine) != 0 || st.Opponent != "perfect" || st.Human != "x" {
		t.Fatalf("new game %+v: want an empty 3x3 board, X to move, no result, an empty winning line", st)
	}
	st = decode[mnkState](t, mnkPlay(t, s, st.ID, 1, 1), http.StatusOK)
	if st.Board[1][1] != 'X' {
		t.Errorf("board %q after 1,1: want X in the centre", st.Board)
	}
	// Perfect play answers the centre with a corner, the first in row-major order.
	if x, o := stones(st.Board); x != 1 || o != 1 || st.Board[0][0] != 'O' || st.ToMove != "x" {
		t.Errorf("board %q, to move %q after 1,1: want O's reply in 0,0 and X to move", st.Board, st.ToMove)
	}
	if want := [][2]int{{1, 1}, {0, 0}}; !slices.Equal(st.Moves, want) {
		t.Errorf("moves %v, want %v", st.Moves, want)
	}
	if got := mnkGet(t, s, st.ID); !slices.Equal(got.Board, st.Board) || got.ToMove != "x" {
		t.Errorf("GET %+v: want the state the move answered %+v", got, st)
	}
}

func TestMNKHumanOSeesTheEnginesFirstMove(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 3, "cols": 3, "k": 3, "human": "o"}`)
	if x, o := stones(st.Board); x != 1 || o != 0 || st.ToMove != "o" || st.Opponent != "perfect" {
		t.Errorf("new game as O: board %q, to move %q, opponent %q: want X's first move made, O to move, perfect", st.Board, st.ToMove, st.Opponent)
	}
}

func TestMNKDefaultOpponentOnBigBoards(t *testing.T) {
	s := newTestServer(t, nil)
	for _, tc := range []struct{ body, want string }{
		{`{"rows": 4, "cols": 4, "k": 4}`, "perfect"},
		{`{"rows": 5, "cols": 5, "k": 4}`, bigOpponent},
		{`{"rows": 15, "cols": 15, "k": 5}`, bigOpponent},
		{`{"rows": 1, "cols": 15, "k": 3}`, bigOpponent}, // 15 cells, but more than 8 on a side
	} {
		if st := newMNK(t, s, tc.body); st.Opponent != tc.want {
			t.Errorf("%s: opponent %q, want %q", tc.body, st.Opponent, tc.want)
		}
	}
}

func TestMNKCreationRefused(t *testing.T) {
	s := newTestServer(t, nil)
	for _, tc := range []struct{ body, want string }{
		{`{"rows": 0, "cols": 3, "k": 3}`, "rows 0"},
		{`{"rows": 3, "cols": 16, "k": 3}`, "cols 16"},
		{`{"rows": 16, "cols": 16, "k": 5}`, "rows 16"},
		{`{"rows": 3, "cols": 3, "k": 4}`, "k 4"},
		{`{"rows": 3, "cols": 3, "k": 0}`, "k 0"},
		{`{"rows": 15, "cols": 15, "k": 9}`, "k 9"},
		{`{"rows": 3, "cols": 3, "k": 3, "opponent": "wopr"}`, "opponent"},
		{`{"rows": 3, "cols": 3, "k": 3, "opponent": "human"}`, "opponent human"},
		{`{"rows": 5, "cols": 5, "k": 4, "opponent": "perfect"}`, "opponent perfect"},
		{`{"rows": 3, "cols": 3, "k": 3, "opponent": "engine:time=1m"}`, "opponent engine:time=1m0s: at most 10s"},
		{`{"rows": 3, "cols": 3, "k": 3, "opponent": "engine:depth=0"}`, "opponent"},
		{`{"rows": 3, "cols": 3, "k": 3, "human": "z"}`, "human"},
		{`{"rows": 3, "cols": 3, "k": 3, "colour": "x"}`, "unknown field"},
		{`{"rows": "3"}`, "malformed"},
		{`{"rows": 3, "cols": 3, "k": 3} {}`, "more than one"},
		{``, "empty body"},
	} {
		w := do(t, s, "POST", "/api/mnk/games", tc.body)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", tc.body, w.Code, w.Body)
			continue
		}
		if msg := apiErrorOf(t, w); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to name %q", tc.body, msg, tc.want)
		}
	}
	if n := s.mnk.len(); n != 0 {
		t.Errorf("%d games kept after refused creations, want 0", n)
	}
}

func TestMNKMovesRefused(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 3, "cols": 3, "k": 3}`)
	st = decode[mnkState](t, mnkPlay(t, s, st.ID, 1, 1), http.StatusOK)
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"row": 1, "col": 1}`, http.StatusConflict, "cell 1,1 is taken"},
		{`{"row": 0, "col": 0}`, http.StatusConflict, "cell 0,0 is taken"},
		{`{"row": 3, "col": 0}`, http.StatusBadRequest, "cell 3,0 is off the board"},
		{`{"row": -1, "col": 2}`, http.StatusBadRequest, "off the board"},
		{`{"row": 2}`, http.StatusBadRequest, `"col"`},
		{`{"row": 2, "col": 2, "side": "x"}`, http.StatusBadRequest, "unknown field"},
		{`{"row": 2.5, "col": 2}`, http.StatusBadRequest, "malformed"},
		{`[1, 2]`, http.StatusBadRequest, "malformed"},
	} {
		w := do(t, s, "POST", "/api/mnk/games/"+st.ID+"/moves", tc.body)
		if w.Code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.body, w.Code, w.Body, tc.status)
			continue
		}
		if msg := apiErrorOf(t, w); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to say %q", tc.body, msg, tc.want)
		}
		if got := mnkGet(t, s, st.ID); !slices.Equal(got.Board, st.Board) || !slices.Equal(got.Moves, st.Moves) {
			t.Errorf("%s: board %q after a refused move, want %q unchanged", tc.body, got.Board, st.Board)
		}
	}
	for _, path := range []string{"/api/mnk/games/nope", "/api/mnk/games/nope/moves", "/api/mnk/games/nope/analysis"} {
		method := "GET"
		if strings.HasSuffix(path, "moves") {
			method = "POST"
		}
		w := do(t, s, method, path, `{"row": 0, "col": 0}`)
		if w.Code != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404", method, path, w.Code)
		}
		apiErrorOf(t, w)
	}
}

func TestMNKOutOfTurn(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 3, "cols": 3, "k": 3}`)
	g, _ := s.mnk.get(st.ID)
	g.mu.Lock()
	g.thinking = true // as while the engine searches its reply
	g.mu.Unlock()
	w := mnkPlay(t, s, st.ID, 0, 0)
	if w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), "out of turn: it is O's move") {
		t.Errorf("a move while wopr thinks: %d %s, want 409 out of turn", w.Code, w.Body)
	}
	if got := mnkGet(t, s, st.ID); !got.Thinking || got.Board[0] != "..." {
		t.Errorf("state %+v: want thinking and the board unchanged", got)
	}
}

// A reply cut short (the browser gone) takes the person's move back.
func TestMNKCancelledReplyLeavesTheGame(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 8, "cols": 8, "k": 5, "opponent": "engine:time=10s"}`)
	g, _ := s.mnk.get(st.ID)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *httptest.ResponseRecorder)
	go func() {
		req := httptest.NewRequestWithContext(ctx, "POST", "http://localhost/api/mnk/games/"+st.ID+"/moves", strings.NewReader(`{"row": 3, "col": 3}`))
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		done <- w
	}()
	for deadline := time.Now().Add(10 * time.Second); ; {
		g.mu.Lock()
		thinking := g.thinking
		g.mu.Unlock()
		if thinking {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine never started thinking")
		}
		time.Sleep(time.Millisecond) // polling with a deadline
	}
	if got := mnkGet(t, s, st.ID); got.Board[3][3] != 'X' || got.ToMove != "o" {
		t.Errorf("while thinking: board %q, to move %q: want X on 3,3 and O to move", got.Board, got.ToMove)
	}
	cancel()
	w := <-done
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("cancelled reply: %d %s, want 503", w.Code, w.Body)
	}
	if got := mnkGet(t, s, st.ID); got.Board[3][3] != '.' || got.ToMove != "x" || len(got.Moves) != 0 || got.Thinking {
		t.Errorf("after a cancelled reply: %+v: want the empty board, X to move", got)
	}
}

// A whole game against random, the person taking the first empty cell:
// it ends, and then every move is refused.
func TestMNKGameToTheEnd(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 4, "cols": 4, "k": 3, "opponent": "random"}`)
	for st.Result == "" {
		r, c := firstEmpty(st.Board)
		st = decode[mnkState](t, mnkPlay(t, s, st.ID, r, c), http.StatusOK)
		checkMNK(t, st)
	}
	w := mnkPlay(t, s, st.ID, 0, 0)
	if w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), "the game is over") {
		t.Errorf("a move after the end: %d %s, want 409 the game is over", w.Code, w.Body)
	}
	if w := do(t, s, "GET", "/api/mnk/games/"+st.ID+"/analysis", ""); w.Code != http.StatusConflict {
		t.Errorf("analysis after the end: %d, want 409", w.Code)
	}
}

func firstEmpty(board []string) (int, int) {
	for r, row := range board {
		if c := strings.IndexByte(row, '.'); c >= 0 {
			return r, c
		}
	}
	return -1, -1
}

// checkMNK checks a state's consistency: the stones and the side to move,
// the result against the engine's Status, the winning line.
func checkMNK(t testing.TB, st mnkState) {
	t.Helper()
	if len(st.Board) != st.Rows {
		t.Fatalf("%d rows in the board, want %d", len(st.Board), st.Rows)
	}
	cells := make([]int8, 0, st.Rows*st.Cols)
	for _, row := range st.Board {
		if len(row) != st.Cols || strings.Trim(row, "XO.") != "" {
			t.Fatalf("row %q: want %d of X, O and .", row, st.Cols)
		}
		for _, ch := range row {
			cells = append(cells, int8(strings.IndexRune(".XO", ch)))
		}
	}
	x, o := stones(st.Board)
	if x != o && x != o+1 || len(st.Moves) != x+o {
		t.Fatalf("%d X, %d O, %d moves: want as many X as O or one more, a move a stone", x, o, len(st.Moves))
	}
	for i, m := range st.Moves {
		if want := "XO"[i%2]; st.Board[m[0]][m[1]] != want {
			t.Fatalf("move %d at %v: %c on the board, want %c", i, m, st.Board[m[0]][m[1]], want)
		}
	}
	var res mnk.Result
	if st.Rows <= mnk.MaxSide && st.Cols <= mnk.MaxSide {
		g := mnk.MustNew(st.Rows, st.Cols, st.K)
		var p mnk.Position
		for i, v := range cells {
			bit := uint64(1) << mnk.Cell(i/st.Cols, i%st.Cols)
			if v == 1 {
				p.X |= bit
			} else if v == 2 {
				p.O |= bit
			}
		}
		res = g.Status(p)
	} else {
		g, err := search.NewBig(st.Rows, st.Cols, st.K)
		if err != nil {
			t.Fatal(err)
		}
		res = g.Status(search.BigPosition(cells))
	}
	want := map[mnk.Result]string{mnk.Ongoing: "", mnk.XWin: "x", mnk.OWin: "o", mnk.Draw: "draw"}[res]
	if st.Result != want {
		t.Fatalf("result %q, the engine says %v", st.Result, res)
	}
	toMove := ""
	if res == mnk.Ongoing {
		toMove = map[bool]string{true: "x", false: "o"}[x == o]
	}
	if st.ToMove != toMove {
		t.Fatalf("to move %q, want %q", st.ToMove, toMove)
	}
	switch {
	case st.Result == "x" || st.Result == "o":
		mark := strings.ToUpper(st.Result)[0]
		if len(st.WinningLine) < st.K {
			t.Fatalf("winning line %v: want at least %d cells", st.WinningLine, st.K)
		}
		for _, rc := range st.WinningLine {
			if st.Board[rc[0]][rc[1]] != mark {
				t.Fatalf("winning line %v: cell %v is not %c's", st.WinningLine, rc, mark)
			}
		}
	case len(st.WinningLine) != 0:
		t.Fatalf("winning line %v with result %q", st.WinningLine, st.Result)
	}
}

func TestMNKWinningLine(t *testing.T) {
	for _, tc := range []struct {
		rows, cols, k int
		moves         []int // cells r*cols+c, X first
		want          []int
	}{
		{3, 3, 3, []int{0, 3, 1, 4, 2}, []int{0, 1, 2}},
		{3, 3, 3, []int{2, 0, 4, 1, 6}, []int{2, 4, 6}},
		// X's last move completes a row and a column at once.
		{3, 3, 3, []int{0, 3, 1, 4, 5, 6, 8, 7, 2}, []int{0, 1, 2, 5, 8}},
		{1, 1, 1, []int{0}, []int{0}},
		// Six in a row counts where five win (an overline).
		{1, 15, 5, []int{0, 14, 1, 13, 2, 12, 4, 11, 5, 8, 3}, []int{0, 1, 2, 3, 4, 5}},
	} {
		g, err := newMNKGame(mnkNew{Rows: &tc.rows, Cols: &tc.cols, K: &tc.k, Opponent: "random"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tc.moves {
			if g.s.Result() != mnk.Ongoing {
				t.Fatalf("%v: the game ended before move %d", tc.moves, c)
			}
			g.s.Play(c)
		}
		if g.s.Result() != mnk.XWin || !slices.Equal(g.s.Line(), tc.want) {
			t.Errorf("%dx%d k=%d %v: result %v, line %v; want X wins, line %v", tc.rows, tc.cols, tc.k, tc.moves, g.s.Result(), g.s.Line(), tc.want)
		}
	}
}

func TestMNKAnalysis(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"rows": 3, "cols": 3, "k": 3}`)
	a := decode[mnkAnalysis](t, do(t, s, "GET", "/api/mnk/games/"+st.ID+"/analysis", ""), http.StatusOK)
	if a.Engine != "perfect" || !a.Exact || a.Value != "draw" || len(a.PV) != 9 || a.Best != a.PV[0] || a.Summary != "a draw with best play" {
		t.Errorf("analysis of the empty 3x3 board: %+v: want perfect, an exact draw, a principal variation of 9 moves", a)
	}
	// X in a corner, O on an edge next to it: X wins.
	decode[mnkState](t, mnkPlay(t, s, st.ID, 0, 0), http.StatusOK) // O answers 1,1
	g, _ := s.mnk.get(st.ID)
	g.mu.Lock()
	g.s.TakeBack()
	g.s.Play(1) // O on 0,1 instead
	g.mu.Unlock()
	a = decode[mnkAnalysis](t, do(t, s, "GET", "/api/mnk/games/"+st.ID+"/analysis", ""), http.StatusOK)
	if a.Value != "win" || a.ToMove != "x" || a.Plies != 5 || !strings.HasPrefix(a.Summary, "X wins in 5 plies") {
		t.Errorf("analysis after 0,0 0,1: %+v: want X to win in 5 plies", a)
	}

	big := newMNK(t, s, `{"rows": 15, "cols": 15, "k": 5, "opponent": "engine:time=50ms"}`)
	big = decode[mnkState](t, mnkPlay(t, s, big.ID, 7, 7), http.StatusOK)
	checkMNK(t, big)
	a = decode[mnkAnalysis](t, do(t, s, "GET", "/api/mnk/games/"+big.ID+"/analysis?time=50ms", ""), http.StatusOK)
	if a.Engine != "engine:time=50ms" || a.Depth < 1 || len(a.PV) == 0 || a.Best != a.PV[0] || big.Board[a.Best[0]][a.Best[1]] != '.' {
		t.Errorf("analysis of gomoku: %+v: want the engine's search, a principal variation from an empty cell", a)
	}
	if w := do(t, s, "GET", "/api/mnk/games/"+big.ID+"/analysis?time=1h", ""); w.Code != http.StatusBadRequest || !strings.Contains(apiErrorOf(t, w), "time") {
		t.Errorf("analysis for an hour: %d %s, want 400 naming time", w.Code, w.Body)
	}
}

// FuzzMNKAPI creates a game from any body and plays any moves: no answer
// is a 5xx, every state is consistent, and a refused move changes nothing.
func FuzzMNKAPI(f *testing.F) {
	f.Add(`{}`, []byte{1, 1})
	f.Add(`{"rows": 4, "opponent": "engine:depth=1"}`, []byte{0, 0})
	f.Add(`{"rows": 3, "cols": 3, "k": 3, "human": "x", "opponent": "perfect"}`, []byte{1, 1, 0, 0, 1, 1, 2, 2, 9, 9, 0, 2, 2, 0})
	f.Add(`{"rows": 3, "cols": 3, "k": 3, "human": "o", "opponent": "random"}`, []byte{0, 0, 1, 1, 2, 2, 0, 1, 0, 2, 1, 0, 1, 2, 2, 1})
	f.Add(`{"rows": 4, "cols": 5, "k": 4, "opponent": "engine:depth=2"}`, []byte{0, 0, 3, 4, 255, 0, 2, 2})
	f.Add(`{"rows": 15, "cols": 15, "k": 5, "opponent": "engine:depth=1"}`, []byte{7, 7, 7, 8, 15, 0, 8, 8})
	f.Add(`{"rows": 1, "cols": 1, "k": 1, "human": "o", "opponent": "random"}`, []byte{0, 0})
	f.Add(`{"rows": 0, "cols": 3, "k": 3}`, []byte{})
	f.Add(`{"rows": 3, "cols": 3, "k": 3, "opponent": "engine:time=1ms"}`, []byte{1, 1})
	f.Add(`{"rows": 3`, []byte{0})
	f.Fuzz(func(t *testing.T, body string, moves []byte) {
		var p mnkNew
		if json.Unmarshal([]byte(body), &p) == nil && slowOpponent(p.Opponent, cellsOf(p)) {
			t.Skip("an opponent too slow to fuzz")
		}
		s := newTestServer(t, &Options{MaxGames: 4})
		w := do(t, s, "POST", "/api/mnk/games", body)
		if w.Code >= 500 {
			t.Fatalf("create %q: %d %s", body, w.Code, w.Body)
		}
		if w.Code != http.StatusCreated {
			apiErrorOf(t, w)
			return
		}
		st := decode[mnkState](t, w, http.StatusCreated)
		checkMNK(t, st)
		for i := 0; i+1 < len(moves); i += 2 {
			r, c := int(int8(moves[i])), int(int8(moves[i+1]))
			w := mnkPlay(t, s, st.ID, r, c)
			if w.Code >= 500 {
				t.Fatalf("move %d,%d: %d %s", r, c, w.Code, w.Body)
			}
			if w.Code != http.StatusOK {
				apiErrorOf(t, w)
				if got := mnkGet(t, s, st.ID); !slices.Equal(got.Board, st.Board) || got.Result != st.Result {
					t.Fatalf("refused move %d,%d changed the board from %q to %q", r, c, st.Board, got.Board)
				}
				continue
			}
			next := decode[mnkState](t, w, http.StatusOK)
			checkMNK(t, next)
			if next.Board[r][c] != strings.ToUpper(st.Human)[0] || len(next.Moves) < len(st.Moves)+1 || len(next.Moves) > len(st.Moves)+2 {
				t.Fatalf("move %d,%d: board %q, %d moves after %d: want the person's stone and at most one reply", r, c, next.Board, len(next.Moves), len(st.Moves))
			}
			st = next
		}
	})
}

// slowOpponent tells the fuzz tests which opponents would make an input
// take seconds: engines given time, deep searches of big boards.
func slowOpponent(spec string, cells int) bool {
	t, d, ok := strings.Cut(strings.TrimPrefix(spec, "engine:"), "=")
	if !ok {
		return false
	}
	if t == "time" {
		dur, err := time.ParseDuration(d)
		return err != nil || dur > 20*time.Millisecond
	}
	return cells > 16 && d > "3" || len(d) > 1
}

// cellsOf is the number of cells of the board p asks for.
func cellsOf(p mnkNew) int {
	rows, cols, _ := p.size()
	return rows * cols
}

// A game written down starts a game after its moves; the engine replies
// when it is its turn; the state writes the game down again.
func TestMNKLoadGame(t *testing.T) {
	s := newTestServer(t, nil)
	st := newMNK(t, s, `{"game": "3x3 k3: 1,1 0,0", "opponent": "random"}`)
	if st.Record != "3x3 k3: 1,1 0,0" || st.ToMove != "x" || st.Human != "x" {
		t.Fatalf("loaded: %+v", st)
	}
	st = newMNK(t, s, `{"game": "3x3 k3: 1,1", "human": "x", "opponent": "random"}`)
	if len(st.Moves) != 2 || st.ToMove != "x" || !strings.HasPrefix(st.Record, "3x3 k3: 1,1 ") {
		t.Errorf("loaded with O to move: %+v; want wopr's reply", st)
	}
	for _, c := range []struct{ body, want string }{
		{`{"game": "3x3 k3: 1,1 1,1"}`, "game: move 2 1,1: the cell is taken"},
		{`{"game": "3x3 k3: 0,0 1,0 0,1 1,1 0,2"}`, "the game is over"},
		{`{"game": "4x4 k3: 1,1", "rows": 3}`, "rows 3: the game sent is 4x4 k3"},
		{`{"game": "tic-tac-toe"}`, "want RxC kK: moves"},
	} {
		w := do(t, s, "POST", "/api/mnk/games", c.body)
		if msg := apiErrorOf(t, w); w.Code != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q, want 400 %q", c.body, w.Code, msg, c.want)
		}
	}
}

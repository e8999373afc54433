package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/nineboard"
	"github.com/woprlabs/wopr/pkg/game"
)

func newNine(t testing.TB, s *Server, body string) nineState {
	t.Helper()
	return decode[nineState](t, do(t, s, "POST", "/api/nineboard/games", body), http.StatusCreated)
}

func nineGet(t testing.TB, s *Server, id string) nineState {
	t.Helper()
	return decode[nineState](t, do(t, s, "GET", "/api/nineboard/games/"+id, ""), http.StatusOK)
}

func ninePlay(t testing.TB, s *Server, id string, b, c int) *httptest.ResponseRecorder {
	t.Helper()
	return do(t, s, "POST", "/api/nineboard/games/"+id+"/moves", fmt.Sprintf(`{"board": %d, "cell": %d}`, b, c))
}

// firstLegal is the first empty cell of the first board the side to move
// may play in.
func firstLegal(st nineState) (int, int) {
	for _, b := range st.Playable {
		if c := strings.IndexByte(st.Boards[b-1], '.'); c >= 0 {
			return b, c + 1
		}
	}
	return 0, 0
}

func TestNineboardCreate(t *testing.T) {
	s := newTestServer(t, nil)
	// First-triple, as X: the referee's random first move for X, then the
	// engine's reply as O.
	st := newNine(t, s, `{}`)
	if st.Variant != "first-triple" || st.Human != "x" || st.Opponent != nineDefaultOpponent || st.RefereeMoves != 1 ||
		len(st.Moves) != 2 || st.ToMove != "x" || st.Result != "" {
		t.Fatalf("new game %+v: want first-triple, the referee's move and the engine's reply, X to move", st)
	}
	if last := st.Moves[1]; !slices.Equal(st.Playable, []int{last[1]}) {
		t.Errorf("playable %v after %v: want the board of the last move's cell", st.Playable, last)
	}
	checkNine(t, st)
	// Ultimate, as O: the engine's first move as X, anywhere.
	st = newNine(t, s, `{"variant": "ultimate", "human": "o", "opponent": "engine:depth=2"}`)
	if st.Variant != "ultimate" || st.RefereeMoves != 0 || len(st.Moves) != 1 || st.ToMove != "o" {
		t.Fatalf("new ultimate game as O %+v: want the engine's first move, O to move", st)
	}
	checkNine(t, st)
	for _, tc := range []struct{ body, want string }{
		{`{"variant": "super"}`, "variant"},
		{`{"human": "y"}`, "human"},
		{`{"opponent": "perfect"}`, "opponent"},
		{`{"opponent": "engine:time=20s"}`, "at most 10s"},
		{`{"opponent": "engine:depth=99"}`, "depth"},
		{`{"board": 3}`, "unknown field"},
		{`nine`, "malformed"},
	} {
		w := do(t, s, "POST", "/api/nineboard/games", tc.body)
		if w.Code != http.StatusBadRequest || !strings.Contains(apiErrorOf(t, w), tc.want) {
			t.Errorf("%s: %d %s, want 400 naming %q", tc.body, w.Code, w.Body, tc.want)
		}
	}
}

func TestNineboardMovesRefused(t *testing.T) {
	s := newTestServer(t, nil)
	st := newNine(t, s, `{"variant": "ultimate", "opponent": "engine:depth=1"}`)
	st = decode[nineState](t, ninePlay(t, s, st.ID, 5, 5), http.StatusOK)
	// O's reply was in board 5; X is sent to the board of its cell.
	reply := st.Moves[1]
	if reply[0] != 5 {
		t.Fatalf("O's reply %v: want it in board 5", reply)
	}
	next := reply[1]
	wrong := next%9 + 1
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{fmt.Sprintf(`{"board": %d, "cell": 1}`, wrong), http.StatusConflict, fmt.Sprintf("wrong board: %d:1: play in board %d", wrong, next)},
		{`{"board": 0, "cell": 1}`, http.StatusBadRequest, "board 0: want 1 to 9"},
		{`{"board": 5, "cell": 10}`, http.StatusBadRequest, "cell 10: want 1 to 9"},
		{`{"board": 5}`, http.StatusBadRequest, `"cell"`},
		{`{"board": 5, "cell": 1, "x": 1}`, http.StatusBadRequest, "unknown field"},
	} {
		w := do(t, s, "POST", "/api/nineboard/games/"+st.ID+"/moves", tc.body)
		if w.Code != tc.status || !strings.Contains(apiErrorOf(t, w), tc.want) {
			t.Errorf("%s: %d %s, want %d saying %q", tc.body, w.Code, w.Body, tc.status, tc.want)
		}
		if got := nineGet(t, s, st.ID); !slices.Equal(got.Boards, st.Boards) || len(got.Moves) != len(st.Moves) {
			t.Errorf("%s: boards %q after a refused move, want %q", tc.body, got.Boards, st.Boards)
		}
	}
	// A taken cell of the right board: the one O took, if the reply was
	// in X's board, else X's own stone in board 5.
	if next == 5 {
		w := ninePlay(t, s, st.ID, 5, 5)
		if w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), "cell 5:5 is taken") {
			t.Errorf("5:5 again: %d %s, want 409 taken", w.Code, w.Body)
		}
	}
	g, _ := s.nine.get(st.ID)
	g.mu.Lock()
	g.thinking = true
	g.mu.Unlock()
	b, c := firstLegal(st)
	if w := ninePlay(t, s, st.ID, b, c); w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), "out of turn") {
		t.Errorf("a move while wopr thinks: %d %s, want 409 out of turn", w.Code, w.Body)
	}
	if w := do(t, s, "GET", "/api/nineboard/games/nope", ""); w.Code != http.StatusNotFound {
		t.Errorf("unknown game: %d, want 404", w.Code)
	}
}

func TestNineboardTaken(t *testing.T) {
	s := newTestServer(t, nil)
	st := newNine(t, s, `{"variant": "ultimate", "opponent": "random"}`)
	// X in 5:5, O in 5:1 (X is sent to board 1), X in 1:5: O, the person
	// now, is sent to board 5, where 5:5 and 5:1 are taken.
	g, _ := s.nine.get(st.ID)
	g.mu.Lock()
	for _, m := range []nineboard.Move{nineboard.NewMove(4, 4), nineboard.NewMove(4, 0), nineboard.NewMove(0, 4)} {
		g.s.Play(m)
	}
	g.human = nineboard.O
	g.mu.Unlock()
	for _, cell := range []int{5, 1} {
		w := ninePlay(t, s, st.ID, 5, cell)
		if w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), fmt.Sprintf("cell 5:%d is taken", cell)) {
			t.Errorf("5:%d: %d %s, want 409 taken", cell, w.Code, w.Body)
		}
	}
}

// Whole games against random, the person playing the first legal move:
// they end, consistently, and then every move is refused.
func TestNineboardGameToTheEnd(t *testing.T) {
	s := newTestServer(t, nil)
	for _, variant := range []string{"first-triple", "ultimate"} {
		st := newNine(t, s, `{"opponent": "random", "variant": "`+variant+`"}`)
		for st.Result == "" {
			b, c := firstLegal(st)
			st = decode[nineState](t, ninePlay(t, s, st.ID, b, c), http.StatusOK)
			checkNine(t, st)
		}
		if st.Why == "" {
			t.Errorf("%s: result %q without a reason", variant, st.Result)
		}
		w := ninePlay(t, s, st.ID, 1, 1)
		if w.Code != http.StatusConflict || !strings.Contains(apiErrorOf(t, w), "the game is over") {
			t.Errorf("%s: a move after the end: %d %s, want 409 the game is over", variant, w.Code, w.Body)
		}
	}
}

func TestNineboardWinningLine(t *testing.T) {
	// First-triple: X completes 5:1 5:5 5:9.
	g, err := newNineGame(nineNew{Variant: "first-triple", Opponent: "random"})
	if err != nil {
		t.Fatal(err)
	}
	g.s = game.NewNineboard(nineboard.FirstTriple) // without the referee's opening
	for _, m := range [][2]int{{5, 1}, {1, 5}, {5, 5}, {5, 2}, {2, 5}, {5, 3}, {3, 9}, {9, 5}, {5, 9}} {
		g.s.Play(nineboard.NewMove(m[0]-1, m[1]-1))
	}
	st := g.state("x")
	if st.Result != "x" || st.Why != "three in a row in board 5" || !slices.Equal(st.WinningLine, [][2]int{{5, 1}, {5, 5}, {5, 9}}) {
		t.Errorf("first-triple: result %q (%s), line %v: want X's 5:1 5:5 5:9", st.Result, st.Why, st.WinningLine)
	}
	checkNine(t, st)
}

func TestNineboardAnalysis(t *testing.T) {
	s := newTestServer(t, nil)
	st := newNine(t, s, `{"opponent": "engine:depth=2"}`)
	a := decode[nineAnalysis](t, do(t, s, "GET", "/api/nineboard/games/"+st.ID+"/analysis", ""), http.StatusOK)
	if a.Engine != "engine:depth=10" || a.ToMove != "x" || len(a.PV) == 0 || a.Best != a.PV[0] || !slices.Contains(st.Playable, a.Best[0]) ||
		st.Boards[a.Best[0]-1][a.Best[1]-1] != '.' || a.Summary == "" {
		t.Errorf("analysis %+v of %+v: want a move of a playable board first", a, st)
	}
}

// checkNine checks a state's consistency against the engine: the moves
// replayed give the boards, the side to move, the playable boards and the
// result; the winning line is the winner's.
func checkNine(t testing.TB, st nineState) {
	t.Helper()
	v, err := nineboard.ParseVariant(st.Variant)
	if err != nil {
		t.Fatal(err)
	}
	b := nineboard.NewBoard(v)
	for i, m := range st.Moves {
		if m[0] < 1 || m[0] > 9 || m[1] < 1 || m[1] > 9 {
			t.Fatalf("move %d %v: off the boards", i, m)
		}
		mv := nineboard.NewMove(m[0]-1, m[1]-1)
		if !b.Legal(mv) {
			t.Fatalf("move %d %v is not legal", i, m)
		}
		b.Make(mv)
	}
	if len(st.Boards) != 9 || len(st.Won) != 9 {
		t.Fatalf("%d boards, won %q: want 9 of each", len(st.Boards), st.Won)
	}
	for bd := range 9 {
		for c := range 9 {
			p, taken := b.At(bd, c)
			want := byte('.')
			if taken {
				want = "XO"[p]
			}
			if st.Boards[bd][c] != want {
				t.Fatalf("boards %q: cell %d:%d is %c, the moves say %c", st.Boards, bd+1, c+1, st.Boards[bd][c], want)
			}
		}
	}
	res := map[nineboard.Result]string{nineboard.Ongoing: "", nineboard.XWin: "x", nineboard.OWin: "o", nineboard.Draw: "draw"}[b.Result()]
	if st.Result != res {
		t.Fatalf("result %q, the engine says %q", st.Result, res)
	}
	var open []int
	if res == "" {
		var buf [81]nineboard.Move
		for _, m := range b.Moves(buf[:0]) {
			if !slices.Contains(open, m.Board()+1) {
				open = append(open, m.Board()+1)
			}
		}
		slices.Sort(open)
		if st.ToMove != b.Side().String() {
			t.Fatalf("to move %q, want %q", st.ToMove, b.Side())
		}
	} else if st.ToMove != "" {
		t.Fatalf("to move %q after the end", st.ToMove)
	}
	if !slices.Equal(st.Playable, open) && !(len(open) == 0 && len(st.Playable) == 0) {
		t.Fatalf("playable %v, want %v", st.Playable, open)
	}
	if res == "x" || res == "o" {
		mark := strings.ToUpper(res)[0]
		if v == nineboard.FirstTriple && len(st.WinningLine) < 3 || v == nineboard.Ultimate && len(st.WinningBoards) < 3 {
			t.Fatalf("%s won with line %v, boards %v", res, st.WinningLine, st.WinningBoards)
		}
		for _, m := range st.WinningLine {
			if st.Boards[m[0]-1][m[1]-1] != mark {
				t.Fatalf("winning line %v: %v is not %c's", st.WinningLine, m, mark)
			}
		}
		for _, bd := range st.WinningBoards {
			if st.Won[bd-1] != mark {
				t.Fatalf("winning boards %v: board %d is not %c's", st.WinningBoards, bd, mark)
			}
		}
	} else if len(st.WinningLine)+len(st.WinningBoards) != 0 {
		t.Fatalf("winning line %v, boards %v with result %q", st.WinningLine, st.WinningBoards, res)
	}
}

// FuzzNineboardAPI creates a game from any body and plays any moves: no
// answer is a 5xx, every state agrees with the engine replaying its moves,
// and a refused move changes nothing.
func FuzzNineboardAPI(f *testing.F) {
	f.Add(`{}`, []byte{5, 5, 1, 1, 2, 2, 3, 3, 0, 0, 10, 1})
	f.Add(`{"variant": "ultimate", "human": "o", "opponent": "random"}`, []byte{1, 1, 5, 5, 9, 9, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(`{"variant": "ultimate", "opponent": "engine:depth=1"}`, []byte{5, 5, 5, 1, 1, 5, 5, 9})
	f.Add(`{"human": "o", "opponent": "engine:time=5ms"}`, []byte{3, 3})
	f.Add(`{"variant": "x"}`, []byte{})
	f.Add(`{"human": 1}`, []byte{1})
	f.Fuzz(func(t *testing.T, body string, moves []byte) {
		var p nineNew
		if json.Unmarshal([]byte(body), &p) == nil && slowOpponent(p.Opponent, 0) {
			t.Skip("an opponent too slow to fuzz")
		}
		s := newTestServer(t, &Options{MaxGames: 4})
		w := do(t, s, "POST", "/api/nineboard/games", body)
		if w.Code >= 500 {
			t.Fatalf("create %q: %d %s", body, w.Code, w.Body)
		}
		if w.Code != http.StatusCreated {
			apiErrorOf(t, w)
			return
		}
		st := decode[nineState](t, w, http.StatusCreated)
		checkNine(t, st)
		for i := 0; i+1 < len(moves); i += 2 {
			b, c := int(int8(moves[i])), int(int8(moves[i+1]))
			w := ninePlay(t, s, st.ID, b, c)
			if w.Code >= 500 {
				t.Fatalf("move %d:%d: %d %s", b, c, w.Code, w.Body)
			}
			if w.Code != http.StatusOK {
				apiErrorOf(t, w)
				if got := nineGet(t, s, st.ID); !slices.Equal(got.Boards, st.Boards) || len(got.Moves) != len(st.Moves) {
					t.Fatalf("refused move %d:%d changed the boards from %q to %q", b, c, st.Boards, got.Boards)
				}
				continue
			}
			next := decode[nineState](t, w, http.StatusOK)
			checkNine(t, next)
			if next.Boards[b-1][c-1] != strings.ToUpper(st.Human)[0] || len(next.Moves) < len(st.Moves)+1 || len(next.Moves) > len(st.Moves)+2 {
				t.Fatalf("move %d:%d: boards %q, %d moves after %d: want the person's stone and at most one reply", b, c, next.Boards, len(next.Moves), len(st.Moves))
			}
			st = next
		}
	})
}

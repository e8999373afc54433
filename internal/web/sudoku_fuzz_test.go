package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// FuzzSudokuAPI sends any body to each Sudoku endpoint: never a 5xx, a
// refusal is a 4xx with {"error"}, and only a 201 from POST
// /api/sudoku/games adds a game; the game asked about keeps its puzzle
// and solution, and an answer never shows the solution but to solve.
func FuzzSudokuAPI(f *testing.F) {
	s := newTestServer(f, nil)
	g := newSudoku(f, s, `{"puzzle":"`+sudokuEasy+`"}`)
	game, _ := s.sdk.get(g.ID)
	puzzle, solution := game.puzzle, game.solution
	for _, seed := range []struct {
		op   uint8
		body string
	}{
		{0, `{"level":"easy"}`},
		{0, `{"level":"fiendish"}`},
		{0, `{"puzzle":"` + sudokuEasy + `"}`},
		{0, `{"puzzle":"` + sudokuConflicts + `"}`},
		{0, `{"puzzle":"` + sudokuNoGivens + `"}`},
		{0, `{"puzzle":"1 2 3\n4 5 6"}`},
		{0, `{"level":"easy","puzzle":"x"}`},
		{0, `{"level":null}`},
		{1, ``},
		{2, gridBody(g.Puzzle)},
		{2, gridBody(sudokuEasySol)},
		{2, gridBody(with(g.Puzzle, 2, '9'))},
		{2, `{"grid":"` + g.Puzzle + `"}{}`},
		{3, gridBody(g.Puzzle)},
		{3, gridBody(with(g.Puzzle, 0, '5'))},
		{3, gridBody("\u00e9" + g.Puzzle[2:])},
		{4, ``},
		{4, `{}`},
		{4, `{"x":1}`},
		{5, gridBody(g.Puzzle)},
		{2, `[]`},
		{3, `{"grid":null}`},
		{0, `"level"`},
	} {
		f.Add(seed.op, seed.body)
	}
	f.Fuzz(func(t *testing.T, op uint8, body string) {
		id := g.ID
		var method, path string
		switch op % 6 {
		case 0:
			method, path = "POST", "/api/sudoku/games"
		case 1:
			method, path = "GET", "/api/sudoku/games/"+id
		case 2:
			method, path = "POST", "/api/sudoku/games/"+id+"/check"
		case 3:
			method, path = "POST", "/api/sudoku/games/"+id+"/hint"
		case 4:
			method, path = "POST", "/api/sudoku/games/"+id+"/solve"
		case 5:
			method, path = "POST", "/api/sudoku/games/"+body+"/check"
		}
		if op%6 == 5 && body != "" && !validPathSegment(body) {
			return
		}
		before := s.sdk.len()
		w := do(t, s, method, path, body)
		if w.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s, want no 5xx", method, path, body, w.Code, w.Body)
		}
		if w.Code >= 400 {
			apiErrorOf(t, w)
		}
		created := op%6 == 0 && w.Code == http.StatusCreated
		if n := s.sdk.len(); created && n != min(before+1, DefaultMaxGames) || !created && n != before {
			t.Errorf("%s %s %q: %d: %d games, %d before", method, path, body, w.Code, n, before)
		}
		if created {
			var ng sudokuGameJSON
			if err := json.Unmarshal(w.Body.Bytes(), &ng); err != nil {
				t.Fatal(err)
			}
			p, err := sudoku.ParseLine(ng.Puzzle)
			if err != nil {
				t.Fatalf("new game's puzzle %q: %v", ng.Puzzle, err)
			}
			if r := sudoku.NewSolver().Classify(p); r.Outcome != sudoku.Unique {
				t.Errorf("new game's puzzle %s is %v, want unique", p, r.Outcome)
			}
		}
		if got, ok := s.sdk.get(id); !ok || got.puzzle != puzzle || got.solution != solution {
			t.Errorf("%s %s %q: the game changed or went", method, path, body)
		}
		if op%6 >= 1 && op%6 <= 3 && strings.Contains(w.Body.String(), solution.String()) {
			t.Errorf("%s %s %q: the answer %s shows the solution", method, path, body, w.Body)
		}
	})
}

// validPathSegment reports whether s can stand in a URL path unescaped.
func validPathSegment(s string) bool {
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || c == '/' || c == '?' || c == '#' || c == '%' {
			return false
		}
	}
	return true
}

package web

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
)

// Puzzles of the tests: Project Euler 96 grid 01 (singles solve it), and
// AI Escargot, which needs the nested forcing chains the logical solver
// does not have.
const (
	sudokuEasy      = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
	sudokuEasySol   = "483921657967345821251876493548132976729564138136798245372689514814253769695417382"
	sudokuEscargot  = "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3.."
	sudokuNoGivens  = "................................................................................."
	sudokuConflicts = "11..............................................................................."
	// Row 1 holds 1 to 8, and column 9 a 9 elsewhere: r1c9 has no candidate.
	sudokuDeadEnd = "12345678.........9..............................................................."
)

// newSudoku makes a game with body and returns it, failing unless 201.
func newSudoku(t testing.TB, s *Server, body string) sudokuGameJSON {
	t.Helper()
	w := do(t, s, "POST", "/api/sudoku/games", body)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/sudoku/games %s: %d %s, want 201", body, w.Code, w.Body)
	}
	var g sudokuGameJSON
	if err := json.Unmarshal(w.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func mustGrid(t testing.TB, s string) sudoku.Grid {
	t.Helper()
	g, err := sudoku.ParseLine(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSudokuNewByLevel(t *testing.T) {
	s := newTestServer(t, nil)
	es := sudoku.NewSolver()
	for _, l := range sudokuLevels {
		g := newSudoku(t, s, `{"level":"`+l.Name+`"}`)
		p := mustGrid(t, g.Puzzle)
		if r := es.Classify(p); r.Outcome != sudoku.Unique {
			t.Errorf("%s: puzzle %s is %v, want unique", l.Name, g.Puzzle, r.Outcome)
		}
		if g.Rating == nil {
			t.Fatalf("%s: rating null, want %s", l.Name, l.Band())
		}
		got := int(*g.Rating*10 + 0.5)
		if got != rating.NewSolver().Rate(p).Rating {
			t.Errorf("%s: rating %v, but the puzzle rates %d", l.Name, *g.Rating, rating.NewSolver().Rate(p).Rating)
		}
		if got < l.Min || got > l.Max {
			t.Errorf("%s: rating %v, want %s", l.Name, *g.Rating, l.Band())
		}
		if g.Level != l.Name || g.Clues != p.Clues() || g.Clues < l.MinClues {
			t.Errorf("%s: level %q, clues %d (puzzle has %d), want %q with at least %d", l.Name, g.Level, g.Clues, p.Clues(), l.Name, l.MinClues)
		}
		// The answer holds the givens only.
		if strings.Contains(do(t, s, "GET", "/api/sudoku/games/"+g.ID, "").Body.String(), "solution") {
			t.Errorf("%s: GET of the game names a solution", l.Name)
		}
	}
	if n := s.sdk.len(); n != len(sudokuLevels) {
		t.Errorf("%d games kept, want %d", n, len(sudokuLevels))
	}
}

// TestSudokuLevelsReachable: each level's band comes from the generator
// within 1,000 puzzles (about 0.35 s at 0.35 ms a puzzle, well under
// sudokuGenerateTime), five times over.
func TestSudokuLevelsReachable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 17))
	for _, l := range sudokuLevels {
		for range 5 {
			p, err := generateSudoku(&expiring{Context: context.Background(), left: 1000}, rng, l)
			if err != nil || p.Rating < l.Min || p.Rating > l.Max {
				t.Errorf("%s: rating %d, err %v; want a rating in %d-%d within 1,000 puzzles", l.Name, p.Rating, err, l.Min, l.Max)
			}
			if err := sudoku.Check(p.Puzzle, p.Solution); err != nil {
				t.Errorf("%s: solution %s of %s: %v", l.Name, p.Solution, p.Puzzle, err)
			}
		}
	}
}

func TestSudokuGenerateStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	impossible := sudokuLevel{Name: "impossible", Min: 99, Max: 99}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := generateSudoku(ctx, rng, impossible); err != context.Canceled {
		t.Errorf("cancelled: err %v, want %v", err, context.Canceled)
	}
	// Past a deadline, the nearest puzzle found.
	p, err := generateSudoku(&expiring{Context: context.Background(), left: 20}, rng, impossible)
	if err != nil || p.Rating == 0 {
		t.Fatalf("deadline: rating %d, err %v; want the nearest puzzle", p.Rating, err)
	}
	if err := sudoku.Check(p.Puzzle, p.Solution); err != nil {
		t.Errorf("deadline: %v", err)
	}
}

// expiring is a context whose deadline passes after left looks at Err.
type expiring struct {
	context.Context
	left int
}

func (c *expiring) Err() error {
	if c.left--; c.left < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

func TestSudokuPaste(t *testing.T) {
	s := newTestServer(t, nil)
	g := newSudoku(t, s, `{"puzzle":"`+sudokuEasy+`"}`)
	if g.Puzzle != strings.ReplaceAll(sudokuEasy, "0", ".") || g.Level != "" || g.Rating == nil || *g.Rating > 2.3 {
		t.Errorf("pasted: %+v, want the puzzle, no level, rated singles", g)
	}
	// The 9-row layout, with separators.
	var rows []string
	for r := range 9 {
		rows = append(rows, sudokuEasy[r*9:r*9+3]+"|"+sudokuEasy[r*9+3:r*9+6]+"|"+sudokuEasy[r*9+6:r*9+9])
	}
	body, _ := json.Marshal(map[string]string{"puzzle": strings.Join(rows, "\n")})
	if g := newSudoku(t, s, string(body)); g.Puzzle != strings.ReplaceAll(sudokuEasy, "0", ".") {
		t.Errorf("grid layout: puzzle %s, want %s", g.Puzzle, sudokuEasy)
	}
	// Beyond the logical solver: no rating, still played.
	if g := newSudoku(t, s, `{"puzzle":"`+sudokuEscargot+`"}`); g.Rating != nil {
		t.Errorf("AI Escargot: rating %v, want null", *g.Rating)
	}
	kept := s.sdk.len()
	for _, tc := range []struct{ body, want string }{
		{`{"puzzle":"` + sudokuEasy[:80] + `"}`, "80 cells, want 81"},
		{`{"puzzle":"` + sudokuEasy[:80] + `x"}`, "column 81: 'x' is not a digit or an empty mark"},
		{`{"puzzle":"` + sudokuEasy + `\n` + sudokuEasy + `"}`, "more than one puzzle"},
		{`{"puzzle":"# nothing"}`, "no puzzle in the text"},
		{`{"puzzle":"` + sudokuNoGivens + `"}`, "the puzzle has several solutions: r"},
		{`{"puzzle":"` + sudokuConflicts + `"}`, "the givens conflict: row 1 has two 1s (r1c1, r1c2)"},
		{`{"puzzle":"` + sudokuDeadEnd + `"}`, "no solution: r1c9 has no candidate"},
		{`{"level":"easy","puzzle":"` + sudokuEasy + `"}`, `give either "level"`},
		{`{}`, `give either "level"`},
		{`{"level":"insane"}`, `unknown level "insane", want easy, medium, hard or fiendish`},
		{`{"level":"easy","seed":1}`, `unknown field "seed"`},
		{`{"level":`, "malformed request"},
		{``, "empty body"},
	} {
		w := do(t, s, "POST", "/api/sudoku/games", tc.body)
		if w.Code < 400 || w.Code >= 500 {
			t.Errorf("%s: %d, want 4xx", tc.body, w.Code)
			continue
		}
		if msg := apiErrorOf(t, w); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to contain %q", tc.body, msg, tc.want)
		}
	}
	if n := s.sdk.len(); n != kept {
		t.Errorf("%d games after refusals, want %d", n, kept)
	}
}

// post sends body to a game's endpoint and decodes a 200 answer into v.
func post(t testing.TB, s *Server, id, what, body string, v any) {
	t.Helper()
	w := do(t, s, "POST", "/api/sudoku/games/"+id+"/"+what, body)
	if w.Code != http.StatusOK {
		t.Fatalf("%s %s: %d %s, want 200", what, body, w.Code, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}

func gridBody(grid string) string { return `{"grid":"` + grid + `"}` }

// with returns grid with cell i set to c.
func with(grid string, i int, c byte) string {
	b := []byte(grid)
	b[i] = c
	return string(b)
}

func TestSudokuCheckHintSolve(t *testing.T) {
	s := newTestServer(t, nil)
	g := newSudoku(t, s, `{"puzzle":"`+sudokuEasy+`"}`)
	start := g.Puzzle

	var c sudokuCheck
	post(t, s, g.ID, "check", gridBody(start), &c)
	if len(c.Mistakes) != 0 || c.Empty != 81-g.Clues || c.Solved {
		t.Errorf("check of the givens: %+v, want no mistakes, %d empty, not solved", c, 81-g.Clues)
	}
	// r1c1 is 4; 5 there is a mistake, and r1c2 = 8 is right.
	grid := with(with(start, 0, '5'), 1, '8')
	post(t, s, g.ID, "check", gridBody(grid), &c)
	if len(c.Mistakes) != 1 || c.Mistakes[0] != 0 || c.Names[0] != "r1c1" {
		t.Errorf("check: mistakes %v %v, want [0] [r1c1]", c.Mistakes, c.Names)
	}
	post(t, s, g.ID, "check", gridBody(sudokuEasySol), &c)
	if !c.Solved || c.Empty != 0 || len(c.Mistakes) != 0 {
		t.Errorf("check of the solution: %+v, want solved", c)
	}

	var h sudokuHint
	post(t, s, g.ID, "hint", gridBody(start), &h)
	m := regexp.MustCompile(`^r([1-9])c([1-9]): `).FindStringSubmatch(h.Text)
	if h.Kind != "step" || m == nil || h.Cell != int(m[1][0]-'1')*9+int(m[2][0]-'1') || h.Digit != int(sudokuEasySol[h.Cell]-'0') || h.Rating == nil {
		t.Errorf("hint: %+v, want a step placing the solution's digit in the cell it names", h)
	}
	if start[h.Cell] != '.' {
		t.Errorf("hint: cell %d is a given", h.Cell)
	}
	post(t, s, g.ID, "hint", gridBody(grid), &h)
	if h.Kind != "mistake" || h.Cell != 0 || !strings.Contains(h.Text, "r1c1: the 5 there") {
		t.Errorf("hint with a mistake: %+v, want the mistake at r1c1", h)
	}
	post(t, s, g.ID, "hint", gridBody(sudokuEasySol), &h)
	if h.Kind != "solved" || h.Cell != -1 {
		t.Errorf("hint on the solution: %+v, want solved", h)
	}

	var sol map[string]string
	post(t, s, g.ID, "solve", "", &sol)
	if sol["solution"] != sudokuEasySol {
		t.Errorf("solve: %q, want %q", sol["solution"], sudokuEasySol)
	}
	post(t, s, g.ID, "solve", "{}", &sol)

	// Where the logical solver finds no step: a cell's value.
	// AI Escargot, with the cells the solver places before it is stuck.
	e := newSudoku(t, s, `{"puzzle":"`+sudokuEscargot+`"}`)
	var es map[string]string
	post(t, s, e.ID, "solve", "", &es)
	stuck := []byte(e.Puzzle)
	res, steps := rating.NewSolver().ExplainUpTo(mustGrid(t, sudokuEscargot), logicCeiling)
	if res.Solved {
		t.Fatal("the logical solver solves AI Escargot: find a harder puzzle for this test")
	}
	for _, st := range steps {
		if m := regexp.MustCompile(`^r([1-9])c([1-9]):`).FindStringSubmatch(st.Text); m != nil {
			i := int(m[1][0]-'1')*9 + int(m[2][0]-'1')
			stuck[i] = es["solution"][i]
		}
	}
	post(t, s, e.ID, "hint", gridBody(string(stuck)), &h)
	if h.Kind != "value" || h.Cell < 0 || stuck[h.Cell] != '.' || h.Digit != int(es["solution"][h.Cell]-'0') ||
		!strings.HasPrefix(h.Text, sudokuCell(h.Cell)+" is "+es["solution"][h.Cell:h.Cell+1]) {
		t.Errorf("hint where the solver is stuck: %+v, want a cell's value", h)
	}
}

func TestSudokuRefusals(t *testing.T) {
	s := newTestServer(t, nil)
	g := newSudoku(t, s, `{"puzzle":"`+sudokuEasy+`"}`)
	for _, tc := range []struct{ method, path, body, want string }{
		{"POST", "check", gridBody(g.Puzzle[:80]), "grid of 80 characters, want 81"},
		{"POST", "check", gridBody(with(g.Puzzle, 0, 'x')), `r1c1: 'x' is not a digit or "."`},
		{"POST", "hint", gridBody(with(g.Puzzle, 2, '4')), "r1c3 holds the given 3, not 4"},
		{"POST", "hint", gridBody(with(g.Puzzle, 2, '.')), "r1c3: the given 3 is missing"},
		{"POST", "check", `{"grid":1}`, "malformed request"},
		{"POST", "check", `{"grid":"` + g.Puzzle + `","x":1}`, `unknown field "x"`},
		{"POST", "check", ``, "empty body"},
		{"POST", "solve", `{"all":true}`, `unknown field "all"`},
		{"POST", "solve", `[`, "malformed request"},
		{"GET", "check", ``, "method not allowed; the endpoint takes POST"},
		{"DELETE", "", ``, "method not allowed; the endpoint takes GET, HEAD"},
	} {
		path := "/api/sudoku/games/" + g.ID
		if tc.path != "" {
			path += "/" + tc.path
		}
		w := do(t, s, tc.method, path, tc.body)
		if w.Code < 400 || w.Code >= 500 {
			t.Errorf("%s %s %s: %d, want 4xx", tc.method, tc.path, tc.body, w.Code)
			continue
		}
		if msg := apiErrorOf(t, w); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s %s: error %q, want it to contain %q", tc.method, tc.path, tc.body, msg, tc.want)
		}
	}
	for _, path := range []string{"/api/sudoku/games/nope/check", "/api/sudoku/games/nope/solve"} {
		w := do(t, s, "POST", path, gridBody(g.Puzzle))
		if w.Code != http.StatusNotFound || !strings.Contains(apiErrorOf(t, w), `no Sudoku game "nope"`) {
			t.Errorf("POST %s: %d %s, want 404 naming the id", path, w.Code, w.Body)
		}
	}
	if w := do(t, s, "GET", "/api/sudoku/games/nope", ""); w.Code != http.StatusNotFound {
		t.Errorf("GET an unknown game: %d, want 404", w.Code)
	}
}

func TestSudokuPage(t *testing.T) {
	s := newTestServer(t, nil)
	w := do(t, s, "GET", "/sudoku", "")
	body := w.Body.String()
	for _, want := range []string{`/static/sudoku.js`, `/static/sudoku.css`, `id="sdk-grid"`, `value="fiendish"`, "1.0–1.2"} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /sudoku: no %q in the page", want)
		}
	}
	for _, path := range []string{"/static/sudoku.js", "/static/sudoku.css"} {
		if w := do(t, s, "GET", path, ""); w.Code != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", path, w.Code)
		}
	}
}

// TestSudokuHintBefore: where the next placement needs eliminations first,
// the hint gives them before it.
func TestSudokuHintBefore(t *testing.T) {
	hard, _ := sudokuLevelNamed("hard")
	p, err := generateSudoku(&expiring{Context: context.Background(), left: 1000}, rand.New(rand.NewPCG(3, 4)), hard)
	if err != nil {
		t.Fatal(err)
	}
	// Play the placements up to the first elimination.
	grid := p.Puzzle
	_, steps := rating.NewSolver().Explain(grid)
	first := ""
	for _, st := range steps {
		m := sudokuPlacement.FindStringSubmatch(st.Text)
		if m == nil {
			first = st.Text
			break
		}
		i := int(m[1][0]-'1')*9 + int(m[2][0]-'1')
		grid[i] = p.Solution[i]
	}
	if first == "" {
		t.Fatalf("puzzle %s rated %d: no elimination among its steps", p.Puzzle, p.Rating)
	}
	g := &sudokuGame{puzzle: p.Puzzle, solution: p.Solution, rating: p.Rating}
	h := g.hintFor(grid)
	if h.Kind != "step" || len(h.Before) == 0 || h.Before[0] != first || grid[h.Cell] != 0 || len(h.Related) == 0 {
		t.Errorf("hint %+v, want a placement after %q, naming related cells", h, first)
	}
}

package web

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/engine/sudoku/rating"
)

// sudokuGame is one Sudoku being solved by a person. The server keeps the
// puzzle and its unique solution; the browser keeps the entries and sends
// them with each question (check, hint), and gets the solution only when
// it asks for it (solve). A game never changes once made, so it needs no
// lock.
type sudokuGame struct {
	puzzle, solution sudoku.Grid
	rating           int    // tenths of the Explainer scale; 0: beyond the logical solver
	level            string // "" for a pasted puzzle
}

// sudokuGenerateTime bounds the generation of one puzzle. The levels'
// bands are hit in milliseconds (see sudokuLevels); past the deadline the
// nearest puzzle found is given.
const sudokuGenerateTime = 2 * time.Second

// sudokuAPI serves /sudoku and /api/sudoku.
type sudokuAPI struct {
	s *Server
	// gen holds a token for each puzzle being generated: at most one per
	// core, so that requests for new puzzles cannot starve the others.
	gen chan struct{}
}

func (s *Server) sudokuRoutes() {
	a := &sudokuAPI{s: s, gen: make(chan struct{}, runtime.GOMAXPROCS(0))}
	s.mux.HandleFunc("GET /sudoku", a.page)
	s.mux.HandleFunc("POST /api/sudoku/games", a.create)
	s.mux.HandleFunc("GET /api/sudoku/games/{id}", a.withGame(a.show))
	s.mux.HandleFunc("POST /api/sudoku/games/{id}/check", a.withGame(a.check))
	s.mux.HandleFunc("POST /api/sudoku/games/{id}/hint", a.withGame(a.hint))
	s.mux.HandleFunc("POST /api/sudoku/games/{id}/solve", a.withGame(a.solve))
}

func (a *sudokuAPI) page(w http.ResponseWriter, r *http.Request) {
	a.s.page(w, "sudoku.html", map[string]any{"Title": "Sudoku", "Nav": "sudoku", "Levels": sudokuLevels})
}

// sudokuGameJSON is a game as the API shows it: never its solution.
type sudokuGameJSON struct {
	ID     string   `json:"id"`
	Puzzle string   `json:"puzzle"` // 81 characters, '.' for an empty cell
	Rating *float64 `json:"rating"` // Sudoku Explainer rating; null beyond the logical solver
	Level  string   `json:"level,omitempty"`
	Clues  int      `json:"clues"`
}

func (g *sudokuGame) json(id string) sudokuGameJSON {
	j := sudokuGameJSON{ID: id, Puzzle: g.puzzle.String(), Level: g.level, Clues: g.puzzle.Clues()}
	if g.rating > 0 {
		r := float64(g.rating) / 10
		j.Rating = &r
	}
	return j
}

// create makes a game from {"level"} or {"puzzle"}.
func (a *sudokuAPI) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Level  string `json:"level"`
		Puzzle string `json:"puzzle"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	var g *sudokuGame
	switch {
	case (req.Level == "") == (req.Puzzle == ""):
		writeError(w, http.StatusBadRequest, `give either "level" (`+sudokuLevelList()+`) or "puzzle" (81 cells)`)
		return
	case req.Puzzle != "":
		p, err := pastedSudoku(req.Puzzle)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, err.Error())
			return
		}
		g = &sudokuGame{puzzle: p.Puzzle, solution: p.Solution, rating: p.Rating}
	default:
		level, ok := sudokuLevelNamed(req.Level)
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown level %q, want %s", req.Level, sudokuLevelList()))
			return
		}
		p, err := a.generate(r.Context(), level)
		if err != nil {
			if r.Context().Err() == nil {
				a.s.log.Error("web: generate a sudoku", "level", level.Name, "err", err)
			}
			writeError(w, http.StatusServiceUnavailable, "no puzzle made: "+err.Error())
			return
		}
		g = &sudokuGame{puzzle: p.Puzzle, solution: p.Solution, rating: p.Rating, level: level.Name}
	}
	id := a.s.sdk.add(g)
	writeJSON(w, http.StatusCreated, g.json(id))
}

// generate makes a puzzle of level within sudokuGenerateTime, waiting for
// a free core first.
func (a *sudokuAPI) generate(ctx context.Context, level sudokuLevel) (sudokuPuzzle, error) {
	ctx, cancel := context.WithTimeout(ctx, sudokuGenerateTime)
	defer cancel()
	select {
	case a.gen <- struct{}{}:
		defer func() { <-a.gen }()
	case <-ctx.Done():
		return sudokuPuzzle{}, errors.New("the server is busy making other puzzles; try again")
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	return generateSudoku(ctx, rng, level)
}

func sudokuLevelList() string {
	names := make([]string, len(sudokuLevels))
	for i, l := range sudokuLevels {
		names[i] = l.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// pastedSudoku reads a pasted puzzle, in either layout the parser reads,
// and keeps it only if it has exactly one solution.
func pastedSudoku(text string) (sudokuPuzzle, error) {
	var items []sudoku.Item
	err := sudoku.Parse(strings.NewReader(text), func(it sudoku.Item) error {
		items = append(items, it)
		if len(items) > 1 {
			return errors.New("more than one puzzle in the text, want one")
		}
		return nil
	})
	switch {
	case err != nil:
		return sudokuPuzzle{}, err
	case len(items) == 0:
		return sudokuPuzzle{}, errors.New("no puzzle in the text, want 81 cells")
	case items[0].Err != nil:
		if strings.Contains(strings.TrimSpace(text), "\n") {
			return sudokuPuzzle{}, fmt.Errorf("line %d: %w", items[0].Line, items[0].Err)
		}
		return sudokuPuzzle{}, items[0].Err
	}
	g := items[0].Grid
	res := sudoku.NewSolver().Classify(g)
	if res.Outcome != sudoku.Unique {
		return sudokuPuzzle{}, errors.New(res.Why())
	}
	p := sudokuPuzzle{Puzzle: g, Solution: res.Solution}
	if rr := rating.NewSolver().RateUpTo(g, logicCeiling); rr.Solved {
		p.Rating = rr.Rating
	}
	return p, nil
}

// logicCeiling is the hardest step (tenths) the pages' rating and hints
// take: the nested forcing chains past 9.4 take a minute and more a
// puzzle, too long for a page; a puzzle that needs them is shown unrated
// and its hint gives a cell's value.
const logicCeiling = 94

// withGame finds the game of the path's id.
func (a *sudokuAPI) withGame(h func(http.ResponseWriter, *http.Request, string, *sudokuGame)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		g, ok := a.s.sdk.get(id)
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no Sudoku game %q (never made, or forgotten after %v idle)", id, a.s.o.IdleGame))
			return
		}
		h(w, r, id, g)
	}
}

func (a *sudokuAPI) show(w http.ResponseWriter, _ *http.Request, id string, g *sudokuGame) {
	writeJSON(w, http.StatusOK, g.json(id))
}

// gridRequest is the body of check and hint: the grid as the person sees
// it, givens and entries.
type gridRequest struct {
	Grid string `json:"grid"`
}

// readGrid reads a gridRequest and checks its grid against the game: 81
// cells of 1-9, '.' or '0', the givens where they are. On failure it has
// answered.
func readGrid(w http.ResponseWriter, r *http.Request, g *sudokuGame) (sudoku.Grid, bool) {
	var req gridRequest
	if !readJSON(w, r, &req) {
		return sudoku.Grid{}, false
	}
	grid, err := g.entries(req.Grid)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return sudoku.Grid{}, false
	}
	return grid, true
}

// entries parses a grid sent for the game.
func (g *sudokuGame) entries(s string) (sudoku.Grid, error) {
	var grid sudoku.Grid
	if len(s) != 81 {
		return grid, fmt.Errorf(`grid of %d characters, want 81 (1-9, and "." for an empty cell)`, len(s))
	}
	for i := range 81 {
		switch c := s[i]; {
		case c >= '1' && c <= '9':
			grid[i] = c - '0'
		case c == '.' || c == '0':
		default:
			return grid, fmt.Errorf(`%s: %s is not a digit or "."`, sudokuCell(i), strconv.QuoteRune(rune(c)))
		}
		if given := g.puzzle[i]; given != 0 && grid[i] != given {
			if grid[i] == 0 {
				return grid, fmt.Errorf("%s: the given %d is missing", sudokuCell(i), given)
			}
			return grid, fmt.Errorf("%s holds the given %d, not %d", sudokuCell(i), given, grid[i])
		}
	}
	return grid, nil
}

// sudokuCheck is the answer to check.
type sudokuCheck struct {
	// Mistakes are the cells whose entry is not the solution's digit.
	Mistakes []int    `json:"mistakes"`
	Names    []string `json:"names"` // the mistakes as "r3c5"
	Empty    int      `json:"empty"`
	Solved   bool     `json:"solved"` // every cell filled, no mistake
}

func (a *sudokuAPI) check(w http.ResponseWriter, r *http.Request, _ string, g *sudokuGame) {
	grid, ok := readGrid(w, r, g)
	if !ok {
		return
	}
	c := sudokuCheck{Mistakes: []int{}, Names: []string{}}
	for i, v := range grid {
		switch {
		case v == 0:
			c.Empty++
		case v != g.solution[i]:
			c.Mistakes = append(c.Mistakes, i)
			c.Names = append(c.Names, sudokuCell(i))
		}
	}
	c.Solved = c.Empty == 0 && len(c.Mistakes) == 0
	writeJSON(w, http.StatusOK, c)
}

// sudokuHint is the answer to hint.
type sudokuHint struct {
	// Kind is "step" (the logical solver's next placement, after the
	// eliminations that lead to it), "value" (a cell's digit, where the
	// solver finds no step), "mistake" (an entry that is not the
	// solution's digit) or "solved".
	Kind string `json:"kind"`
	Text string `json:"text"` // e.g. "r3c5: hidden single 7 in box 2"
	// Before are the eliminations that lead to the step, in words.
	Before []string `json:"before,omitempty"`
	Cell   int      `json:"cell"` // the cell the hint is about, -1 for none
	Digit  int      `json:"digit,omitempty"`
	// Related are the other cells the step names (0-80).
	Related   []int    `json:"related"`
	Technique string   `json:"technique,omitempty"`
	Rating    *float64 `json:"rating,omitempty"`
}

var (
	sudokuCellRef   = regexp.MustCompile(`r([1-9])c([1-9])`)
	sudokuPlacement = regexp.MustCompile(`^r([1-9])c([1-9]):`)
)

func (a *sudokuAPI) hint(w http.ResponseWriter, r *http.Request, _ string, g *sudokuGame) {
	grid, ok := readGrid(w, r, g)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, g.hintFor(grid))
}

// hintFor finds the hint for a grid of the game's givens and entries.
func (g *sudokuGame) hintFor(grid sudoku.Grid) sudokuHint {
	empty := 0
	for i, v := range grid {
		if v != 0 && v != g.solution[i] {
			return sudokuHint{Kind: "mistake", Cell: i, Related: []int{},
				Text: fmt.Sprintf("%s: the %d there is not the solution's digit", sudokuCell(i), v)}
		}
		if v == 0 {
			empty++
		}
	}
	if empty == 0 {
		return sudokuHint{Kind: "solved", Cell: -1, Related: []int{}, Text: "the grid is solved"}
	}
	// The entries are all the solution's, so the grid has the one
	// solution and the logical solver's steps from it are sound.
	_, steps := rating.NewSolver().ExplainUpTo(grid, logicCeiling)
	var before []string
	for _, st := range steps {
		m := sudokuPlacement.FindStringSubmatch(st.Text)
		if m == nil {
			before = append(before, st.Text)
			continue
		}
		cell := int(m[1][0]-'1')*9 + int(m[2][0]-'1')
		h := sudokuHint{Kind: "step", Text: st.Text, Before: before, Cell: cell, Digit: int(g.solution[cell]),
			Related: []int{}, Technique: st.Technique.String()}
		rt := float64(st.Rating) / 10
		h.Rating = &rt
		seen := map[int]bool{cell: true}
		for _, t := range append(before, st.Text) {
			for _, m := range sudokuCellRef.FindAllStringSubmatch(t, -1) {
				c := int(m[1][0]-'1')*9 + int(m[2][0]-'1')
				if !seen[c] {
					seen[c] = true
					h.Related = append(h.Related, c)
				}
			}
		}
		return h
	}
	// No placement: give the digit of the empty cell with fewest
	// candidates, the one a person would most likely look at next.
	cell, fewest := -1, 10
	for i, v := range grid {
		if v != 0 {
			continue
		}
		if n := bits.OnesCount16(sudokuCandidates(&grid, i)); n < fewest {
			cell, fewest = i, n
		}
	}
	return sudokuHint{Kind: "value", Cell: cell, Digit: int(g.solution[cell]), Related: []int{},
		Text: fmt.Sprintf("%s is %d (no step found by the techniques the logical solver knows)", sudokuCell(cell), g.solution[cell])}
}

// sudokuCandidates returns the digits (bit d-1 for d) that no peer of cell i
// holds.
func sudokuCandidates(g *sudoku.Grid, i int) uint16 {
	r, c := i/9, i%9
	b := r/3*27 + c/3*3
	var used uint16
	for k := range 9 {
		for _, j := range [3]int{r*9 + k, k*9 + c, b + k/3*9 + k%3} {
			if v := g[j]; v != 0 {
				used |= 1 << (v - 1)
			}
		}
	}
	return 0x1ff &^ used
}

// solve answers the solution. Its body, if any, must be an empty object.
func (a *sudokuAPI) solve(w http.ResponseWriter, r *http.Request, _ string, g *sudokuGame) {
	if r.ContentLength != 0 {
		var req struct{}
		if !readJSON(w, r, &req) {
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"solution": g.solution.String()})
}

// sudokuCell names cell i as "r3c5".
func sudokuCell(i int) string {
	return "r" + strconv.Itoa(i/9+1) + "c" + strconv.Itoa(i%9+1)
}

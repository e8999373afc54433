package rating

import (
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// Project Euler 96, grid 01: singles solve it.
const easy = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"

func mustParse(t testing.TB, s string) sudoku.Grid {
	g, err := sudoku.ParseLine(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSinglesOnly(t *testing.T) {
	g := mustParse(t, easy)
	s := NewSolver()
	r := s.Rate(g)
	if !r.Solved || r.Rating > 23 {
		t.Fatalf("got solved %v rating %d, want solved with at most 2.3", r.Solved, r.Rating)
	}
	if other := r.Used &^ (1<<HiddenSingle | 1<<NakedSingle); other != 0 {
		t.Errorf("used techniques %b beyond singles", other)
	}
}

func TestExplain(t *testing.T) {
	g := mustParse(t, easy)
	s := NewSolver()
	r, steps := s.Explain(g)
	if len(steps) != r.Steps || r.Steps != 81-g.Clues() {
		t.Fatalf("got %d steps (result says %d), want %d placements", len(steps), r.Steps, 81-g.Clues())
	}
	if !strings.Contains(steps[0].Text, "hidden single") && !strings.Contains(steps[0].Text, "last empty cell") {
		t.Errorf("first step %q, want a hidden single", steps[0].Text)
	}
}

// techniqueLines are, for each technique that is the hardest step of a
// puzzle of se-rated-dev at the Explainer's rating, the first such line
// of the file (found by rating the whole file in order, 2026-12-01). No
// puzzle of the file has a hidden quad, four strong links, an x-chain or
// a tuvwxyz-wing as its hardest step.
var techniqueLines = map[Technique]int{
	DirectHiddenTriple: 1, Pointing: 101, Claiming: 202, NakedPair: 301, XWing: 401, HiddenPair: 501,
	NakedTriple: 601, Swordfish: 701, TurbotFish: 801, HiddenTriple: 898, XYWing: 1001, XYZWing: 1201,
	UniqueRectangle: 1301, NakedQuad: 1608, Jellyfish: 1708, ThreeStrongLinks: 1808, WXYZWing: 1909,
	BUG: 2013, VWXYZWing: 2267, AlignedPairExclusion: 2307, YChain: 2567, UVWXYZWing: 2568, AIC: 2967,
	AlignedTripleExclusion: 3469, Nishio: 3567, RegionForcing: 3972, CellForcing: 4072, DynamicForcing: 4472,
}

// TestTechniques rates, for each technique, a puzzle whose hardest step it
// is: the rater must name it and give the Explainer's rating. Under -short
// it takes the puzzles rated up to 6.0.
func TestTechniques(t *testing.T) {
	limit := 0
	if testing.Short() {
		limit = 60
	}
	byLine := map[int]ratedPuzzle{}
	for _, p := range ratedUpTo(t, limit) {
		byLine[p.line] = p
	}
	s := NewSolver()
	for tech, line := range techniqueLines {
		p, ok := byLine[line]
		if !ok {
			continue // rated above the limit of -short
		}
		if r := s.Rate(p.puzzle); r.Hardest != tech || r.Rating != p.rating {
			t.Errorf("line %d: hardest step %v rated %d.%d, want %v rated %d.%d", line, r.Hardest, r.Rating/10, r.Rating%10,
				tech, p.rating/10, p.rating%10)
		}
	}
}

// techniqueFuncs are the techniques one by one, for tests that call them
// directly.
func techniqueFuncs(s *Solver) map[string]func() bool {
	return map[string]func() bool{
		"hidden single": s.hiddenSingle, "direct locking": s.directLocking,
		"direct hidden pair": func() bool { return s.hiddenSet(2, true) }, "naked single": s.nakedSingle,
		"locking": s.locking, "naked pair": func() bool { return s.nakedSet(2) },
		"x-wing": func() bool { return s.fish(2) }, "hidden pair": func() bool { return s.hiddenSet(2, false) },
		"two strong links": func() bool { return s.strongLinks(2) }, "xy-wing": s.xyWing, "xyz-wing": s.xyzWing,
		"unique loops": s.uniqueLoops, "jellyfish": func() bool { return s.fish(4) },
		"three strong links": func() bool { return s.strongLinks(3) }, "wxyz-wing": func() bool { return s.alsWing(3) },
		"bug": s.bug, "four strong links": func() bool { return s.strongLinks(4) },
		"vwxyz-wing": func() bool { return s.alsWing(4) }, "aligned pair": s.alignedPair,
		"uvwxyz-wing": func() bool { return s.alsWing(5) }, "tuvwxyz-wing": func() bool { return s.alsWing(6) },
		"aligned triple": s.alignedTriple,
		"static chains":  s.staticChains,
		"nishio":         func() bool { return s.forcing(Nishio, 75, false, true, true, 0) },
		"multiple":       func() bool { return s.forcing(CellForcing, 80, true, false, false, 0) },
		"dynamic":        func() bool { return s.forcing(DynamicForcing, 85, true, true, false, 0) },
	}
}

// TestTechniquesWhereNot: called one by one on a solved grid, no
// technique finds a step.
func TestTechniquesWhereNot(t *testing.T) {
	es := sudoku.NewSolver()
	sol := es.Classify(mustParse(t, easy)).Solution
	s := NewSolver()
	for name, f := range techniqueFuncs(s) {
		s.load(&sol)
		if f() {
			t.Errorf("%s: found a step on a solved grid, want none", name)
		}
	}
}

// TestNoStepOnSolved: no technique applies to a solved grid, and an
// unsolvable puzzle is not Solved.
func TestNoStepOnSolved(t *testing.T) {
	es := sudoku.NewSolver()
	sol := es.Classify(mustParse(t, easy)).Solution
	s := NewSolver()
	r := s.Rate(sol)
	if !r.Solved || r.Steps != 0 || r.Rating != 0 {
		t.Errorf("solved grid: got %+v, want solved with no step", r)
	}
	bad := []byte(easy)
	bad[0], bad[1] = '9', '9' // two 9s in row 1
	if r := s.Rate(mustParse(t, string(bad))); r.Solved {
		t.Errorf("conflicting givens: got solved, want not")
	}
}

// BenchmarkRate rates the puzzles of se-rated-dev by band of the
// Explainer's rating, in file order, and reports puzzles a second. The
// chain bands are slow: run them with a small -benchtime (e.g. 50x).
func BenchmarkRate(b *testing.B) {
	all := readRated(b)
	for _, band := range []struct {
		name     string
		min, max int
	}{{"2.5-3.0", 25, 30}, {"3.2-4.4", 32, 44}, {"4.5-6.0", 45, 60},
		{"6.1-6.9", 61, 69}, {"7.0-7.9", 70, 79}, {"8.0-8.9", 80, 89}, {"9.0-9.3", 90, 93}} {
		var ps []sudoku.Grid
		for _, p := range all {
			if p.rating >= band.min && p.rating <= band.max {
				ps = append(ps, p.puzzle)
			}
		}
		b.Run(band.name, func(b *testing.B) {
			s := NewSolver()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.Rate(ps[i%len(ps)])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puzzles/s")
		})
	}
}

// InOrder lists every technique once.
func TestInOrder(t *testing.T) {
	var seen [numTechniques]bool
	for _, x := range InOrder() {
		if seen[x] {
			t.Fatalf("%s twice", x)
		}
		seen[x] = true
	}
	for x, ok := range seen {
		if !ok {
			t.Errorf("%s missing", Technique(x))
		}
	}
}

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

// TestTechniques finds, for each technique, a puzzle of se-rated-dev
// whose hardest step is that technique and whose rating agrees with the
// Explainer's: the technique applies where the Explainer's does, at its
// rating (TestAgreement checks every step against the solution). Under
// -short it looks at the puzzles rated up to 6.0 and the techniques they
// need.
func TestTechniques(t *testing.T) {
	limit := 0
	// No puzzle of the file has a hidden quad or four strong links as
	// its hardest step.
	want := []Technique{DirectHiddenTriple, Pointing, Claiming, NakedPair, XWing, HiddenPair,
		NakedTriple, Swordfish, HiddenTriple, TurbotFish, XYWing, XYZWing, UniqueRectangle,
		NakedQuad, Jellyfish, ThreeStrongLinks, WXYZWing, BUG}
	if testing.Short() {
		limit = 60
		t.Log("-short: techniques of puzzles rated up to 6.0 only")
	} else {
		want = append(want, VWXYZWing, AlignedPairExclusion, UVWXYZWing, XChain, YChain, AIC,
			Nishio, CellForcing, RegionForcing, DynamicForcing)
	}
	s := NewSolver()
	found := map[Technique]int{}
	for _, p := range ratedUpTo(t, limit) {
		if len(found) == len(want) {
			break
		}
		r := s.Rate(p.puzzle)
		if r.Rating == p.rating {
			if _, ok := found[r.Hardest]; !ok {
				found[r.Hardest] = p.line
			}
		}
	}
	for _, tech := range want {
		if _, ok := found[tech]; !ok {
			t.Errorf("%v: no puzzle whose hardest step it is with the Explainer's rating", tech)
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
		"static chains": s.staticChains,
		"nishio":        func() bool { return s.forcing(Nishio, 75, false, true, true, 0) },
		"multiple":      func() bool { return s.forcing(CellForcing, 80, true, false, false, 0) },
		"dynamic":       func() bool { return s.forcing(DynamicForcing, 85, true, true, false, 0) },
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

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

// TestTechniques rates one puzzle of each band of se-rated-dev up to 6.0
// whose rating agrees, and checks that its hardest technique is the one
// of that rating; TestAgreement checks every step of every puzzle against
// the solution.
func TestTechniques(t *testing.T) {
	want := map[int]Technique{25: DirectHiddenTriple, 26: Pointing, 28: Claiming, 30: NakedPair, 32: XWing,
		34: HiddenPair, 36: NakedTriple, 38: Swordfish, 42: XYWing, 44: XYZWing, 50: NakedQuad, 52: Jellyfish}
	s := NewSolver()
	found := map[int]bool{}
	for _, p := range ratedUpTo(t, 60) {
		tech, ok := want[p.rating]
		if !ok || found[p.rating] {
			continue
		}
		r := s.Rate(p.puzzle)
		if r.Rating != p.rating {
			continue
		}
		found[p.rating] = true
		if r.Hardest != tech {
			t.Errorf("line %d, rated %d: hardest %v, want %v", p.line, p.rating, r.Hardest, tech)
		}
	}
	for rating, tech := range want {
		if !found[rating] {
			t.Errorf("no puzzle rated %d by both (%v)", rating, tech)
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

func BenchmarkRate(b *testing.B) {
	all := readRated(b)
	for _, band := range []struct {
		name     string
		min, max int
	}{{"2.5-3.0", 25, 30}, {"3.2-4.4", 32, 44}, {"4.5-6.0", 45, 60}} {
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

package rating

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// seDiffers lists the puzzles of testdata/se-rated-extra.txt whose
// rating here differs from the Explainer's, with ours and why.
var seDiffers = map[string]struct {
	got int
	why string
}{
	// The Explainer takes a hidden pair in box 8 (3.4) and then a naked
	// triple (3.6) where the rater finds the same pair direct in column 4
	// (2.0, it leaves a hidden single 6 at r1c4): a difference of the
	// direct hidden sets, not of the chains.
	".....37..8..72...1.......632...5.8..4...32.......6.3.......9.2...8...4..74.......": {28, "direct hidden pair"},
}

// TestNestedRatings rates the puzzles of testdata/se-rated-extra.txt,
// rated by Sukaku Explainer itself (none of them in se-rated-dev), with
// every step checked against the solution, and wants the Explainer's
// rating (or the one seDiffers gives). Those rated 9.5 and up need the
// nested forcing chains, a minute or more each: they run with
// RATING_ALL=1 only.
func TestNestedRatings(t *testing.T) {
	f, err := os.Open("testdata/se-rated-extra.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all := os.Getenv("RATING_ALL") != ""
	es := sudoku.NewSolver()
	s := NewSolver()
	defer func() { s.truth = nil }()
	sc := bufio.NewScanner(f)
	var rated, skipped int
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 2 {
			t.Fatalf("line %d: %q, want puzzle and rating", n, line)
		}
		g, err := sudoku.ParseLine(fs[0])
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		r, err := strconv.ParseFloat(fs[1], 64)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		want := int(math.Round(r * 10))
		if d, ok := seDiffers[fs[0]]; ok {
			want = d.got
		}
		if want >= 95 && !all {
			skipped++
			continue
		}
		c := es.Classify(g)
		if c.Outcome != sudoku.Unique {
			t.Fatalf("line %d: %v, want a unique solution", n, c.Outcome)
		}
		s.truth = &c.Solution
		start := time.Now()
		res := s.Rate(g)
		if s.wrong != "" {
			t.Errorf("line %d: %s", n, s.wrong)
		}
		if !res.Solved || res.Rating != want {
			t.Errorf("line %d: rated %d (solved %v, hardest %v), want %d", n, res.Rating, res.Solved, res.Hardest, want)
		}
		rated++
		t.Logf("line %d: %d.%d %v in %v", n, res.Rating/10, res.Rating%10, res.Hardest, time.Since(start).Round(time.Millisecond))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d puzzles rated, %d rated 9.5 and up left to RATING_ALL=1", rated, skipped)
}

package rating

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// ratedPuzzle is a line of datasets/sudoku/se-rated-dev.txt.gz.
type ratedPuzzle struct {
	line   int
	puzzle sudoku.Grid
	rating int // tenths
}

func readRated(t testing.TB) []ratedPuzzle {
	f, err := os.Open("../../../../datasets/sudoku/se-rated-dev.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []ratedPuzzle
	sc := bufio.NewScanner(z)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		g, err := sudoku.ParseLine(fs[1])
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		r, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		out = append(out, ratedPuzzle{n, g, int(math.Round(r * 10))})
	}
	return out
}

// ratedUpTo returns the puzzles rated at most max tenths (all: 0).
func ratedUpTo(t testing.TB, max int) []ratedPuzzle {
	var out []ratedPuzzle
	for _, p := range readRated(t) {
		if max == 0 || p.rating <= max {
			out = append(out, p)
		}
	}
	return out
}

// TestAgreement rates the Sudoku Explainer corpus, checks every step
// against the solution, logs the agreement by band and fails below the
// agreement reached. Under -short it takes the puzzles rated up to 6.0
// (seconds). Without it, every puzzle up to 7.9 and every tenth of those
// rated 8.0 and up, whose forcing chains take most of the time: the whole
// file takes 4 to 6 minutes on one core, too long for every run of the
// suite; RATING_ALL=1 rates all of it (the figures of docs/sudoku.md).
// RATING_EVERY=n rates every n-th puzzle only (no floors),
// RATING_CONFUSION=1 logs the differences.
func TestAgreement(t *testing.T) {
	limit := 0
	if testing.Short() {
		limit = 60
	}
	puzzles := ratedUpTo(t, limit)
	whole := os.Getenv("RATING_ALL") != ""
	if !testing.Short() && !whole {
		var some []ratedPuzzle
		hard := 0
		for _, p := range puzzles {
			if p.rating >= 80 {
				if hard++; hard%10 != 1 {
					continue
				}
			}
			some = append(some, p)
		}
		puzzles = some
	}
	if e, _ := strconv.Atoi(os.Getenv("RATING_EVERY")); e > 1 {
		// A sample for quick looks: every e-th puzzle.
		var sample []ratedPuzzle
		for i := 0; i < len(puzzles); i += e {
			sample = append(sample, puzzles[i])
		}
		puzzles = sample
	}
	s := NewSolver()
	es := sudoku.NewSolver()
	type band struct{ n, same, near, unsolved int }
	bands := map[int]*band{}
	var all band
	confusion := map[[2]int]int{}
	for _, p := range puzzles {
		sr := es.Classify(p.puzzle)
		if sr.Outcome != sudoku.Unique {
			t.Fatalf("line %d: %v", p.line, sr.Outcome)
		}
		s.truth = &sr.Solution
		r := s.Rate(p.puzzle)
		if s.wrong != "" {
			t.Errorf("line %d: %s", p.line, s.wrong)
		}
		if os.Getenv("RATING_CONFUSION") != "" && r.Rating != p.rating {
			confusion[[2]int{p.rating, r.Rating}]++
		}
		b := bands[p.rating/10]
		if b == nil {
			b = &band{}
			bands[p.rating/10] = b
		}
		for _, x := range []*band{b, &all} {
			x.n++
			if !r.Solved {
				x.unsolved++
			}
			if r.Rating == p.rating {
				x.same++
			}
			if r.Solved && abs(r.Rating-p.rating) <= 5 {
				x.near++
			}
		}
	}
	s.truth = nil
	keys := make([]int, 0, len(bands))
	for k := range bands {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	line := func(name string, b *band) string {
		return fmt.Sprintf("%-8s %5d  same %5.1f%%  within 0.5 %5.1f%%  unsolved %d", name, b.n,
			100*float64(b.same)/float64(b.n), 100*float64(b.near)/float64(b.n), b.unsolved)
	}
	for _, k := range keys {
		t.Log(line(fmt.Sprintf("%d.x", k), bands[k]))
	}
	t.Log(line("all", &all))
	// The floors are what the rater reached on 2026-12-01: a change that
	// loses agreement fails here.
	floors := map[int]float64{2: 99.5, 3: 99.5, 4: 99.5, 5: 99.5}
	if !testing.Short() {
		floors[6], floors[7], floors[8], floors[9] = 95.5, 94.0, 94.0, 99.0
		if !whole {
			floors[8] = 93.5 // 78 of the 83 in the sample
		}
	}
	if os.Getenv("RATING_EVERY") == "" {
		for k, floor := range floors {
			if b := bands[k]; b != nil {
				if got := 100 * float64(b.same) / float64(b.n); got < floor {
					t.Errorf("%d.x: same rating for %.1f%%, want at least %.1f%%", k, got, floor)
				}
			}
		}
		allFloor := 99.5
		if whole {
			allFloor = allFullFloor
		} else if !testing.Short() {
			allFloor = allSampleFloor
		}
		if got := 100 * float64(all.same) / float64(all.n); got < allFloor {
			t.Errorf("all: same rating for %.1f%%, want at least %.1f%%", got, allFloor)
		}
	}
	for k, n := range confusion {
		if n >= 5 {
			t.Logf("want %d got %d: %d", k[0], k[1], n)
		}
	}
}

// allFullFloor is the share of the whole file rated as the Explainer
// does, reached on 2026-12-01; allSampleFloor that of the puzzles the test
// takes by default.
const (
	allFullFloor   = 97.0
	allSampleFloor = 97.5
)

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

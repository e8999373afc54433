package rating

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// corpusSample returns n puzzles spread evenly over a corpus of
// datasets/sudoku (the second field of a se-rated-dev line), with their
// line numbers.
func corpusSample(t *testing.T, path string, n int) (lines []int, puzzles []sudoku.Grid) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	text, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if filepath.Base(path) == "se-rated-dev.txt.gz" {
		var b bytes.Buffer
		for l := range bytes.Lines(text) {
			fs := bytes.Fields(l)
			b.Write(fs[1])
			b.WriteByte('\n')
		}
		text = b.Bytes()
	}
	var all []sudoku.Item
	if err := sudoku.ParseBytes(text, 1, func(it sudoku.Item) error {
		if it.Err != nil {
			return fmt.Errorf("%s:%d: %w", path, it.Line, it.Err)
		}
		all = append(all, it)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range min(n, len(all)) {
		it := all[i*len(all)/min(n, len(all))]
		lines, puzzles = append(lines, it.Line), append(puzzles, it.Grid)
	}
	return lines, puzzles
}

// TestDifferentialCorpora rates a sample of every corpus of
// datasets/sudoku with every placement and elimination checked against
// the exact engine's unique solution (the rater's truth hook); a puzzle
// the techniques solve must end on that solution. A puzzle with several
// solutions (serg-benchmark has only those) has no truth to check against:
// the rater must not call it solved. The forcing chains of the hardest
// corpora take up to seconds a puzzle, hence small samples.
func TestDifferentialCorpora(t *testing.T) {
	race.SkipSerial(t)
	files, err := filepath.Glob("../../../../datasets/sudoku/*.txt.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("datasets/sudoku: %d corpora, %v", len(files), err)
	}
	// 10 puzzles take up to 4 s (top1465's chains), 12 s for all the
	// corpora on a loaded machine.
	n := 10
	if testing.Short() {
		n = 3
	}
	es := sudoku.NewSolver()
	s := NewSolver()
	// The chains past dynamic forcing chains take up to minutes a puzzle
	// on the hardest corpora: TestNestedRatings checks them.
	s.ch.noPlus = true
	defer func() { s.truth = nil }()
	for _, path := range files {
		name := filepath.Base(path)
		start := time.Now()
		lines, puzzles := corpusSample(t, path, n)
		var unique, solved, steps int
		for i, p := range puzzles {
			c := es.Classify(p)
			if c.Outcome != sudoku.Unique {
				s.truth = nil
				if r := s.Rate(p); r.Solved {
					t.Errorf("%s:%d: %v, rated solved at %d", name, lines[i], c.Outcome, r.Rating)
				}
				continue
			}
			unique++
			s.truth = &c.Solution
			r := s.Rate(p)
			if s.wrong != "" {
				t.Errorf("%s:%d: %s", name, lines[i], s.wrong)
			}
			if r.Solved {
				solved++
				for k := range 81 {
					if s.val[k] != c.Solution[k] {
						t.Errorf("%s:%d: solved with %d at %s, the solution has %d", name, lines[i], s.val[k], cellName(k), c.Solution[k])
						break
					}
				}
			}
			steps += r.Steps
		}
		t.Logf("%-34s %3d puzzles, %3d unique, %3d solved, %5d steps checked, %v", name, len(puzzles), unique, solved, steps, time.Since(start).Round(time.Millisecond))
	}
}

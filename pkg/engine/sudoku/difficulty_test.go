package sudoku

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The relabellings keep the lines in their bands and stacks, so a
// solution stays a solution.
func TestRelabellingsKeepSolutions(t *testing.T) {
	sol := mustParse(t, "483921657967345821251876493548132976729564138136798245372689514814253769695417382")
	rng := rand.NewPCG(1, 2)
	for range 100 {
		var rows, cols [9]int
		blockShuffle(rng, &rows)
		blockShuffle(rng, &cols)
		perm := shuffle(rng, 9)
		var r Grid
		for i, v := range sol {
			r[rows[i/9]*9+cols[i%9]] = uint8(perm[v-1] + 1)
		}
		if err := Check(Grid{}, r); err != nil {
			t.Fatalf("rows %v cols %v digits %v: %s: %v", rows, cols, perm, r, err)
		}
	}
}

// GuessDifficulty: 0 for a puzzle propagation solves, more for the
// hardest collections than for the 17-clue ones, the same figure every
// time, and no allocation.
func TestGuessDifficulty(t *testing.T) {
	s := NewSolver()
	easy := mustParse(t, "003020600900305001001806400008102900700000008006708200002609500800203009005010300")
	if d := s.GuessDifficulty(&easy); d != 0 {
		t.Errorf("Project Euler 96 grid 01: %.3f, want 0", d)
	}
	mean := func(name string) float64 {
		ps := corpus(t, name)[:200]
		sum := 0.0
		for i := range ps {
			sum += s.GuessDifficulty(&ps[i])
		}
		return sum / float64(len(ps))
	}
	royle, hardest := mean("royle17.txt.gz"), mean("forum-hardest-1905-11plus.txt.gz")
	t.Logf("mean of the first 200: royle17 %.2f, forum-hardest-1905-11plus %.2f", royle, hardest)
	if hardest < royle+1 {
		t.Errorf("forum-hardest %.2f, royle17 %.2f: want the hardest at least 1 above", hardest, royle)
	}
	em := mustParse(t, "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1")
	d := s.GuessDifficulty(&em)
	if again := s.GuessDifficulty(&em); again != d || d <= 0 || math.IsNaN(d) {
		t.Errorf("Easter monster: %v then %v, want the same positive figure", d, again)
	}
	if n := testing.AllocsPerRun(10, func() { s.GuessDifficulty(&em) }); n != 0 {
		t.Errorf("%v allocations a call, want 0", n)
	}
}

// Propagation solves a puzzle without a guess in every relabelling or in
// none: GuessDifficulty's shortcut gives the figure of all ten solves, on
// every puzzle of the small corpora and samples of the big ones.
func TestGuessDifficultyShortcut(t *testing.T) {
	s := NewSolver()
	zeros := 0
	for _, f := range []struct {
		name string
		n    int
	}{{"euler96.txt.gz", 50}, {"norvig-top95.txt.gz", 95}, {"plb-hard20.txt.gz", 20},
		{"royle17.txt.gz", 3000}, {"plb-top50k.txt.gz", 3000}, {"top1465.txt.gz", 1465}, {"serg-benchmark.txt.gz", 1000}} {
		ps := corpus(t, f.name)
		for i := range ps[:min(f.n, len(ps))] {
			fast, full := s.GuessDifficulty(&ps[i]), s.guessDifficulty(&ps[i], false)
			if fast != full {
				t.Fatalf("%s puzzle %d: %v with the shortcut, %v from ten solves", f.name, i+1, fast, full)
			}
			if full == 0 {
				zeros++
			}
		}
	}
	t.Logf("%d puzzles solved without a guess", zeros)
	if zeros < 1000 {
		t.Errorf("%d puzzles without a guess, want at least 1000 to test the shortcut", zeros)
	}
}

// BenchmarkGuessDifficulty reports puzzles a second (each Relabellings
// solves).
func BenchmarkGuessDifficulty(b *testing.B) {
	for _, name := range []string{"royle17.txt.gz", "top1465.txt.gz"} {
		ps := corpus(b, name)
		b.Run(name, func(b *testing.B) {
			s := NewSolver()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.GuessDifficulty(&ps[i%len(ps)])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puzzles/s")
		})
	}
}

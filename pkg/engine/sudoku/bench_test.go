package sudoku

import (
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/cputime"
)

// benchFile classifies every puzzle of a corpus of datasets per op (limit 2,
// solutions checked, as Classify does) and reports puzzles/s and guesses
// per puzzle.
func benchFile(b *testing.B, name string) {
	gs := corpus(b, name)
	s := NewSolver()
	b.ReportAllocs()
	b.ResetTimer()
	var n, guesses int
	cpu := cputime.Process()
	for b.Loop() {
		for _, g := range gs {
			guesses += s.Classify(g).Guesses
		}
		n += len(gs)
	}
	reportSpeed(b, n, cputime.Process()-cpu)
	b.ReportMetric(float64(guesses)/float64(n), "guesses/puzzle")
}

// BenchmarkRoyle17 is the speed target: all 49,158 17-clue puzzles.
func BenchmarkRoyle17(b *testing.B) { benchFile(b, "royle17.txt.gz") }

func BenchmarkNorvigTop95(b *testing.B) { benchFile(b, "norvig-top95.txt.gz") }

func BenchmarkTop1465(b *testing.B) { benchFile(b, "top1465.txt.gz") }

func BenchmarkPLBTop50k(b *testing.B) { benchFile(b, "plb-top50k.txt.gz") }

func BenchmarkForumHardest1106(b *testing.B) { benchFile(b, "forum-hardest-1106.txt.gz") }

// BenchmarkForumHardest1905 takes about 10 s per op; run it with
// -benchtime=1x.
func BenchmarkForumHardest1905(b *testing.B) { benchFile(b, "forum-hardest-1905-11plus.txt.gz") }

// BenchmarkSerg is uniqueness checking: every puzzle has several solutions.
func BenchmarkSerg(b *testing.B) { benchFile(b, "serg-benchmark.txt.gz") }

// BenchmarkSolveRoyle17 is Solve alone with limit 2, no conflict test or
// Check, to show what Classify's checks cost.
func BenchmarkSolveRoyle17(b *testing.B) {
	gs := corpus(b, "royle17.txt.gz")
	s := NewSolver()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	cpu := cputime.Process()
	for b.Loop() {
		for i := range gs {
			s.Solve(&gs[i], 2)
		}
		n += len(gs)
	}
	reportSpeed(b, n, cputime.Process()-cpu)
}

// reportSpeed reports puzzles per second of wall time and, where it is
// measured, per second of the process's CPU time: on a machine shared with
// other work the second is the steadier figure (compare versions with it).
func reportSpeed(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "puzzles/s")
	if cpu > 0 {
		b.ReportMetric(float64(n)/cpu.Seconds(), "puzzles/cpu-s")
	}
}

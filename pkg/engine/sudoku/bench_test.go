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

// BenchmarkSolution measures what Classify adds to the search for each
// solution it reports: reading the solved state into a Grid (state.solution)
// and checking it (checkFast), in Go and where the CPU has it in AVX-512,
// on the first solution of the first serg-benchmark puzzle.
func BenchmarkSolution(b *testing.B) {
	gs := corpus(b, "serg-benchmark.txt.gz")
	s := NewSolver()
	if n, _ := s.Solve(&gs[0], 1); n != 1 {
		b.Fatalf("serg-benchmark puzzle 1: %d solutions, want 1 with limit 1", n)
	}
	sol := s.Solution(0)
	var st state
	st.empty()
	if !st.givens(&sol) {
		b.Fatal("the solution's givens conflict")
	}
	defer func(a, b bool) { useSolutionAsm, useSolutionAVX2 = a, b }(useSolutionAsm, useSolutionAVX2)
	for _, k := range []struct{ name, path string }{{"read-go", ""}, {"read-avx2", "solutionAVX2"}, {"read-avx512", "solution"}} {
		b.Run(k.name, func(b *testing.B) {
			if k.path != "" {
				requireAsm(b, k.path)
			}
			useSolutionAsm, useSolutionAVX2 = k.path == "solution", k.path == "solutionAVX2"
			b.ReportAllocs()
			var g Grid
			for b.Loop() {
				st.solution(&g)
			}
			if g != sol {
				b.Fatalf("read %s, want %s", g, sol)
			}
		})
	}
	for _, k := range []struct {
		name, path string
		check      func(puzzle, solution *Grid) bool
	}{{"check-go", "", checkFast}, {"check-avx2", "solutionAVX2", checkAVX2}, {"check-avx512", "solution", checkAVX512}} {
		check := k.check
		b.Run(k.name, func(b *testing.B) {
			if k.path != "" {
				requireAsm(b, k.path)
			}
			b.ReportAllocs()
			for b.Loop() {
				if !check(&gs[0], &sol) {
					b.Fatal("the check refused the solution")
				}
			}
		})
	}
}

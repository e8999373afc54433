package infile_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/cputime"
	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// royle17Files returns royle17 as a plain, a gzip (the repository's, gzip
// -9) and a zstd file (klauspost's default level, as the zstd command's).
func royle17Files(b *testing.B) (formats, paths []string) {
	text := dataset(b, "royle17.txt.gz")
	return []string{"plain", "gzip", "zstd"}, []string{
		write(b, "royle17.txt", text),
		filepath.Join("..", "..", "datasets", "sudoku", "royle17.txt.gz"),
		write(b, "royle17.txt.zst", zstded(b, text)),
	}
}

// BenchmarkReadFile is ReadFile alone, from each format.
func BenchmarkReadFile(b *testing.B) {
	formats, paths := royle17Files(b)
	for i, format := range formats {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				text, _, err := infile.ReadFile(paths[i])
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(text)))
			}
		})
	}
}

// BenchmarkRoyle17 reads, parses and classifies royle17 from a plain, a
// gzip and a zstd file in every iteration (in turn, each first in one
// iteration of three, so that a machine whose speed drifts slows all
// alike), and reports the seconds each took and each compressed format's
// time over plain's: what a compressed input costs a whole command. The
// "-cpu" figures are of the process's CPU time, steadier than the wall
// clock on a machine that other work shares.
func BenchmarkRoyle17(b *testing.B) {
	formats, paths := royle17Files(b)
	s := sudoku.NewSolver()
	wall := make([]time.Duration, len(formats))
	cpu := make([]time.Duration, len(formats))
	iter := 0
	b.ReportAllocs()
	for b.Loop() {
		for k := range formats {
			i := (iter + k) % len(formats)
			start, startCPU := time.Now(), cputime.Process()
			text, _, err := infile.ReadFile(paths[i])
			if err != nil {
				b.Fatal(err)
			}
			unique := 0
			err = sudoku.ParseBytes(text, 1, func(it sudoku.Item) error {
				if it.Err != nil {
					return it.Err
				}
				if s.Classify(it.Grid).Outcome == sudoku.Unique {
					unique++
				}
				return nil
			})
			wall[i] += time.Since(start)
			cpu[i] += cputime.Process() - startCPU
			if err != nil || unique != 49158 {
				b.Fatalf("%s: %d unique puzzles, error %v; want 49158 and none", paths[i], unique, err)
			}
		}
		iter++
	}
	for i, format := range formats {
		b.ReportMetric(wall[i].Seconds()/float64(iter), format+"-s/op")
		if i > 0 {
			b.ReportMetric(float64(wall[i])/float64(wall[0]), format+"/plain")
			if cpu[0] > 0 {
				b.ReportMetric(float64(cpu[i])/float64(cpu[0]), format+"/plain-cpu")
			}
		}
	}
}

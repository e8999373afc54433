package sudoku

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// royle17 is the text of the repository's 17-clue corpus (49,158 lines,
// datasets/sudoku/royle17.txt.gz).
func royle17(b *testing.B) []byte {
	b.Helper()
	data, _, err := infile.ReadFile("../../../datasets/sudoku/royle17.txt.gz")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// planRoyle17 plans a job of royle17 in chunks of n puzzles, uploaded to
// objs.
func planRoyle17(b *testing.B, data []byte, n int, objs memObjects) *solvePlan {
	b.Helper()
	objs["in"] = data
	raw := uploaded(b, objs, SolveParams{Inputs: []Input{{File: "royle17.txt", Object: "in"}}, Chunk: n, Out: true})
	plan, err := Solve{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs})
	if err != nil {
		b.Fatal(err)
	}
	return plan.(*solvePlan)
}

// BenchmarkUploadCorpus is the client's serial start of a corpus job:
// cutting the input into the pieces of its tasks as it is read (no
// worker has a task until it is done).
func BenchmarkUploadCorpus(b *testing.B) {
	data := royle17(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := UploadCorpus(context.Background(), "royle17.txt", bytes.NewReader(data), 3000, store(memObjects{})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*49158/b.Elapsed().Seconds(), "puzzles/s")
}

// BenchmarkRunOverhead runs royle17's chunks with a worker's runner (no
// cache) and, in the same loop, classifies the same puzzles with the bare
// engine: overhead-ns/puzzle is what the runner adds per puzzle (parsing,
// counting, packing the result), share-engine the engine's part of the
// runner's time.
func BenchmarkRunOverhead(b *testing.B) {
	objs := memObjects{}
	plan := planRoyle17(b, royle17(b), 3000, objs)
	var grids []sudoku.Grid
	for _, t := range plan.tasks {
		c, err := decodeChunk(context.Background(), t.Payload, objs)
		if err != nil {
			b.Fatal(err)
		}
		_ = sudoku.ParseBytes(c.Text, c.Line, func(it sudoku.Item) error { grids = append(grids, it.Grid); return it.Err })
	}
	r := Solve{}.NewRunner(tasks.Env{Objects: objs})
	s := sudoku.NewSolver()
	b.ReportAllocs()
	var run, engine time.Duration
	for b.Loop() {
		start := time.Now()
		for _, t := range plan.tasks {
			if _, err := r.Run(context.Background(), t.Payload); err != nil {
				b.Fatal(err)
			}
		}
		mid := time.Now()
		for _, g := range grids {
			s.Classify(g)
		}
		run, engine = run+mid.Sub(start), engine+time.Since(mid)
	}
	n := float64(b.N) * float64(len(grids))
	b.ReportMetric(n/run.Seconds(), "puzzles/s")
	b.ReportMetric(float64(run-engine)/n, "overhead-ns/puzzle")
	b.ReportMetric(engine.Seconds()/run.Seconds(), "share-engine")
}

// BenchmarkReport merges the results of royle17's chunks into the report
// and the lines of --out, as the coordinator does as they come.
func BenchmarkReport(b *testing.B) {
	data := royle17(b)
	objs := memObjects{}
	plan := planRoyle17(b, data, 3000, objs)
	results := taskstest.Results(b, Solve{}, plan, tasks.Env{Objects: objs})
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		p := planRoyle17(b, data, 3000, objs)
		b.StartTimer()
		for id, d := range results {
			if err := p.Merge(id, d); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := p.Report(context.Background(), tasks.Summary{Job: "j", Outputs: objs}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*49158/b.Elapsed().Seconds(), "puzzles/s")
}

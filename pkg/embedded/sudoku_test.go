package embedded_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/internal/broker"
	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/embedded"
	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
	sudokutasks "github.com/woprlabs/wopr/pkg/tasks/sudoku"
)

// dataset returns the text of a corpus of the repository's datasets
// (datasets/sudoku/NAME, gzip-compressed).
func dataset(t *testing.T, name string) []byte {
	t.Helper()
	data, _, err := infile.ReadFile(filepath.Join("..", "..", "datasets", "sudoku", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// upload uploads a corpus as analyze does, in pieces of chunk puzzles
// (0: the default), and returns the object to name in the job's inputs.
func upload(t *testing.T, b *broker.Broker, chunk int, data []byte) string {
	t.Helper()
	if chunk == 0 {
		chunk = sudokutasks.DefaultChunk
	}
	in, err := sudokutasks.UploadCorpus(ctxFor(t), "f", bytes.NewReader(data), chunk, sudokutasks.Stored(b.Objects().UploadContent))
	if err != nil {
		t.Fatal(err)
	}
	return in.Object
}

// download returns the output name of job j.
func download(t *testing.T, b *broker.Broker, j *job.Record, name string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := b.Objects().DownloadTo(ctxFor(t), j.Outputs[name], j.OutputParts[name], &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// sudokuReport is a sudoku.solve report as a job's record has it.
type sudokuReport struct {
	sudokutasks.SolveReport
	tasks.Common
}

func solveJob(t *testing.T, b *broker.Broker, p sudokutasks.SolveParams) (*job.Record, sudokuReport) {
	t.Helper()
	j := wait(t, b, submit(t, b, "sudoku.solve", p))
	if j.State != job.Done {
		t.Fatalf("job %s: %s %s", j.ID, j.State, j.Error)
	}
	var rep sudokuReport
	if err := json.Unmarshal(j.Report, &rep); err != nil {
		t.Fatal(err)
	}
	return j, rep
}

// A corpus with bad lines of every kind: every line comes out once, in
// order, every solution is checked against its givens.
func TestSudokuSolveLosesNothing(t *testing.T) {
	euler := dataset(t, "euler96.txt.gz")
	lines := strings.Split(strings.TrimSpace(string(euler)), "\n")
	bad := strings.Join([]string{
		"# a comment",
		lines[0],
		strings.Repeat(".", 80),        // malformed: 80 cells
		"11" + strings.Repeat(".", 79), // invalid: row 1 has two 1s
		strings.Repeat(".", 81),        // multiple
		"",
		lines[1],
		"12345678." + strings.Repeat(".", 63) + "........9", // unsolvable: r1c9 must be 9, column 9 has one
		strings.Repeat("x", 81),                             // malformed: bad character
	}, "\n") + "\n"
	c := startCluster(t, t.TempDir(), 2)
	p := sudokutasks.SolveParams{Chunk: 7, Out: true, Rejects: true, Inputs: []sudokutasks.Input{
		{File: "euler96.txt", Object: upload(t, c.Broker, 7, euler)},
		{File: "bad.txt", Object: upload(t, c.Broker, 7, []byte(bad))},
	}}
	j, rep := solveJob(t, c.Broker, p)
	nEuler := len(lines)
	if rep.Puzzles != nEuler+7 {
		t.Fatalf("%d puzzles, want %d", rep.Puzzles, nEuler+7)
	}
	out := strings.Split(strings.TrimSuffix(download(t, c.Broker, j, "out"), "\n"), "\n")
	if len(out) != rep.Puzzles {
		t.Fatalf("--out has %d lines for %d puzzles", len(out), rep.Puzzles)
	}
	for i, line := range lines {
		pz, err := sudoku.ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := sudoku.ParseLine(out[i])
		if err != nil {
			t.Fatalf("line %d of --out %q: %v", i+1, out[i], err)
		}
		if err := sudoku.Check(pz, sol); err != nil {
			t.Errorf("euler96.txt:%d: %v", i+1, err)
		}
	}
	tail := out[nEuler:]
	wantPrefix := []string{"", "malformed", "invalid", "multiple", "", "unsolvable", "malformed"}
	for i, w := range wantPrefix {
		if w != "" && !strings.HasPrefix(tail[i], w+": ") {
			t.Errorf("bad.txt item %d: out line %q, want it to start with %q", i+1, tail[i], w)
		}
	}
	if rep.Malformed != 2 || rep.Invalid != 1 || rep.Multiple != 1 || rep.Unique < nEuler+2 {
		t.Errorf("counts: %+v", rep)
	}
	rejects := download(t, c.Broker, j, "rejects")
	for _, want := range []string{"bad.txt:3: malformed: 80 cells, want 81", "bad.txt:4: invalid: ", "bad.txt:5: multiple: ", "bad.txt:8: unsolvable: ", "bad.txt:9: malformed: column 1: 'x' is not a digit"} {
		if !strings.Contains(rejects, want) {
			t.Errorf("rejects lack %q:\n%s", want, rejects)
		}
	}
	if rep.RejectsTotal != rep.Puzzles-rep.Unique {
		t.Errorf("%d rejects for %d puzzles not uniquely solved", rep.RejectsTotal, rep.Puzzles-rep.Unique)
	}
	// A rerun is answered from the caches.
	_, again := solveJob(t, c.Broker, p)
	if again.CachedTasks != again.Tasks {
		t.Errorf("rerun: %d of %d tasks from the result cache", again.CachedTasks, again.Tasks)
	}
	if again.CachedPuzzles != again.Puzzles || again.PuzzlesPerSecond != 0 || rep.CachedPuzzles != 0 || rep.PuzzlesPerSecond == 0 {
		t.Errorf("rerun: %d of %d puzzles cached, %v puzzles/s; first run %d cached, %v puzzles/s: want all, 0; 0, a rate",
			again.CachedPuzzles, again.Puzzles, again.PuzzlesPerSecond, rep.CachedPuzzles, rep.PuzzlesPerSecond)
	}
}

// Generation is reproducible from the seed whatever the number of workers;
// every puzzle has exactly one solution; minimal puzzles are minimal.
func TestSudokuGenerate(t *testing.T) {
	one := startCluster(t, t.TempDir(), 1)
	three := startCluster(t, t.TempDir(), 3)
	p := sudokutasks.GenerateParams{Count: 60, Seed: 42, Minimal: true, Symmetric: true}
	gen := func(c *broker.Broker) sudokutasks.GenerateReport {
		j := wait(t, c, submit(t, c, "sudoku.generate", p))
		var r sudokutasks.GenerateReport
		if err := json.Unmarshal(j.Report, &r); err != nil || j.State != job.Done {
			t.Fatalf("job %s %s %s: %v", j.ID, j.State, j.Error, err)
		}
		return r
	}
	a, b := gen(one.Broker), gen(three.Broker)
	if strings.Join(a.Puzzles, ",") != strings.Join(b.Puzzles, ",") || a.Count != 60 {
		t.Fatalf("1 and 3 workers made different puzzles (%d, %d)", a.Count, b.Count)
	}
	s := sudoku.NewSolver()
	for i, pz := range a.Puzzles {
		g, err := sudoku.ParseLine(pz)
		if err != nil {
			t.Fatal(err)
		}
		for c := range 81 {
			if (g[c] == 0) != (g[80-c] == 0) {
				t.Fatalf("puzzle %d is not symmetric: %s", i, pz)
			}
		}
		if n, _ := s.Solve(&g, 2); n != 1 {
			t.Fatalf("puzzle %d has %d solutions: %s", i, n, pz)
		}
		for c := range 81 {
			if g[c] == 0 {
				continue
			}
			h := g
			h[c] = 0
			if n, _ := s.Solve(&h, 2); n == 1 {
				t.Fatalf("puzzle %d is not minimal: clue %d can go: %s", i, c, pz)
			}
		}
	}
}

// A hard puzzle that repeats is solved once: the second copy is a hit in
// the worker's per-puzzle cache (in the same run, and in another corpus).
func TestSudokuRepeatedHardPuzzleIsCacheHit(t *testing.T) {
	data := dataset(t, "royle17.txt.gz")
	s := sudoku.NewSolver()
	var hard string
	for _, line := range strings.Split(string(data), "\n") {
		if len(line) < 81 {
			continue
		}
		g, err := sudoku.ParseLine(line[:81])
		if err != nil {
			t.Fatal(err)
		}
		if _, guesses := s.Solve(&g, 2); guesses >= 20 {
			hard = line[:81]
			break
		}
	}
	if hard == "" {
		t.Fatal("no puzzle with 20 guesses in royle17.txt")
	}
	c := startCluster(t, t.TempDir(), 1)
	corpus := []byte(hard + "\n" + hard + "\n")
	_, rep := solveJob(t, c.Broker, sudokutasks.SolveParams{Inputs: []sudokutasks.Input{{File: "twice.txt", Object: upload(t, c.Broker, 0, corpus)}}})
	if rep.Unique != 2 || rep.CacheHits != 1 {
		t.Errorf("%d unique, %d cache hits; want 2 and 1", rep.Unique, rep.CacheHits)
	}
	other := []byte("# another corpus\n" + hard + "\n")
	_, rep = solveJob(t, c.Broker, sudokutasks.SolveParams{Inputs: []sudokutasks.Input{{File: "other.txt", Object: upload(t, c.Broker, 0, other)}}})
	if rep.Unique != 1 || rep.CacheHits != 1 {
		t.Errorf("other corpus: %d unique, %d cache hits; want 1 and 1", rep.Unique, rep.CacheHits)
	}
}

// Every task names its piece of the input (and the next two, read ahead),
// which its worker reads from the bucket of pieces: no puzzle goes through
// the work queue, whether other processes may join the embedded cluster
// (Listen) or not, and the outputs are the same.
func TestSudokuTasksNameTheirPieces(t *testing.T) {
	data := dataset(t, "royle17.txt.gz")
	data = data[:82*1500]
	var outs []string
	for _, listen := range []string{"", "127.0.0.1:0"} {
		c, err := embedded.Start(context.Background(), embedded.Options{Dir: t.TempDir(), Workers: 2, Queue: testQueue(), Listen: listen})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		var mu sync.Mutex
		var payloads [][]byte
		observing, stop := context.WithCancel(ctxFor(t))
		err = c.Broker.Work().ObserveTasks(observing, func(task job.Task) {
			mu.Lock()
			payloads = append(payloads, task.Payload)
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		in := upload(t, c.Broker, 100, data)
		j, rep := solveJob(t, c.Broker, sudokutasks.SolveParams{Chunk: 100, Out: true, Inputs: []sudokutasks.Input{{File: "r.txt", Object: in}}})
		stop()
		if rep.Puzzles != 1500 || rep.Unique != 1500 {
			t.Errorf("listen %q: %d puzzles, %d unique; want 1500 of each", listen, rep.Puzzles, rep.Unique)
		}
		mu.Lock()
		named, size := 0, 0
		for _, p := range payloads {
			if bytes.HasPrefix(p, []byte("wopr-sudoku-piece/2 ")) && len(p) < 300 {
				named++
			}
			size += len(p)
		}
		mu.Unlock()
		if len(payloads) != 15 || named != 15 {
			t.Errorf("listen %q: %d of %d task messages name their pieces (%d bytes in all); want 15 of 15", listen, named, len(payloads), size)
		}
		outs = append(outs, download(t, c.Broker, j, "out"))
	}
	if outs[0] != outs[1] || strings.Count(outs[0], "\n") != 1500 {
		t.Errorf("outputs differ, or lack lines: %d and %d bytes", len(outs[0]), len(outs[1]))
	}
}

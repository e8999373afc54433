package sudoku

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// testSolution is a solved grid.
var testSolution, _ = sudoku.ParseLine("534678912672195348198342567859761423426853791713924856961537284287419635345286179")

// sampleResult is a chunk's result of four puzzles (unique, multiple,
// unique, malformed): its summary, body, encoding and lines of --out.
func sampleResult() (sum chunkSummary, body, data []byte, want string) {
	g, _ := sudoku.ParseLine(strings.Repeat(".", 80) + "1")
	sum.add(3, &g, sudoku.Unique, 4)
	sum.add(5, &g, sudoku.Multiple, 12)
	sum.add(7, &g, sudoku.Unique, 0)
	sum.add(9, &g, sudoku.Malformed, 0)
	rest := "multiple: at least 2 solutions: a b\n"
	last := "malformed: column 17: 'x' is not a digit\n"
	body = append(append(append(packSolution(nil, &testSolution), rest...), packSolution(nil, &testSolution)...), last...)
	data, err := encodeResult(&sum, body, 0)
	if err != nil {
		panic(err)
	}
	// With room for the header before the body, the same bytes.
	roomy, err := encodeResult(&sum, append(make([]byte, headRoom), body...), headRoom)
	if err != nil || !bytes.Equal(roomy, data) {
		panic(fmt.Sprintf("encoded with room for the header: %q, %v; without: %q", roomy, err, data))
	}
	return sum, body, data, testSolution.String() + "\n" + rest + testSolution.String() + "\n" + last
}

// A result packs unique solutions and keeps other lines as text; expanded,
// it gives the chunk's lines of --out and each reject's reason.
func TestResultRoundTrip(t *testing.T) {
	sum, body, data, want := sampleResult()
	wantReasons := "[5 at least 2 solutions: a b 9 column 17: 'x' is not a digit]"
	{
		got, err := decodeResult(data, 4)
		if err != nil {
			t.Fatal(err)
		}
		sum.byGuesses = nil
		if !reflect.DeepEqual(got.chunkSummary, sum) {
			t.Errorf("summary round trip:\ngot  %+v\nwant %+v", got.chunkSummary, sum)
		}
		var reasons []string
		out, err := got.expand([]byte("before\n"), true, func(rj chunkReject, reason string) {
			reasons = append(reasons, fmt.Sprint(rj.Line, " ", reason))
		})
		if err != nil || string(out) != "before\n"+want || fmt.Sprint(reasons) != wantReasons || got.outSize() != len(want) {
			t.Errorf("expanded: %q, %v, reasons %q, size %d of %d", out, err, reasons, got.outSize(), len(want))
		}
		if out, err := got.expand(nil, false, func(chunkReject, string) {}); err != nil || len(out) != 0 {
			t.Errorf("expanded without writing: %q, %v", out, err)
		}
	}
	if got := sum; got.Counts != [5]int{2, 1, 0, 0, 1} || got.Clues[1] != 3 || len(got.Rejects) != 2 || got.Hardest[0].Line != 5 {
		t.Errorf("summary %+v", got)
	}
	zero := bytes.Clone(data)
	zero[len(data)-len(body)+3] &= 0x0f // a 0 digit in the first solution
	for _, bad := range [][]byte{nil, []byte("nope\n"), data[:len(data)-1], append(bytes.Clone(data), "x\n"...), zero,
		data[:len(data)-len(body)+packedLen-1]} {
		r, err := decodeResult(bad, 4)
		if err == nil {
			_, err = r.expand(nil, true, func(chunkReject, string) {})
		}
		if err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
	if _, err := decodeResult(data, 5); err == nil {
		t.Error("a short result decoded without error")
	}
}

// memObjects is an in-memory tasks.Objects (and tasks.Outputs) for planning
// and reporting without a cluster.
type memObjects map[string][]byte

func (m memObjects) Get(_ context.Context, name string) ([]byte, error) {
	data, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("no object %s", name)
	}
	return data, nil
}

func (m memObjects) Put(_ context.Context, name string, data []byte) error {
	m[name] = data
	return nil
}

// Create implements tasks.Outputs: the output is kept once the writer is
// closed.
func (m memObjects) Create(_ context.Context, name string) (io.WriteCloser, error) {
	return &memWriter{m: m, name: name}, nil
}

type memWriter struct {
	m    memObjects
	name string
	data []byte
}

func (w *memWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	return len(p), nil
}

func (w *memWriter) Close() error {
	w.m[w.name] = append([]byte{}, w.data...)
	return nil
}

// store stores data in objs under a name made from its content; it may be
// called from several goroutines (UploadCorpus calls it so).
func store(objs memObjects) func(context.Context, []byte, int64) (string, error) {
	var mu sync.Mutex
	return func(_ context.Context, data []byte, _ int64) (string, error) {
		sum := sha256.Sum256(data)
		name := "piece/" + hex.EncodeToString(sum[:8])
		mu.Lock()
		defer mu.Unlock()
		objs[name] = data
		return name, nil
	}
}

// uploaded uploads the text of each input of p, the object that its
// Object names in objs, as a client does (UploadCorpus), and returns the
// parameters with the inputs so uploaded, marshalled.
func uploaded(tb testing.TB, objs memObjects, p SolveParams) json.RawMessage {
	tb.Helper()
	chunk := p.Chunk
	if chunk == 0 {
		chunk = DefaultChunk
	}
	inputs := p.Inputs
	p.Inputs = nil
	for _, in := range inputs {
		up, err := UploadCorpus(context.Background(), in.File, bytes.NewReader(objs[in.Object]), chunk, store(objs))
		if err != nil {
			tb.Fatal(err)
		}
		p.Inputs = append(p.Inputs, up)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// Plan, run every task, report: chunking does not change the outputs, nor
// does writing them while results are merged.
func TestSolveOutputsIndependentOfChunking(t *testing.T) {
	corpus := "# c\n" +
		"..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n" +
		strings.Repeat(".", 81) + "\n" +
		"bad line\n" +
		"\n" +
		"2...8.3...6..7..84.3.5..2.9...1.54.8.........4.27.6...3.1..7.4.72..4..6...4.1...3\n"
	var outs []string
	for _, size := range []int{1, 2, 3, 100} {
		for _, outputs := range []bool{false, true} {
			objs := memObjects{"in": []byte(corpus)}
			raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: size, Out: true, Rejects: true})
			env := tasks.PlanEnv{Objects: objs}
			if outputs {
				env.Outputs = objs // written as results are merged
			}
			plan, err := Solve{}.Plan(context.Background(), raw, env)
			if err != nil {
				t.Fatal(err)
			}
			sr := taskstest.RunPlan(t, Solve{}, plan, tasks.Env{Objects: objs}, tasks.Summary{Job: "j", Outputs: objs}).(*SolveReport)
			if sr.Puzzles != 4 || sr.Unique != 2 || sr.Multiple != 1 || sr.Malformed != 1 {
				t.Errorf("chunk %d, outputs %v: %+v", size, outputs, sr)
			}
			outs = append(outs, string(objs["out"])+"|"+string(objs["rejects"]))
		}
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			t.Errorf("outputs differ with chunk size:\n%s\n%s", outs[0], outs[i])
		}
	}
	lines := strings.Split(strings.Split(outs[0], "|")[0], "\n")
	pz, _ := sudoku.ParseLine("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..")
	sol, err := sudoku.ParseLine(lines[0])
	if err != nil || sudoku.Check(pz, sol) != nil {
		t.Errorf("first output line %q is not the solution", lines[0])
	}
	if !strings.HasPrefix(lines[1], "multiple: at least 2 solutions: ") || !strings.HasPrefix(lines[2], "malformed: ") {
		t.Errorf("outputs %q", lines)
	}
}

func TestChunkRoundTrip(t *testing.T) {
	text := []byte("# x\n" + strings.Repeat("1", 81) + "\n\nbad\n")
	objs := memObjects{"piece/x": text}
	for _, next := range [][]string{{}, {"piece/y"}, {"piece/y", "input/z"}} {
		c := &chunk{File: `dir/odd "name" with spaces.txt`, Line: 17, Object: "piece/x", Next: next, Text: text}
		payload := c.encode()
		got, err := decodeChunk(context.Background(), payload, objs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) || len(payload) > 100 {
			t.Errorf("round trip of %q:\ngot  %+v\nwant %+v", payload, got, c)
		}
	}
	payload := (&chunk{File: "f", Line: 17, Object: "piece/x"}).encode()
	for _, bad := range []string{"", "nope\n", pieceMagic + "17 piece/x\n", pieceMagic + "17 piece/x f\n",
		pieceMagic + "0 piece/x \"f\"\n", pieceMagic + "x piece/x \"f\"\n", pieceMagic + "17 piece/y \"f\"\n",
		pieceMagic + "17 piece/x \"f\"", pieceMagic + "17 piece/x, \"f\"\n", pieceMagic + "17 ,piece/x \"f\"\n"} {
		if _, err := decodeChunk(context.Background(), []byte(bad), objs); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
	if _, err := decodeChunk(context.Background(), payload, nil); err == nil {
		t.Errorf("a chunk decoded without an object store")
	}
}

// The filter of cached puzzles has no false negatives and few false
// positives.
func TestPuzzleSet(t *testing.T) {
	ps := newPuzzleSet()
	grid := func(i int) sudoku.Grid { // a different grid for each i
		var g sudoku.Grid
		for c := 0; c < 8; c++ {
			g[c] = uint8(i>>(3*c))&7 + 1
		}
		return g
	}
	for i := range 100_000 {
		g := grid(2 * i)
		ps.add(&g)
	}
	if bits := 64 * len(ps.filter.Load().words); bits != 1<<22 {
		t.Errorf("%d bits for 100,000 puzzles, want 2^22 (32 a puzzle, rounded up)", bits)
	}
	falsePos := 0
	for i := range 100_000 {
		g := grid(2 * i)
		if !ps.has(&g) {
			t.Fatalf("puzzle %d added but not found", i)
		}
		if g = grid(2*i + 1); ps.has(&g) {
			falsePos++
		}
	}
	if falsePos > 200 {
		t.Errorf("%d false positives in 100,000 lookups", falsePos)
	}
	t.Logf("%d false positives in 100,000 lookups", falsePos)
}

func TestChunkLimits(t *testing.T) {
	objs := memObjects{
		"multiple": []byte(strings.Repeat(strings.Repeat(".", 81)+"\n", MaxChunk)),
		"long":     []byte(strings.Repeat(strings.Repeat("1", 300_000)+"\n", 40) + strings.Repeat("x", 81) + "\n"),
	}
	for name, want := range map[string]int{"multiple": MaxChunk, "long": 41} {
		raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: name, Object: name}}, Chunk: MaxChunk, Out: true})
		plan, err := Solve{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		r := Solve{}.NewRunner(tasks.Env{Objects: objs})
		for _, task := range plan.Tasks() {
			if len(task.Payload) > maxPayload {
				t.Errorf("%s: task %s has %d bytes", name, task.ID, len(task.Payload))
			}
			out, err := r.Run(context.Background(), task.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Data) > 1000<<10 {
				t.Errorf("%s: result of task %s has %d bytes", name, task.ID, len(out.Data))
			}
			if err := plan.Merge(task.ID, out.Data); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := plan.Report(context.Background(), tasks.Summary{Job: "j", Outputs: objs})
		if err != nil {
			t.Fatal(err)
		}
		sr := rep.(*SolveReport)
		if sr.Puzzles != want || sr.RejectsTotal != want || len(sr.Rejects) != min(want, rejectsKept) {
			t.Errorf("%s: %d puzzles, %d rejects (%d listed), want %d (%d listed)", name, sr.Puzzles, sr.RejectsTotal, len(sr.Rejects), want, min(want, rejectsKept))
		}
		if name == "long" && (len(plan.Tasks()) < 2 || !strings.Contains(sr.Rejects[0].Reason, "longer than")) {
			t.Errorf("long lines: %d tasks, first reject %+v", len(plan.Tasks()), sr.Rejects[0])
		}
	}
}

// A grid that Cut cannot split and that does not fit in a task is a clear
// error naming where it starts.
func TestPlanRefusesHugeGrid(t *testing.T) {
	text := strings.Repeat(".", 81) + "\n123456789\n" + strings.Repeat("# c\n", 500_000)
	_, err := UploadCorpus(context.Background(), "g.txt", strings.NewReader(text), DefaultChunk, store(memObjects{}))
	if !errors.Is(err, tasks.ErrInvalid) || !strings.HasPrefix(err.Error(), "g.txt:1: the 2 puzzles from this line") {
		t.Errorf("error %v", err)
	}
}

// Without --chunk, about 64 tasks of 100 to 3,000 puzzles; parameters
// without a chunk size mean DefaultChunk.
func TestAutoChunk(t *testing.T) {
	for size, want := range map[int]int{0: 100, 82 * 95: 100, 82 * 49158: 768, 82 * 192_000: 3000, 82 * 1_000_000: 3000} {
		if got := AutoChunk(size); got != want {
			t.Errorf("AutoChunk(%d bytes) = %d, want %d", size, got, want)
		}
	}
	objs := memObjects{"in": []byte(strings.Repeat(strings.Repeat(".", 80)+"1\n", 10_000))}
	for chunk, want := range map[int]int{AutoChunk(len(objs["in"])): 65, 0: 10} {
		raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: chunk})
		plan, err := Solve{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(plan.Tasks()); n != want {
			t.Errorf("10,000 puzzles with chunk %d in %d tasks, want %d", chunk, n, want)
		}
	}
}

// A damaged result is an error, never a panic or a wrong count of lines.
func FuzzResult(f *testing.F) {
	_, _, data, _ := sampleResult()
	f.Add(data, 4)
	f.Add([]byte(resultMagic+`{"puzzles":1,"counts":[1,0,0,0,0]}`+"\n"+string(packSolution(nil, &testSolution))), 1)
	f.Fuzz(func(t *testing.T, data []byte, puzzles int) {
		if puzzles < 0 || puzzles > 10_000 {
			return
		}
		r, err := decodeResult(data, puzzles)
		if err != nil {
			return
		}
		out, err := r.expand(nil, true, func(chunkReject, string) {})
		if err != nil {
			return
		}
		if n := bytes.Count(out, []byte{'\n'}); n != puzzles || len(out) != r.outSize() {
			t.Fatalf("%d lines (%d bytes, outSize %d) for %d puzzles", n, len(out), r.outSize(), puzzles)
		}
	})
}

// BenchmarkUnpackSolutions: the report's expansion of a chunk of 3,000
// packed solutions into lines of --out.
func BenchmarkUnpackSolutions(b *testing.B) {
	var packed []byte
	for range 3000 {
		packed = packSolution(packed, &testSolution)
	}
	dst := make([]byte, 0, 3000*(cells+1))
	b.ReportAllocs()
	b.SetBytes(int64(len(packed)))
	for b.Loop() {
		if _, ok := unpackSolutions(dst[:0], packed); !ok {
			b.Fatal("not digits")
		}
	}
	b.ReportMetric(float64(b.N)*3000/b.Elapsed().Seconds(), "solutions/s")
}

// The readable report lists the hardest puzzles that needed a guess, their
// locations in one column, and counts in words that agree with them.
func TestSolveReportText(t *testing.T) {
	r := &SolveReport{Puzzles: 3, Unique: 3, PuzzlesPerSecond: 1500, Hardest: []Hard{
		{File: "long-name.txt", Line: 12, Puzzle: "p1", Guesses: 40},
		{File: "a.txt", Line: 3, Puzzle: "p2", Guesses: 2},
		{File: "a.txt", Line: 1, Puzzle: "p3", Guesses: 0},
	}}
	text := r.Text()
	for _, want := range []string{
		"  puzzles per second         1,500\n",
		"    40  long-name.txt:12  p1\n",
		"     2  a.txt:3           p2\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "p3") {
		t.Errorf("a puzzle without guesses among the hardest:\n%s", text)
	}
	r.Hardest = r.Hardest[2:]
	if text := r.Text(); !strings.Contains(text, "hardest: none needed a guess") {
		t.Errorf("no puzzle needed a guess, but:\n%s", text)
	}
}

// A task that failed: each of its puzzles is "unsolved" in --out and a
// reject, in its place; the others are solved. The report reads the
// failed task's payload, and only that one (the runtime drops the others').
func TestSolveFailedChunk(t *testing.T) {
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	corpus := strings.Repeat(pz+"\n", 5)
	objs := memObjects{"in": []byte(corpus)}
	raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: 2, Out: true, Rejects: true})
	plan, err := Solve{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs, Outputs: objs})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(plan.Tasks()); n != 3 {
		t.Fatalf("%d tasks, want 3", n)
	}
	failed := plan.Tasks()[1].ID
	sum := tasks.Summary{Job: "j", Outputs: objs, Failures: []tasks.Failure{{Task: failed, Reason: "worker lost"}}}
	sr := taskstest.RunPlan(t, Solve{}, plan, tasks.Env{Objects: objs}, sum).(*SolveReport)
	out := strings.Split(strings.TrimSuffix(string(objs["out"]), "\n"), "\n")
	if len(out) != 5 {
		t.Fatalf("--out has %d lines, want 5: %q", len(out), out)
	}
	g, _ := sudoku.ParseLine(pz)
	for i, line := range out {
		if i == 2 || i == 3 {
			if line != "unsolved: not solved: its task failed" {
				t.Errorf("line %d of --out: %q, want unsolved", i+1, line)
			}
			continue
		}
		if sol, err := sudoku.ParseLine(line); err != nil || sudoku.Check(g, sol) != nil {
			t.Errorf("line %d of --out: %q, want the solution", i+1, line)
		}
	}
	want := "c.txt:3: unsolved: not solved: its task failed\nc.txt:4: unsolved: not solved: its task failed\n"
	if got := string(objs["rejects"]); got != want {
		t.Errorf("--rejects %q, want %q", got, want)
	}
	if sr.Unique != 3 || len(sr.Rejects) != 2 || sr.RejectsTotal != 2 {
		t.Errorf("%d unique, %d rejects (%d listed); want 3 and 2", sr.Unique, sr.RejectsTotal, len(sr.Rejects))
	}
}

// Merging the results in any order gives the same report and outputs, with
// a failed task among them; Report called twice gives them again; a damaged
// result is refused by Merge.
func TestMergeInAnyOrder(t *testing.T) {
	var corpus strings.Builder
	for i := range 60 {
		switch i % 6 {
		case 1:
			corpus.WriteString(strings.Repeat(".", 81) + "\n") // multiple
		case 3:
			corpus.WriteString("bad line\n# a comment\n") // malformed
		case 4:
			corpus.WriteString("11" + strings.Repeat(".", 79) + "\n") // invalid
		default:
			corpus.WriteString("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n")
		}
	}
	objs := memObjects{"in": []byte(corpus.String())}
	for _, out := range []bool{true, false} {
		raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: 7, Out: out, Rejects: true})
		newPlan := func() *solvePlan {
			plan, err := Solve{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs})
			if err != nil {
				t.Fatal(err)
			}
			return plan.(*solvePlan)
		}
		plan := newPlan()
		results := taskstest.Results(t, Solve{}, plan, tasks.Env{Objects: objs})
		failed := plan.Tasks()[3].ID
		delete(results, failed)
		sum := tasks.Summary{Job: "j", Outputs: objs, Failures: []tasks.Failure{{Task: failed, Reason: "lost"}}}
		// merged merges every result in the order given and reports.
		merged := func(p *solvePlan, order []int) string {
			for _, i := range order {
				id := p.Tasks()[i].ID
				if d, ok := results[id]; ok {
					if err := p.Merge(id, d); err != nil {
						t.Fatalf("merge %s: %v", id, err)
					}
				}
			}
			report := func() string {
				rep, err := p.Report(context.Background(), sum)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(rep)
				return string(b) + "|" + string(objs["out"]) + "|" + string(objs["rejects"])
			}
			first := report()
			if again := report(); again != first {
				t.Fatalf("out %v: a second Report differs:\ngot  %s\nwant %s", out, again, first)
			}
			return first
		}
		n := len(plan.Tasks())
		inOrder := make([]int, n)
		for i := range inOrder {
			inOrder[i] = i
		}
		want := merged(plan, inOrder)
		if !strings.Contains(want, "c.txt:") || out && !strings.Contains(want, "unsolved: not solved") {
			t.Fatalf("report lacks rejects or outputs: %s", want)
		}
		rng := rand.New(rand.NewPCG(7, 9))
		for trial := range 30 {
			order := rng.Perm(n)
			if got := merged(newPlan(), order); got != want {
				t.Fatalf("out %v, trial %d (order %v): report differs:\ngot  %s\nwant %s", out, trial, order, got, want)
			}
		}
		p := newPlan()
		id := p.Tasks()[0].ID
		bad := bytes.Clone(results[id])
		if err := p.Merge(id, bad[:len(bad)-1]); err == nil {
			t.Errorf("a damaged result merged")
		}
	}
}

// packSolution packs two cells a byte, the first in the high nibble, as a
// loop over the cells does, for grids of any cells of 0 to 15.
func TestPackSolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var g sudoku.Grid
		for i := range g {
			g[i] = uint8(rng.IntN(16))
		}
		var want []byte
		for i := 0; i < cells-1; i += 2 {
			want = append(want, g[i]<<4|g[i+1])
		}
		want = append(want, g[cells-1]<<4)
		if got := packSolution([]byte("x"), &g); string(got) != "x"+string(want) {
			t.Fatalf("%v packed to %x, want %x", g, got[1:], want)
		}
	}
}

// Every result the solver computes passes its check (tasks.Checks); a
// solution changed, or the result of another piece, fails it.
func TestSolveCheck(t *testing.T) {
	var corpus strings.Builder
	for i := range 42 {
		switch i % 7 {
		case 1:
			corpus.WriteString(strings.Repeat(".", 81) + "\n") // multiple
		case 3:
			corpus.WriteString("bad line\n# a comment\n") // malformed
		case 4:
			corpus.WriteString("11" + strings.Repeat(".", 79) + "\n") // invalid
		case 5:
			corpus.WriteString("12345678.........9" + strings.Repeat(".", 63) + "\n") // unsolvable
		case 6:
			corpus.WriteString("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n")
		default:
			corpus.WriteString("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n")
		}
	}
	objs := memObjects{"in": []byte(corpus.String())}
	raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: 7})
	plan, err := Solve{}.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs})
	if err != nil {
		t.Fatal(err)
	}
	chk := plan.(tasks.Checks)
	results := taskstest.Results(t, Solve{}, plan, tasks.Env{Objects: objs})
	ids := make([]string, 0, len(results))
	for _, task := range plan.Tasks() {
		ids = append(ids, task.ID)
	}
	outcomes := map[string]bool{}
	for i, id := range ids {
		data := results[id]
		if err := chk.Check(id, data); err != nil {
			t.Fatalf("task %s: a computed result fails its check: %v", id, err)
		}
		r, err := decodeResult(data, plan.(*solvePlan).pieces[i].Items)
		if err != nil {
			t.Fatal(err)
		}
		for _, rj := range r.Rejects {
			outcomes[rj.Outcome] = true
		}
		if len(r.body) > 0 && r.Counts[0] > 0 && (len(r.Rejects) == 0 || r.Rejects[0].Index > 0) {
			bad := bytes.Clone(data)
			bad[len(data)-len(r.body)] ^= 0x11 // two digits of the first solution
			if err := chk.Check(id, bad); err == nil {
				t.Errorf("task %s: a solution changed passes the check", id)
			}
		}
		if other := ids[(i+1)%len(ids)]; !bytes.Equal(results[other], data) {
			if err := chk.Check(id, results[other]); err == nil {
				t.Errorf("task %s: the result of task %s passes its check", id, other)
			}
		}
	}
	if len(outcomes) != 4 {
		t.Errorf("the corpus has rejects %v, want all four kinds", outcomes)
	}
}

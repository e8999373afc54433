package sudoku

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/woprlabs/wopr/internal/infile"
	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// cutText is a piece as Plan's tasks see it.
type cutText struct {
	text        string
	line, items int
}

// wholeCut cuts text whole with sudoku.Cut, as the plan cut inputs before
// they were streamed: the pieces that hold puzzles, compacted.
func wholeCut(t *testing.T, text []byte, per int) []cutText {
	t.Helper()
	var want []cutText
	err := sudoku.Cut(text, per, maxPiece, func(piece []byte, line, items, compacted int) error {
		if items > 0 {
			if compacted < len(piece) {
				piece = sudoku.Compact(nil, piece)
			}
			want = append(want, cutText{string(piece), line, items})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// uploadedCut uploads text read through r and returns its pieces.
func uploadedCut(t *testing.T, r io.Reader, per int) []cutText {
	t.Helper()
	objs := memObjects{}
	in, err := UploadCorpus(context.Background(), "f.txt", r, per, store(objs))
	if err != nil {
		t.Fatal(err)
	}
	var got []cutText
	err = readManifest(objs[in.Object], per, func(line, items int, object string) {
		got = append(got, cutText{string(objs[object]), line, items})
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// corpusTexts are texts with every layout the parser reads: one-line
// puzzles, 9-row grids (ended by a blank line, by their ninth row, by a
// line that is not a row), comments and blank lines inside and between
// them, byte order marks, malformed and long lines, no final newline.
func corpusTexts(t *testing.T) map[string][]byte {
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	grid := "..3|.2.|6..\n9..|3.5|..1\n..1|8.6|4..\n------+------\n..8|1.2|9..\n7..|...|..8\n..6|7.8|2..\n..2|6.9|5..\n8..|2.3|..9\n"
	rng := rand.New(rand.NewPCG(5, 6))
	var mixed strings.Builder
	mixed.WriteString("\ufeff# a corpus\n")
	for i := range 3000 {
		switch rng.IntN(12) {
		case 0:
			mixed.WriteString(grid + "\n")
		case 1:
			mixed.WriteString(grid[:40] + "\n# inside\n" + grid[40:])
		case 2:
			mixed.WriteString("# comment " + fmt.Sprint(i) + "\n\n")
		case 3:
			if i%10 == 0 {
				mixed.WriteString(strings.Repeat("1", 70_000) + "\n") // longer than the parser keeps
			}
		case 4:
			mixed.WriteString("\ufeff" + pz + "\n") // a byte order mark past line 1
		case 5:
			mixed.WriteString("123456789\n" + pz + "\n") // an unfinished grid
		case 6:
			mixed.WriteString("bad line\n")
		default:
			mixed.WriteString(pz + "\n")
		}
	}
	mixed.WriteString(pz) // no final newline
	texts := map[string][]byte{"mixed": []byte(mixed.String()), "empty": nil, "comments": []byte("# only\n\n# comments\n"),
		"huge line": []byte(pz + "\n" + strings.Repeat("2", 300_000) + "\n" + pz + "\n" + strings.Repeat("3", 300_000))}
	for _, name := range []string{"top1465.txt.gz", "forum-hardest-1106.txt.gz", "plb-hard20.txt.gz"} {
		text, _, err := infile.ReadFile("../../../datasets/sudoku/" + name)
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = text
	}
	return texts
}

// randomReads reads at most a random few bytes at a time.
type randomReads struct {
	r   io.Reader
	rng *rand.Rand
}

func (r randomReads) Read(p []byte) (int, error) {
	return r.r.Read(p[:min(len(p), 1+r.rng.IntN(5000))])
}

// A corpus cut as it is read, a block at a time, is cut as sudoku.Cut cuts
// it whole, whatever the blocks and the reads: the same tasks, the same
// lines.
func TestUploadCorpusCutsAsCut(t *testing.T) {
	defer func(b, k int) { readBlock, maxLineKept = b, k }(readBlock, maxLineKept)
	for name, text := range corpusTexts(t) {
		for _, per := range []int{1, 7, 100, MaxChunk} {
			want := wholeCut(t, text, per)
			for _, block := range []int{4 << 20, 64 << 10, 1000} {
				readBlock, maxLineKept = block, 100_000 // lines longer than that are cut
				rng := rand.New(rand.NewPCG(uint64(per), uint64(block)))
				for _, r := range []io.Reader{bytes.NewReader(text), iotest.HalfReader(bytes.NewReader(text)), randomReads{bytes.NewReader(text), rng}} {
					got := uploadedCut(t, r, per)
					if len(got) != len(want) {
						t.Fatalf("%s, chunk %d, block %d: %d pieces, want %d", name, per, block, len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("%s, chunk %d, block %d: piece %d is %d bytes from line %d (%d puzzles), want %d bytes from line %d (%d)",
								name, per, block, i, len(got[i].text), got[i].line, got[i].items, len(want[i].text), want[i].line, want[i].items)
						}
					}
				}
			}
		}
	}
}

// A read error ends the text: the pieces before it are stored and listed,
// and the error is returned with the input.
func TestUploadCorpusReadError(t *testing.T) {
	text := []byte(strings.Repeat("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n", 50))
	damage := errors.New("damaged")
	objs := memObjects{}
	in, err := UploadCorpus(context.Background(), "f.txt", io.MultiReader(bytes.NewReader(text), iotest.ErrReader(damage)), 20, store(objs))
	if !errors.Is(err, damage) || in.Object == "" {
		t.Fatalf("input %+v, error %v; want the input and %v", in, err, damage)
	}
	n := 0
	if err := readManifest(objs[in.Object], 20, func(_, items int, _ string) { n += items }); err != nil || n != 50 {
		t.Errorf("%d puzzles listed, %v; want 50", n, err)
	}
	if _, err := UploadCorpus(context.Background(), "f.txt", bytes.NewReader(text), MaxChunk+1, store(objs)); !errors.Is(err, tasks.ErrInvalid) {
		t.Errorf("chunk %d: error %v", MaxChunk+1, err)
	}
}

// Plan refuses an input cut for another chunk size, and what is not a
// list of pieces.
func TestPlanChecksManifest(t *testing.T) {
	objs := memObjects{"in": []byte(strings.Repeat(strings.Repeat(".", 80)+"1\n", 30)), "junk": []byte("puzzles\n")}
	raw := uploaded(t, objs, SolveParams{Inputs: []Input{{File: "c.txt", Object: "in"}}, Chunk: 10})
	other := bytes.Replace(raw, []byte(`"chunk":10`), []byte(`"chunk":20`), 1)
	if _, err := (Solve{}).Plan(context.Background(), other, tasks.PlanEnv{Objects: objs}); !errors.Is(err, tasks.ErrInvalid) {
		t.Errorf("chunk 20 of pieces of 10: error %v", err)
	}
	junk := []byte(`{"inputs":[{"file":"j.txt","object":"junk"}]}`)
	if _, err := (Solve{}).Plan(context.Background(), junk, tasks.PlanEnv{Objects: objs}); err == nil {
		t.Error("a plan of an input that is not a list of pieces")
	}
}

// The outputs written as results are merged, in any order, with failures
// told as they come (tasks.MergesFailures), are those of the plan that
// keeps them whole until its report, merged in order, byte for byte; so
// is the report. So are they when the plan drops the results that wait
// for an earlier task and reads them again (PlanEnv.Result), and the
// results it holds never pass maxHeld, for both kinds.
func TestStreamedOutputsMatchWhole(t *testing.T) {
	defer func(n, h int) { readBlock, maxHeld = n, h }(readBlock, maxHeld)
	readBlock = 10_000
	text := corpusTexts(t)["mixed"]
	for _, kind := range []tasks.Kind{Solve{}, Rate{}} {
		whole := memObjects{"in": text}
		raw := uploaded(t, whole, SolveParams{Inputs: []Input{{File: "m.txt", Object: "in"}}, Chunk: 37, Out: true, Rejects: true})
		plan, err := kind.Plan(context.Background(), raw, tasks.PlanEnv{Objects: whole})
		if err != nil {
			t.Fatal(err)
		}
		results := taskstest.Results(t, kind, plan, tasks.Env{Objects: whole})
		n := len(plan.Tasks())
		failed := plan.Tasks()[n/2].ID
		sum := tasks.Summary{Job: "j", Failures: []tasks.Failure{{Task: failed, Reason: "lost"}}}
		sum.Outputs = whole
		wantRep := taskstest.RunPlan(t, kind, plan, tasks.Env{Objects: whole}, sum)
		size := 0
		for _, d := range results {
			size += len(d)
		}
		// Unbounded, every waiting result dropped, and about three held.
		bounds := []int{64 << 20, 1, 3 * size / len(results)}
		for trial := range 6 {
			reread := 0
			env := tasks.PlanEnv{Objects: nil, Result: func(_ context.Context, id string) ([]byte, error) {
				reread++
				return results[id], nil
			}}
			maxHeld = bounds[trial%3]
			streamed := memObjects{}
			for k, v := range whole {
				if k != "out" && k != "rejects" {
					streamed[k] = v
				}
			}
			env.Objects, env.Outputs = streamed, streamed
			p, err := kind.Plan(context.Background(), raw, env)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(trial), 1))
			most := 0 // bytes held
			for _, i := range rng.Perm(n) {
				id := p.Tasks()[i].ID
				if id == failed {
					err = p.(tasks.MergesFailures).MergeFailure(id)
				} else {
					err = p.Merge(id, results[id])
				}
				if err != nil {
					t.Fatal(err)
				}
				most = max(most, heldBytes(p))
			}
			if most > maxHeld {
				t.Errorf("%s, trial %d: %d bytes of results held, want at most %d", kind.Name(), trial, most, maxHeld)
			}
			rep, err := p.Report(context.Background(), tasks.Summary{Job: "j", Failures: sum.Failures})
			if err != nil {
				t.Fatal(err)
			}
			if (maxHeld < 64<<20) != (reread > 0) || maxHeld > 1 && most == 0 {
				t.Errorf("%s, trial %d: %d results read again, at most %d bytes held under a bound of %d", kind.Name(), trial, reread, most, maxHeld)
			}
			if fmt.Sprintf("%+v", rep) != fmt.Sprintf("%+v", wantRep) {
				t.Errorf("%s, trial %d: report\n%+v\nwant\n%+v", kind.Name(), trial, rep, wantRep)
			}
			for _, name := range []string{"out", "rejects"} {
				if !bytes.Equal(streamed[name], whole[name]) || len(whole[name]) == 0 {
					t.Errorf("%s, trial %d: streamed %s has %d bytes, want the %d of the whole", kind.Name(), trial, name, len(streamed[name]), len(whole[name]))
				}
			}
		}
	}
}

// heldBytes is the bytes of results that plan p holds.
func heldBytes(p tasks.Plan) int {
	switch p := p.(type) {
	case *solvePlan:
		return p.win.held
	case *ratePlan:
		return p.win.held
	}
	panic(fmt.Sprintf("a plan of %T", p))
}

// A corpus of mostly bad lines makes a report of bounded size: the first
// rejectsKept rejects and their number, whatever their number, while
// --rejects gets every one, exactly, in input order. The corpus (200,000
// bad lines among 50,000 good ones, for solve; a tenth of it for rate,
// which is slower) is a file that the test writes and uploads as the
// client does, a block at a time; results are merged in a random order.
func TestReportBoundsRejects(t *testing.T) {
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	bad := []struct{ line, reject string }{
		{pz[:80], "malformed: 80 cells, want 81"},
		{"11" + pz[2:], "invalid: row 1 has two 1s (r1c1, r1c2)"},
	}
	for _, tc := range []struct {
		kind      tasks.Kind
		good, bad int
	}{{Solve{}, 50_000, 200_000}, {Rate{}, 500, 20_000}} {
		path := filepath.Join(t.TempDir(), "c.txt")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		var want bytes.Buffer // --rejects
		rng := rand.New(rand.NewPCG(3, 4))
		for line, good, nbad := 1, tc.good, tc.bad; good+nbad > 0; line++ {
			if rng.IntN(good+nbad) < good {
				w.WriteString(pz + "\n")
				good--
				continue
			}
			b := bad[rng.IntN(len(bad))]
			w.WriteString(b.line + "\n")
			fmt.Fprintf(&want, "c.txt:%d: %s\n", line, b.reject)
			nbad--
		}
		if err := errors.Join(w.Flush(), f.Close()); err != nil {
			t.Fatal(err)
		}
		objs := memObjects{}
		r, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		in, err := UploadCorpus(context.Background(), "c.txt", r, 1000, store(objs))
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(SolveParams{Inputs: []Input{in}, Chunk: 1000, Rejects: true})
		plan, err := tc.kind.Plan(context.Background(), raw, tasks.PlanEnv{Objects: objs, Outputs: objs})
		if err != nil {
			t.Fatal(err)
		}
		runner := tc.kind.NewRunner(tasks.Env{Objects: objs})
		list := plan.Tasks()
		for _, i := range rng.Perm(len(list)) {
			o, err := runner.Run(context.Background(), list[i].Payload)
			if err != nil {
				t.Fatal(err)
			}
			if err := plan.Merge(list[i].ID, o.Data); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := plan.Report(context.Background(), tasks.Summary{Job: "j", Outputs: objs})
		if err != nil {
			t.Fatal(err)
		}
		name := tc.kind.Name()
		if got := objs["rejects"]; !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: --rejects has %d bytes (%d lines), want %d (%d lines)", name, len(got), bytes.Count(got, []byte("\n")), want.Len(), tc.bad)
		}
		var listed []Reject
		var total int
		switch rep := rep.(type) {
		case *SolveReport:
			listed, total = rep.Rejects, rep.RejectsTotal
		case *RateReport:
			listed, total = rep.Rejects, rep.RejectsTotal
		}
		var text bytes.Buffer
		for _, rj := range listed {
			fmt.Fprintf(&text, "%s:%d: %s: %s\n", rj.File, rj.Line, rj.Outcome, rj.Reason)
		}
		first := bytes.SplitAfterN(want.Bytes(), []byte("\n"), rejectsKept+1)
		if total != tc.bad || text.String() != string(bytes.Join(first[:rejectsKept], nil)) {
			t.Errorf("%s: report lists %d of %d rejects, want the first %d of %d:\n%s", name, len(listed), total, rejectsKept, tc.bad, text.String())
		}
		if data, _ := json.Marshal(rep); len(data) > 32<<10 {
			t.Errorf("%s: the report takes %d bytes, want at most 32 KiB", name, len(data))
		}
		more := fmt.Sprintf("    ... and %d more in the file of --rejects\n", tc.bad-rejectsShown)
		if txt := rep.Text(); !strings.Contains(txt, more) || strings.Count(txt, "\n    c.txt:") != rejectsShown {
			t.Errorf("%s: the report's text does not show %d rejects and %q:\n%s", name, rejectsShown, more, txt)
		}
	}
}

// UploadCorpus gives put the place of each piece that is the text's bytes
// as they are, and only of those: a piece with its comments left out, a
// piece after a line cut for its length, and the manifest have none. A
// text with neither has a place for every piece.
func TestUploadCorpusPlaces(t *testing.T) {
	defer func(b, k int) { readBlock, maxLineKept = b, k }(readBlock, maxLineKept)
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n"
	texts := corpusTexts(t)
	texts["plain"] = []byte(strings.Repeat(pz, 3000))
	for name, text := range texts {
		for _, c := range [][2]int{{4 << 20, 7}, {64 << 10, 1}, {1000, 7}, {1000, 1}} {
			block, per := c[0], c[1]
			readBlock, maxLineKept = block, 100_000
			rng := rand.New(rand.NewPCG(uint64(block), uint64(per)))
			var mu sync.Mutex
			placed, unplaced := 0, 0
			put := func(_ context.Context, data []byte, at int64) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				if at < 0 {
					unplaced++
					return "piece/x", nil
				}
				placed++
				if end := at + int64(len(data)); end > int64(len(text)) || !bytes.Equal(text[at:end], data) {
					t.Errorf("%s, block %d, chunk %d: a piece of %d bytes placed at %d is not the text's bytes there", name, block, per, len(data), at)
				}
				return "piece/x", nil
			}
			if _, err := UploadCorpus(context.Background(), "f.txt", randomReads{bytes.NewReader(text), rng}, per, put); err != nil {
				t.Fatal(err)
			}
			switch name {
			case "plain":
				if unplaced != 1 { // the manifest
					t.Errorf("plain, block %d, chunk %d: %d pieces placed, %d not; want all but the manifest", block, per, placed, unplaced)
				}
			case "mixed", "huge line": // in one piece of 7
				if (per == 1 || name == "mixed") && (placed == 0 || unplaced < 2) {
					t.Errorf("%s, block %d, chunk %d: %d pieces placed, %d not; want some of each", name, block, per, placed, unplaced)
				}
			}
		}
	}
}

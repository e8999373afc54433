package test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// sudokuRun runs analyze and returns stdout, stderr and the exit code.
func sudokuRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary("analyze"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), code
}

func sudokuDecode(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if dec.More() {
		t.Errorf("stdout %q: more than one JSON value", out)
	}
}

// bench counts every outcome of a file with bad lines, names each bad line
// on stderr, and reports its speed.
func TestSudokuEngineBench(t *testing.T) {
	runsBinaries(t)
	euler01 := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	file := filepath.Join(t.TempDir(), "mixed.txt")
	text := "# header\n" +
		euler01 + "\n" + // 2 unique
		strings.Repeat(".", 81) + "\n" + // 3 multiple
		"12345678." + strings.Repeat(".", 8) + "9" + strings.Repeat(".", 63) + "\n" + // 4 unsolvable
		"55" + strings.Repeat(".", 79) + "\n" + // 5 invalid
		euler01[:80] + "\n" + // 6 malformed
		euler01[:16] + "x" + euler01[17:] + "\n" // 7 malformed
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := sudokuRun(t, "sudoku", "bench", file, "--json", "--repeat", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r map[string]any
	sudokuDecode(t, out, &r)
	want := map[string]float64{"puzzles": 6, "unique": 1, "multiple": 1, "unsolvable": 1, "invalid": 1, "malformed": 2, "repeat": 2}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("%s = %v, want %v", k, r[k], v)
		}
	}
	if pps, _ := r["puzzles_per_second"].(float64); pps <= 0 {
		t.Errorf("puzzles_per_second = %v, want > 0", r["puzzles_per_second"])
	}
	for _, line := range []string{file + ":6: malformed: 80 cells, want 81", file + ":7: malformed: column 17: 'x' is not a digit or an empty mark"} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr %q lacks %q", stderr, line)
		}
	}
	out, _, code = sudokuRun(t, "sudoku", "bench", repoDataset(t, "euler96.txt.gz"))
	if code != 0 || !strings.Contains(out, "unique") || !strings.Contains(out, "puzzles per second") {
		t.Errorf("readable bench: exit %d, %q", code, out)
	}
}

// compare reproduces the published call counts of Project Euler 96 grid 01
// and stops a run at its time limit.
func TestSudokuEngineCompare(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	euler := filepath.Join(dir, "euler01.txt")
	first, _, _ := strings.Cut(string(datasetText(t, "euler96.txt.gz")), "\n")
	if err := os.WriteFile(euler, []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := sudokuRun(t, "sudoku", "compare", euler, "--strategies", "backtrack,candidates,mrv,fast", "--repeat", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type result struct {
		Line     int     `json:"line"`
		Strategy string  `json:"strategy"`
		Calls    int64   `json:"calls"`
		Outcome  string  `json:"outcome"`
		Seconds  float64 `json:"seconds"`
	}
	var rep struct{ Results []result }
	sudokuDecode(t, out, &rep)
	wantCalls := map[string]int64{"backtrack": 201, "candidates": 201, "mrv": 50}
	if len(rep.Results) != 4 {
		t.Fatalf("results %+v, want 4", rep.Results)
	}
	for _, r := range rep.Results {
		if r.Line != 1 || r.Outcome != "solved" || r.Calls < 1 || r.Seconds <= 0 {
			t.Errorf("%+v: want line 1 solved, calls and seconds", r)
		}
		if w, ok := wantCalls[r.Strategy]; ok && r.Calls != w {
			t.Errorf("%s: %d calls, want %d", r.Strategy, r.Calls, w)
		}
	}
	// The totals over a file: mrv's calls on all 50 Euler grids, the sum
	// of the engine's counts (7,927; TestStrategyCallsPlain holds them to
	// a plain mrv written in that test).
	var mrvCalls uint64
	if err := sudoku.ParseBytes(datasetText(t, "euler96.txt.gz"), 1, func(it sudoku.Item) error {
		if it.Err != nil {
			return it.Err
		}
		r, err := sudoku.RunStrategy(context.Background(), sudoku.MRV, it.Grid, nil)
		mrvCalls += uint64(r.Calls)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = sudokuRun(t, "sudoku", "compare", repoDataset(t, "euler96.txt.gz"), "--strategies", "mrv,fast")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`mrv\s+50\s+0\s+0\s+0\s+` + tasks.Thousands(mrvCalls) + `\s`).MatchString(out) {
		t.Errorf("totals %q: want mrv 50 solved in %s calls", out, tasks.Thousands(mrvCalls))
	}
	// Wikipedia's puzzle against brute force: backtrack needs far more
	// than 50 ms, the engine much less.
	hard := filepath.Join(dir, "hard.txt")
	if err := os.WriteFile(hard, []byte("..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = sudokuRun(t, "sudoku", "compare", hard, "--strategies", "backtrack,fast", "--timeout", "50ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`backtrack\s+[0-9,]+\s+timeout`).MatchString(out) || !regexp.MustCompile(`fast\s+[0-9,]+\s+solved`).MatchString(out) {
		t.Errorf("table %q: want backtrack timeout and fast solved", out)
	}
	// A malformed line is named on stderr and listed apart; the other
	// lines run (an empty file gives an empty list, not null).
	mixed := filepath.Join(dir, "mixed.txt")
	if err := os.WriteFile(mixed, []byte(first+"\nxx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = sudokuRun(t, "sudoku", "compare", mixed, "--strategies", "mrv", "--json")
	var mixedRep struct {
		Results   []result
		Malformed []struct {
			Line   int
			Reason string
		}
	}
	sudokuDecode(t, out, &mixedRep)
	if code != 0 || !strings.Contains(stderr, "mixed.txt:2: malformed") || len(mixedRep.Results) != 1 || mixedRep.Results[0].Calls != 50 ||
		len(mixedRep.Malformed) != 1 || mixedRep.Malformed[0].Line != 2 {
		t.Errorf("a malformed line: exit %d, stderr %q, report %+v", code, stderr, mixedRep)
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := sudokuRun(t, "sudoku", "compare", empty, "--json"); code != 0 || !strings.Contains(out, `"results":[]`) {
		t.Errorf("empty file: exit %d, %s", code, out)
	}
}

func TestSudokuEngineUsageErrors(t *testing.T) {
	runsBinaries(t)
	euler := repoDataset(t, "euler96.txt.gz")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sudoku", "bench"}, "exactly one puzzle file"},
		{[]string{"sudoku", "bench", "/nonexistent/file.txt"}, "cannot read"},
		{[]string{"sudoku", "bench", euler, "--repeat", "0"}, "--repeat 0"},
		{[]string{"sudoku", "compare", euler, "--strategies", "magic"}, `no strategy "magic"`},
		{[]string{"sudoku", "compare", euler, "--strategies", "mrv,fast,mrv"}, "mrv named twice"},
		{[]string{"sudoku", "compare", euler, "--timeout", "0s"}, "--timeout"},
		{[]string{"sudoku", "nosuch"}, "nosuch"},
	} {
		out, stderr, code := sudokuRun(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("analyze %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, stderr, c.want)
		}
	}
}

// Bad command lines of sudoku solve: one line on stderr, exit code 2,
// nothing started and no file written (an output that names an input or
// the other output would overwrite it).
func TestSudokuSolveUsageErrors(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	puzzles := filepath.Join(dir, "puzzles.txt")
	data := datasetText(t, "euler96.txt.gz")
	if err := os.WriteFile(puzzles, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []usageCase{
		{[]string{"sudoku", "solve"}, "name at least one puzzle file"},
		{[]string{"sudoku", "solve", filepath.Join(dir, "missing.txt")}, "cannot read"},
		{[]string{"sudoku", "solve", dir}, "is a directory"},
		{[]string{"sudoku", "solve", puzzles, "--chunk", "0"}, "--chunk 0: want 1 to 3000"},
		{[]string{"sudoku", "solve", puzzles, "--bogus"}, "flag provided but not defined: --bogus"},
		{[]string{"sudoku", "solve", puzzles, "--out", out, "--rejects", out}, "the same file as the --out file"},
		{[]string{"sudoku", "solve", puzzles, "--rejects", filepath.Join(dir, ".", "puzzles.txt")}, "the same file as the input"},
		{[]string{"sudoku", "solve", puzzles, "--out="}, "--out: want a file name"},
		// With --data or a flag without its value last (no --data added).
		{[]string{"sudoku", "solve", puzzles, "--data", notDir}, "not a directory"},
		{[]string{"sudoku", "solve", puzzles, "--out"}, "flag needs an argument: --out"},
		{[]string{"sudoku", "solve", puzzles, "-q", "--data"}, "flag needs an argument: --data"},
	}
	expectUsageErrors(t, cases, func(args []string) bool {
		last := args[len(args)-1]
		return !slices.Contains(args, "--data") && (last == "--out=" || !strings.HasPrefix(last, "--"))
	})
	if got, err := os.ReadFile(puzzles); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the input changed (%v)", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
	if _, err := os.Stat("--"); err == nil {
		t.Errorf(`a file named "--" was written`)
	}
}

// sudoku generate from the command line: --count is required; symmetric,
// minimal puzzles with at most C clues come out as asked, each with one
// solution; a request random removal cannot meet fails with its reason.
func TestSudokuGenerateCLI(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	if _, stderr, code := sudokuRun(t, "sudoku", "generate", "--data", filepath.Join(dir, "d0")); code != 2 || !strings.Contains(stderr, "--count N is required") {
		t.Errorf("no --count: exit %d, %q", code, stderr)
	}
	out := filepath.Join(dir, "puzzles.txt")
	stdout, stderr, code := sudokuRun(t, "sudoku", "generate", "--count", "60", "--seed", "3", "--symmetric", "--minimal", "--clues", "27",
		"--out", out, "--json", "-q", "--data", filepath.Join(dir, "d1"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Count          int
		CluesHistogram map[string]int `json:"clues_histogram"`
	}
	sudokuDecode(t, stdout, &rep)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	if rep.Count != 60 || len(lines) != 60 {
		t.Fatalf("%d puzzles reported, %d written; want 60", rep.Count, len(lines))
	}
	s := sudoku.NewSolver()
	hist := map[string]int{}
	for i, line := range lines {
		g, err := sudoku.ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		hist[strconv.Itoa(g.Clues())]++
		if n, _ := s.Solve(&g, 2); n != 1 || g.Clues() > 27 {
			t.Fatalf("puzzle %d %s: %d solutions, %d clues", i, line, n, g.Clues())
		}
		for c := range 81 {
			if (g[c] == 0) != (g[80-c] == 0) {
				t.Fatalf("puzzle %d %s: not symmetric", i, line)
			}
			if g[c] != 0 {
				h := g
				h[c] = 0
				if n, _ := s.Solve(&h, 2); n == 1 {
					t.Fatalf("puzzle %d %s: clue r%dc%d can go", i, line, c/9+1, c%9+1)
				}
			}
		}
	}
	if !maps.Equal(hist, rep.CluesHistogram) {
		t.Errorf("clues histogram %v, the puzzles have %v", rep.CluesHistogram, hist)
	}
	// Without --out the puzzles go to stdout and the report to stderr.
	stdout, stderr, code = sudokuRun(t, "sudoku", "generate", "--count", "3", "--clues", "18", "-q", "--data", filepath.Join(dir, "d2"))
	if code != 1 || stdout != "" || !strings.Contains(stderr, "no puzzle with 18 clues in 5000 random solution grids") {
		t.Errorf("18 clues: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// --rating: bad bands are usage errors naming the flag; puzzles come
	// rated within the band.
	for _, bad := range [][]string{{"--rating", "6.4-4.0"}, {"--rating", "0.5-3"}, {"--rating", "4-13"}, {"--rating", "x"}, {"--rating", "4-5", "--clues", "30"}} {
		args := append([]string{"sudoku", "generate", "--count", "1", "--data", filepath.Join(dir, "d3")}, bad...)
		if _, stderr, code := sudokuRun(t, args...); code != 2 || !strings.Contains(stderr, "--rating") {
			t.Errorf("%v: exit %d, %q; want 2 naming --rating", bad, code, stderr)
		}
	}
	stdout, stderr, code = sudokuRun(t, "sudoku", "generate", "--count", "5", "--seed", "4", "--rating", "4.5-6.0", "--json", "-q", "--data", filepath.Join(dir, "d4"))
	if code != 0 {
		t.Fatalf("--rating 4.5-6.0: exit %d: %s", code, stderr)
	}
	var rated struct {
		Count   int
		Rating  string
		Puzzles []string
		Ratings map[string]int
	}
	sudokuDecode(t, stdout, &rated)
	n := 0
	for k, c := range rated.Ratings {
		if f, _ := strconv.ParseFloat(k, 64); f < 4.5 || f > 6.0 {
			t.Errorf("--rating 4.5-6.0: %d puzzles rated %s", c, k)
		}
		n += c
	}
	if rated.Count != 5 || len(rated.Puzzles) != 5 || n != 5 || rated.Rating != "4.5-6.0" {
		t.Errorf("--rating 4.5-6.0: count %d, %d puzzles, %d rated, band %q; want 5 in 4.5-6.0", rated.Count, len(rated.Puzzles), n, rated.Rating)
	}
}

// Outputs that are not regular files stay what they are: a pipe is written
// to, a symbolic link still points at its file, which gets the output. The
// outputs were renamed into place: as root, --out /dev/null replaced the
// device by a file (and --rejects /dev/stdout the link by a file).
func TestSudokuSolveOutputsToPipesAndLinks(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	puzzles := filepath.Join(dir, "puzzles.txt")
	if err := os.WriteFile(puzzles, []byte(strings.Repeat(".", 80)+"\n"+
		"..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	target, link := filepath.Join(dir, "target.txt"), filepath.Join(dir, "link.txt")
	if err := os.WriteFile(target, []byte("old contents, longer than the output will be\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fromFifo := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the writer opens it
		if err != nil {
			fromFifo <- nil
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		fromFifo <- data
	}()
	_, stderr, code := sudokuRun(t, "sudoku", "solve", puzzles, "--out", fifo, "--rejects", link, "-q", "--data", filepath.Join(dir, "data"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe is no longer a pipe: %v %v", st.Mode(), err) // (its reader waits for ever)
	}
	want := "malformed: 80 cells, want 81\n483921657967345821251876493548132976729564138136798245372689514814253769695417382\n"
	if got := <-fromFifo; string(got) != want {
		t.Errorf("read from the pipe %q, want %q", got, want)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", st.Mode(), err)
	}
	wantRej := puzzles + ":1: malformed: 80 cells, want 81\n"
	if got, err := os.ReadFile(target); err != nil || string(got) != wantRej {
		t.Errorf("the link's file holds %q (%v), want %q", got, err, wantRej)
	}
}

// The temporary file of an output that a killed run was writing is removed
// by the next run that writes the output; one that another process is
// still writing (locked) is left alone.
func TestSudokuSolveRemovesAbandonedPartialOutputs(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	puzzles := filepath.Join(dir, "puzzles.txt")
	if err := os.WriteFile(puzzles, []byte("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	abandoned := filepath.Join(dir, ".out.txt.wopr-partial-dead")
	busy := filepath.Join(dir, ".out.txt.wopr-partial-busy")
	other := filepath.Join(dir, ".other.txt.wopr-partial-dead")
	for _, name := range []string{abandoned, busy, other} {
		if err := os.WriteFile(name, []byte("half a line"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(busy)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := sudokuRun(t, "sudoku", "solve", puzzles, "--out", out, "-q", "--data", filepath.Join(dir, "data")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(out); err != nil || len(data) != 82 {
		t.Errorf("--out: %q, %v", data, err)
	}
	if _, err := os.Stat(abandoned); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the abandoned partial output is still there (%v)", err)
	}
	for _, name := range []string{busy, other} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s: %v; want it left alone", filepath.Base(name), err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".out.txt.wopr-partial-*"))
	if len(left) != 1 {
		t.Errorf("partial files left: %v, want only the busy one", left)
	}
}

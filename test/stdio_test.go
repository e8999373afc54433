package test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/engine/sudoku"
)

// analyzeIn runs analyze with stdin and returns stdout, stderr and the exit
// code.
func analyzeIn(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary("analyze"), args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), 0
}

// "-" is standard input for the puzzle files and standard output for --out
// and --rejects, as in `zcat corpus.gz | analyze sudoku solve - --out -`:
// the output then holds stdout alone and the report goes to stderr. A
// compressed stream is told apart by its first bytes, as a file is; its
// lines are named <stdin>:LINE.
func TestSudokuSolveFromStdinToStdout(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	text, err := os.ReadFile(filepath.Join("..", "datasets", "sudoku", "euler96.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	plain.WriteString("not a puzzle\n" + strings.Repeat(".", 81) + "\n")
	corpus := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(corpus, plain.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()

	// The reference: the same puzzles from a file, the outputs to files.
	outFile, rejFile := filepath.Join(dir, "out.txt"), filepath.Join(dir, "rejects.txt")
	if _, stderr, code := sudokuRun(t, "sudoku", "solve", corpus, "--out", outFile, "--rejects", rejFile, "-q", "--data", filepath.Join(dir, "d0")); code != 0 {
		t.Fatalf("from a file: exit %d: %s", code, stderr)
	}
	wantOut, wantRej := mustRead(t, outFile), mustRead(t, rejFile)
	wantRejStdin := strings.ReplaceAll(string(wantRej), corpus+":", "<stdin>:")

	for _, stdin := range []struct {
		name string
		data []byte
	}{{"plain", plain.Bytes()}, {"gzip", gz.Bytes()}} {
		t.Run(stdin.name, func(t *testing.T) {
			rej := filepath.Join(t.TempDir(), "rejects.txt")
			stdout, stderr, code := analyzeIn(t, stdin.data, "sudoku", "solve", "-", "--out", "-", "--rejects", rej, "-q", "--data", filepath.Join(dir, "d-"+stdin.name))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stdout != string(wantOut) {
				t.Errorf("stdout (%d bytes) is not the --out of the file (%d bytes)", len(stdout), len(wantOut))
			}
			if got := string(mustRead(t, rej)); got != wantRejStdin {
				t.Errorf("rejects %q, want %q", got, wantRejStdin)
			}
			if !strings.Contains(stderr, "sudoku corpus: <stdin>") || !strings.Contains(stderr, "malformed                  1") {
				t.Errorf("stderr lacks the report: %q", stderr)
			}
		})
	}
	// --rejects - with --json: the rejects on stdout, the one JSON object
	// on stderr.
	stdout, stderr, code := analyzeIn(t, gz.Bytes(), "sudoku", "solve", "-", "--rejects", "-", "--json", "-q", "--data", filepath.Join(dir, "d1"))
	if code != 0 || stdout != wantRejStdin {
		t.Fatalf("--rejects - --json: exit %d, stdout %q, want %q", code, stdout, wantRejStdin)
	}
	var rep struct{ Puzzles int }
	if err := json.Unmarshal([]byte(stderr), &rep); err != nil || rep.Puzzles != 52 {
		t.Errorf("stderr %q: %v, %d puzzles; want the report of 52", stderr, err, rep.Puzzles)
	}
	if !strings.Contains(stderr, `"files":["<stdin>"]`) {
		t.Errorf("the JSON report escapes its text (want \"<stdin>\" as it is): %q", stderr)
	}
	// sudoku rate reads stdin too.
	stdout, stderr, code = analyzeIn(t, []byte(euler01+"\n"), "sudoku", "rate", "-", "--out", "-", "-q", "--data", filepath.Join(dir, "d2"))
	if code != 0 || !strings.HasPrefix(stdout, "1.") || !strings.Contains(stderr, "<stdin>") {
		t.Errorf("rate -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// So do bench and mnk verify.
	stdout, stderr, code = analyzeIn(t, gz.Bytes(), "sudoku", "bench", "-", "--json")
	if code != 0 || !strings.Contains(stdout, `"puzzles":52`) || !strings.Contains(stdout, `"file":"<stdin>"`) {
		t.Errorf("bench -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	cert := filepath.Join(dir, "333.cert")
	if _, stderr, code := sudokuRun(t, "mnk", "solve", "--board", "3x3", "-q", "--certificate", cert, "--data", filepath.Join(dir, "d3")); code != 0 {
		t.Fatalf("mnk solve: exit %d: %s", code, stderr)
	}
	stdout, stderr, code = analyzeIn(t, mustRead(t, cert), "mnk", "verify", "-")
	if code != 0 || !strings.HasPrefix(stdout, "<stdin>: 3,3,3 from .../.../...: draw, proven") {
		t.Errorf("verify -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Standard output once, standard input once.
	expectUsageErrors(t, []usageCase{
		{[]string{"sudoku", "solve", corpus, "--out", "-", "--rejects", "-"}, "--rejects -: --out writes to standard output already"},
		{[]string{"sudoku", "solve", "-", "-"}, "- (standard input) named twice"},
	}, always)
}

// euler01 is the first puzzle of euler96.
const euler01 = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."

// One puzzle on the command line is solved in the process: its solution on
// stdout, or why not on stderr (exit 1): the conflicting givens named, the
// cell with no candidate, or two of several solutions (on stdout). A text
// that is not a puzzle is a usage error.
func TestSudokuSolveOnePuzzle(t *testing.T) {
	runsBinaries(t)
	check := func(puzzle, solution string) {
		t.Helper()
		g, err := sudoku.ParseLine(puzzle)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sudoku.ParseLine(solution)
		if err != nil {
			t.Fatalf("solution %q: %v", solution, err)
		}
		if err := sudoku.Check(g, s); err != nil {
			t.Errorf("solution %s of %s: %v", solution, puzzle, err)
		}
	}
	stdout, stderr, code := sudokuRun(t, "sudoku", "solve", euler01)
	if code != 0 || len(strings.TrimSpace(stdout)) != 81 || stderr != "" {
		t.Fatalf("unique: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	check(euler01, strings.TrimSpace(stdout))

	// Several solutions: two of them, different, each right.
	several := "." + euler01[1:]
	several = strings.Repeat(".", 27) + several[27:]
	stdout, stderr, code = sudokuRun(t, "sudoku", "solve", several)
	sols := strings.Fields(stdout)
	if code != 1 || len(sols) != 2 || sols[0] == sols[1] || !strings.Contains(stderr, "the puzzle has several solutions: r") ||
		!strings.Contains(stderr, "among others (two of them are on stdout)") {
		t.Fatalf("several: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	check(several, sols[0])
	check(several, sols[1])

	noCandidate := "12345678." + "........9" + strings.Repeat(".", 63)
	conflict := "44" + strings.Repeat(".", 79)
	for _, c := range []struct{ puzzle, why string }{
		{noCandidate, "analyze: the puzzle has no solution: r1c9 has no candidate\n"},
		{conflict, "analyze: the givens conflict: row 1 has two 4s (r1c1, r1c2)\n"},
	} {
		if stdout, stderr, code := sudokuRun(t, "sudoku", "solve", c.puzzle); code != 1 || stdout != "" || stderr != c.why {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", c.puzzle, code, stdout, stderr, c.why)
		}
	}
	// explain gives the same reasons.
	if _, stderr, code := sudokuRun(t, "sudoku", "explain", conflict); code != 1 || !strings.Contains(stderr, "the givens conflict: row 1 has two 4s (r1c1, r1c2)") {
		t.Errorf("explain: exit %d, %q", code, stderr)
	}
	// Several puzzles, and --json.
	stdout, stderr, code = sudokuRun(t, "sudoku", "solve", "--json", euler01, noCandidate)
	var rep struct {
		Puzzles []struct{ Puzzle, Outcome, Solution, Why string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 1 || len(rep.Puzzles) != 2 ||
		rep.Puzzles[0].Outcome != "unique" || rep.Puzzles[1].Outcome != "unsolvable" ||
		rep.Puzzles[1].Why != "the puzzle has no solution: r1c9 has no candidate" || !strings.Contains(stderr, "1 of 2 puzzles not uniquely solved") {
		t.Fatalf("--json: exit %d, %v, stdout %q, stderr %q", code, err, stdout, stderr)
	}
	check(euler01, rep.Puzzles[0].Solution)
	expectUsageErrors(t, []usageCase{
		{[]string{"sudoku", "solve", euler01[:80]}, "the puzzle: 80 cells, want 81"},
		{[]string{"sudoku", "solve", euler01, "--out", "x.txt"}, "--out, --rejects and --nats are for puzzle files"},
		{[]string{"sudoku", "solve", euler01, "datasets/sudoku/euler96.txt.gz"}, "puzzles on the command line go to sudoku solve alone"},
	}, always)
	expectUsageErrors(t, []usageCase{
		{[]string{"sudoku", "explain"}, "want exactly one puzzle, got 0 arguments"},
	}, func([]string) bool { return false })
}

// sudoku generate without --out writes the puzzles to stdout and its report
// to stderr: `analyze sudoku generate --count 5 > puzzles.txt`.
func TestSudokuGenerateToStdout(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	stdout, stderr, code := sudokuRun(t, "sudoku", "generate", "--count", "5", "--seed", "2", "-q", "--data", filepath.Join(dir, "d"))
	lines := strings.Fields(stdout)
	if code != 0 || len(lines) != 5 || !strings.Contains(stderr, "5 puzzles with a unique solution (seed 2)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	s := sudoku.NewSolver()
	for _, l := range lines {
		g, err := sudoku.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Solve(&g, 2); n != 1 {
			t.Errorf("%s: %d solutions", l, n)
		}
	}
	again, _, code := sudokuRun(t, "sudoku", "generate", "--count", "5", "--seed", "2", "--out", "-", "-q", "--data", filepath.Join(dir, "d"))
	if code != 0 || again != stdout {
		t.Errorf("--out -: exit %d, %q; want the same puzzles", code, again)
	}
}

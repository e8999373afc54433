package test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// solves tells whether solution, 81 digits, keeps the givens of puzzle
// and has every digit once in each row, column and box.
func solves(puzzle, solution string) bool {
	if len(puzzle) != 81 || len(solution) != 81 {
		return false
	}
	var rows, cols, boxes [9][10]bool
	for i := range 81 {
		d := solution[i]
		if d < '1' || d > '9' || puzzle[i] != '.' && puzzle[i] != d {
			return false
		}
		r, c, b, n := i/9, i%9, i/27*3+i%9/3, d-'0'
		if rows[r][n] || cols[c][n] || boxes[b][n] {
			return false
		}
		rows[r][n], cols[c][n], boxes[b][n] = true, true, true
	}
	return true
}

// Compressed inputs, told apart by their first bytes: a zstd file named
// .txt, a gzip file named .txt and a plain file named .gz give the same
// report, with the line numbers of the text in --rejects.
func TestSudokuSolveCompressedInputs(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	euler := strings.SplitAfter(string(datasetText(t, "euler96.txt.gz")), "\n")
	text := []byte(strings.Join(euler[:5], "") + "55" + strings.Repeat(".", 79) + "\n" + strings.Join(euler[5:10], ""))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{"plain.gz": text, "gzip.txt": gz.Bytes(), "zstd.txt": enc.EncodeAll(text, nil)}
	for name, data := range inputs {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, rej := filepath.Join(dir, name+".out"), filepath.Join(dir, name+".rej")
		stdout, stderr, code := sudokuRun(t, "sudoku", "solve", in, "--out", out, "--rejects", rej, "--json", "-q", "--data", filepath.Join(dir, "data"))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var rep struct{ Puzzles, Unique, Invalid int }
		sudokuDecode(t, stdout, &rep)
		if rep.Puzzles != 11 || rep.Unique != 10 || rep.Invalid != 1 {
			t.Errorf("%s: %+v, want 11 puzzles, 10 unique, 1 invalid", name, rep)
		}
		if got, want := string(mustRead(t, rej)), in+":6: invalid: "; !strings.HasPrefix(got, want) {
			t.Errorf("%s: rejects %q, want %q...", name, got, want)
		}
		if got := strings.Count(string(mustRead(t, out)), "\n"); got != 11 {
			t.Errorf("%s: --out has %d lines, want 11", name, got)
		}
	}
	// Other compressed formats are refused, not read as text.
	xz := filepath.Join(dir, "puzzles.txt.xz")
	if err := os.WriteFile(xz, []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4}, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sudoku", "bench", xz}, {"sudoku", "solve", xz, "-q", "--data", filepath.Join(dir, "data")}} {
		_, stderr, code := sudokuRun(t, args...)
		if want := "analyze: " + xz + ": xz: compressed in a format wopr does not read"; code != 2 || !strings.HasPrefix(stderr, want) {
			t.Errorf("analyze %s: exit %d, stderr %q; want exit 2 and %q...", strings.Join(args, " "), code, stderr, want)
		}
	}
}

// A gzip input cut short: the lines before the damage are solved, reported
// and written, and the command fails (exit 1, not a usage error) naming the
// file and the last line read; bench measures those lines and fails too.
func TestSudokuSolveDamagedInput(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	gz, err := os.ReadFile(repoDataset(t, "royle17.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	gz = gz[:60_000]
	in := filepath.Join(dir, "royle17.txt.gz")
	if err := os.WriteFile(in, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	// The reference: the complete lines that compress/gzip reads from the
	// same bytes before the end.
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("compress/gzip read %d bytes, error %v; want io.ErrUnexpectedEOF", len(text), err)
	}
	puzzles := strings.Split(string(text), "\n")
	puzzles = puzzles[:len(puzzles)-1] // the incomplete last line
	n := len(puzzles)
	if n < 1000 {
		t.Fatalf("%d complete lines before the damage, want some thousands", n)
	}
	wantErr := fmt.Sprintf("analyze: %s: gzip data damaged after line %d: unexpected EOF\n", in, n)

	out, rej := filepath.Join(dir, "out.txt"), filepath.Join(dir, "rejects.txt")
	stdout, stderr, code := sudokuRun(t, "sudoku", "solve", in, "--out", out, "--rejects", rej, "--json", "-q", "--data", filepath.Join(dir, "data"))
	if code != 1 || !strings.HasSuffix(stderr, wantErr) {
		t.Errorf("solve: exit %d, stderr %q; want exit 1 and %q", code, stderr, wantErr)
	}
	var rep struct{ Puzzles, Unique int }
	sudokuDecode(t, stdout, &rep)
	if rep.Puzzles != n || rep.Unique != n {
		t.Errorf("solve: %d puzzles, %d unique; want %d and %d", rep.Puzzles, rep.Unique, n, n)
	}
	solutions := strings.Split(strings.TrimSuffix(string(mustRead(t, out)), "\n"), "\n")
	if len(solutions) != n {
		t.Fatalf("--out has %d lines, want %d", len(solutions), n)
	}
	for i, s := range solutions {
		if !solves(puzzles[i], s) {
			t.Fatalf("--out line %d: %q does not solve %q", i+1, s, puzzles[i])
		}
	}
	if got := mustRead(t, rej); len(got) != 0 {
		t.Errorf("--rejects: %q, want nothing", got)
	}

	stdout, stderr, code = sudokuRun(t, "sudoku", "bench", in, "--json")
	var bench struct{ Puzzles, Unique int }
	sudokuDecode(t, stdout, &bench)
	if code != 1 || !strings.HasSuffix(stderr, wantErr) || bench.Puzzles != n || bench.Unique != n {
		t.Errorf("bench: exit %d, %d puzzles, %d unique, stderr %q; want exit 1, %d, %d and %q", code, bench.Puzzles, bench.Unique, stderr, n, n, wantErr)
	}
}

// compare on a zstd file whose checksum is wrong: its three puzzles are
// run, then the command fails naming the file and line 3.
func TestSudokuCompareDamagedInput(t *testing.T) {
	runsBinaries(t)
	euler := strings.SplitAfter(string(datasetText(t, "euler96.txt.gz")), "\n")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zs := enc.EncodeAll([]byte(strings.Join(euler[:3], "")), nil)
	zs[len(zs)-1] ^= 1 // the frame's checksum ends the file
	in := filepath.Join(t.TempDir(), "euler.txt.zst")
	if err := os.WriteFile(in, zs, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := sudokuRun(t, "sudoku", "compare", in, "--strategies", "mrv", "--json")
	var rep struct{ Results []struct{ Line int } }
	sudokuDecode(t, stdout, &rep)
	want := fmt.Sprintf("analyze: %s: zstd data damaged after line 3: ", in)
	if code != 1 || !strings.Contains(stderr, want) || len(rep.Results) != 3 || rep.Results[2].Line != 3 {
		t.Errorf("compare: exit %d, results %+v, stderr %q; want exit 1, lines 1 to 3, and %q", code, rep.Results, stderr, want)
	}
}

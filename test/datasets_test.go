package test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/internal/infile"
)

// repoDataset returns the path of a corpus in the repository's datasets
// directory (datasets/sudoku/NAME).
func repoDataset(tb testing.TB, name string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "datasets", "sudoku", name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("dataset %s: %v", name, err)
	}
	return p
}

// datasetText returns the text of a corpus of datasets, decompressed.
func datasetText(tb testing.TB, name string) []byte {
	tb.Helper()
	text, _, err := infile.ReadFile(repoDataset(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return text
}

// TestDatasetsMatchSources checks every file of datasets/sudoku against the
// checksum table of datasets/SOURCES.md: the same files, and for each the
// lines, sizes and sha256 of its text that the table gives.
func TestDatasetsMatchSources(t *testing.T) {
	dir := filepath.Dir(repoDataset(t, "euler96.txt.gz"))
	f, err := os.Open(filepath.Join(dir, "..", "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		lines, bytes, gzipped int
		sha256                string
	}
	table := map[string]row{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(sc.Text(), "| "), "|")
		if len(cells) != 5 || !strings.HasSuffix(strings.TrimSpace(cells[0]), ".txt.gz") {
			continue
		}
		num := func(s string) int {
			n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(s), ",", ""))
			if err != nil {
				t.Fatalf("SOURCES.md: %q: %v", sc.Text(), err)
			}
			return n
		}
		table[strings.TrimSpace(cells[0])] = row{num(cells[1]), num(cells[2]), num(cells[3]), strings.Trim(strings.TrimSpace(cells[4]), "`")}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(table) || len(table) != 12 {
		t.Errorf("datasets/sudoku holds %d files, SOURCES.md's table names %d; want the same 12", len(files), len(table))
	}
	for _, path := range files {
		name := filepath.Base(path)
		want, ok := table[name]
		if !ok {
			t.Errorf("datasets/sudoku/%s is not in SOURCES.md's checksum table", name)
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sum := sha256.Sum256(text)
		got := row{bytes.Count(text, []byte{'\n'}), len(text), len(raw), hex.EncodeToString(sum[:])}
		if got != want {
			t.Errorf("%s: %+v, SOURCES.md says %+v", name, got, want)
		}
	}
}

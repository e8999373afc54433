package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// Bad sweeps are refused before anything starts, naming the flag.
func TestSweepUsageErrors(t *testing.T) {
	runsBinaries(t)
	sweep := func(args ...string) []string { return append([]string{"mnk", "sweep"}, args...) }
	expectUsageErrors(t, []usageCase{
		{sweep("--algorithms", "minimax,quantum"), "--algorithms quantum: no such rung"},
		{sweep("--boards", "7x7", "--algorithms", "solver"), "--boards 7x7: 49 cells, too large for every rung"},
		{sweep("--boards", "9x9"), "--boards 9x9: rows and columns must be 1 to 8"},
		{sweep("--node-budget", "0"), `--node-budget "0": want 1 or more nodes`},
		{sweep("--node-budget", "lots"), `--node-budget "lots": want a whole number`},
		{sweep("--k", "0"), "--k 0: want 1 to 8"},
		{sweep("--k", "three"), `--k "three": want whole numbers`},
		{sweep("--boards", "3x3", "--k", "4,5"), "--k 4,5: every k is longer"},
		{sweep("--cell-time", "soon"), `--cell-time "soon"`},
		{sweep("--chart", "nodes.gif"), "--chart nodes.gif: want a file name ending in .svg or .png"},
		{sweep("extra"), "no arguments"},
	}, always)
}

// A small sweep end to end: the JSON report has the documented fields, and
// --csv and --chart write their files.
func TestSweepCommand(t *testing.T) {
	runsBinaries(t)
	dir := t.TempDir()
	for _, chart := range []string{"nodes.svg", "nodes.png"} {
		csvPath, chartPath := filepath.Join(dir, "rows.csv"), filepath.Join(dir, chart)
		cmd := exec.Command(binary("analyze"), "mnk", "sweep", "--boards", "3x3,3x4", "--k", "3", "--node-budget", "1M",
			"--json", "--quiet", "--csv", csvPath, "--chart", chartPath, "--data", filepath.Join(dir, "data"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		var rep struct {
			Rows     []map[string]any `json:"rows"`
			Frontier []map[string]any `json:"frontier"`
			Growth   []map[string]any `json:"growth"`
			Complete bool             `json:"complete"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("%v: %s", err, stdout.String())
		}
		// Two boards and a row of the frontier per rung.
		rungs := len(mnktasks.DefaultSweepAlgorithms())
		if !rep.Complete || len(rep.Rows) != 2*rungs || len(rep.Frontier) != rungs || rep.Growth == nil {
			t.Fatalf("complete %v, %d rows, %d frontier entries, growth %v; want complete, %d, %d and a list",
				rep.Complete, len(rep.Rows), len(rep.Frontier), rep.Growth, 2*rungs, rungs)
		}
		for _, f := range []string{"board", "rows", "cols", "k", "algorithm", "value", "nodes", "seconds", "stopped", "table_entries"} {
			if _, ok := rep.Rows[0][f]; !ok {
				t.Errorf("rows[0] lacks %q: %v", f, rep.Rows[0])
			}
		}
		if r := rep.Rows[0]; r["board"] != "3x3" || r["algorithm"] != "minimax" || r["value"] != "draw" || r["nodes"] != 549946.0 {
			t.Errorf("rows[0] = %v, want 3x3 minimax, a draw in 549,946 nodes", r)
		}
		data, err := os.ReadFile(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 2*rungs+1 || !strings.HasPrefix(lines[1], "3x3,3,3,9,3,minimax,draw,549946,") {
			t.Errorf("csv: %d lines, the second %q; want %d, the second 3x3 minimax", len(lines), lines[1], 2*rungs+1)
		}
		// Each file written is named on stderr, with what it holds.
		for _, want := range []string{fmt.Sprintf("analyze: wrote %s (%d rows of CSV and a header)", csvPath, 2*rungs), "analyze: wrote " + chartPath + " (" + chart[len(chart)-3:] + " chart"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), want)
			}
		}
		img, err := os.ReadFile(chartPath)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(chart, ".png") {
			if _, err := png.Decode(bytes.NewReader(img)); err != nil {
				t.Errorf("%s: %v", chart, err)
			}
		} else if !bytes.Contains(img, []byte("<svg")) {
			t.Errorf("%s is not SVG: %.100s", chart, img)
		}
	}
}

package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/woprlabs/wopr/internal/race"
	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
)

// studyPage is the study page of the default sweep, from this package.
var studyPage = filepath.Join("..", "..", "docs", "where-search-stops.md")

// nodesTable is the nodes block of a study page: the rungs across, and a
// line per board and k with the value and each rung's cell.
type nodesTable struct {
	rungs []string
	lines []nodesLine
}

type nodesLine struct {
	board, k, value string
	cells           []string // by rung
}

// block returns the text of the block name of a study page.
func block(page []byte, name string) (string, error) {
	re := regexp.MustCompile(`(?s)<!-- sweep:` + name + ` -->\n(.*?)<!-- /sweep:` + name + ` -->`)
	m := re.FindSubmatch(page)
	if m == nil {
		return "", fmt.Errorf("no block <!-- sweep:%s -->", name)
	}
	return string(m[1]), nil
}

// parseNodes reads a nodes block as mdNodes writes it.
func parseNodes(text string) (nodesTable, error) {
	var nt nodesTable
	split := func(line string) []string {
		f := strings.Split(strings.Trim(line, "|"), "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) < 2 {
		return nt, fmt.Errorf("%d lines: want a header, a rule and the boards", len(lines))
	}
	head := split(lines[0])
	if len(head) < 4 || !slices.Equal(head[:3], []string{"board", "k", "value"}) {
		return nt, fmt.Errorf("header %q: want | board | k | value | and the rungs", lines[0])
	}
	nt.rungs = head[3:]
	for i, l := range lines[2:] {
		f := split(l)
		if len(f) != len(head) {
			return nt, fmt.Errorf("line %d %q: %d columns, want %d", i+3, l, len(f), len(head))
		}
		nt.lines = append(nt.lines, nodesLine{board: f[0], k: f[1], value: f[2], cells: f[3:]})
	}
	return nt, nil
}

// figure reads a cell of the table as a node count; ok is false for a
// cell that is not a number ("stopped").
func figure(cell string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.ReplaceAll(cell, ",", ""), 10, 64)
	return n, err == nil
}

// shortCellNodes bounds the cells that TestStudyPageNodes runs under
// -short: those the page says finish within this many nodes, every rung
// among them.
const shortCellNodes = 1_000_000

// raceBoard is the board whose cells TestStudyPageNodes runs under -race:
// every rung, run side by side, as the sweep's runner is.
const raceBoard = "3x3"

// TestStudyPageNodes pins the nodes table of docs/where-search-stops.md to
// the code: it runs the default sweep's cells (its boards, k, rungs, node
// budget and tables; no time limit, which the page's cells never reached)
// through the kind's planner, runner and report, and the table that Fill
// would write must be the page's, every figure and every "stopped". The
// whole sweep is minutes of CPU: under -short it runs the cells the page
// says finish within 1,000,000 nodes (the same code: the plan, the rungs,
// the runner, the report and the table) and skips the others by name; a
// budget that stops a rung is TestLadderLimits's, and a stopped cell in
// the table TestFill's.
func TestStudyPageNodes(t *testing.T) {
	page, err := os.ReadFile(studyPage)
	if err != nil {
		t.Fatal(err)
	}
	text, err := block(page, "nodes")
	if err != nil {
		t.Fatalf("%s: %v", studyPage, err)
	}
	want, err := parseNodes(text)
	if err != nil {
		t.Fatalf("%s: nodes block: %v", studyPage, err)
	}
	p := mnktasks.SweepParams{Boards: mnktasks.DefaultSweepBoards, Ks: mnktasks.DefaultSweepKs, Algorithms: mnktasks.DefaultSweepAlgorithms(),
		NodeBudget: mnktasks.DefaultSweepNodeBudget, TTMB: mnktasks.DefaultSweepTTMB}
	raw, _ := json.Marshal(p)
	plan, err := mnktasks.Sweep{}.Plan(context.Background(), raw, tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(want.rungs, p.Algorithms) {
		t.Errorf("%s: rungs %v, want the default sweep's %v", studyPage, want.rungs, p.Algorithms)
	}

	// The page's figure for each task, by the task's board, k and rung.
	pageCell := map[string]string{}
	for _, l := range want.lines {
		for i, rung := range want.rungs {
			pageCell[l.board+"-k"+l.k+"-"+rung] = l.cells[i]
		}
	}
	for _, task := range plan.Tasks() {
		if _, ok := pageCell[task.ID]; !ok {
			t.Errorf("%s: no figure for the default sweep's cell %s", studyPage, task.ID)
			continue
		}
		delete(pageCell, task.ID)
	}
	for id := range pageCell {
		t.Errorf("%s: a figure for %s, which the default sweep does not run", studyPage, id)
	}
	if t.Failed() {
		t.FailNow()
	}

	runner := mnktasks.Sweep{}.NewRunner(tasks.Env{})
	var mu sync.Mutex
	outs := map[string][]byte{}
	t.Run("cells", func(t *testing.T) {
		for _, task := range plan.Tasks() {
			t.Run(task.ID, func(t *testing.T) {
				cell := want.cellOf(task.ID)
				if n, ok := figure(cell); testing.Short() && !(ok && n <= shortCellNodes) {
					t.Skipf("-short: the page says %s; the run without -short checks it", cell)
				}
				if !strings.HasPrefix(task.ID, raceBoard+"-") {
					race.Skip(t, "only the "+raceBoard+" cells run (a bigger board's cell takes seconds under the race detector, most of them in its tables); the build without -race runs this one")
				}
				t.Parallel()
				out, err := runner.Run(context.Background(), task.Payload)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				outs[task.ID] = out.Data
				mu.Unlock()
			})
		}
	})
	for id, data := range outs {
		if err := plan.Merge(id, data); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := plan.Report(context.Background(), tasks.Summary{Tasks: len(plan.Tasks())})
	if err != nil {
		t.Fatal(err)
	}
	gotText := mdNodes(rep.(*mnktasks.SweepReport))
	if !testing.Short() {
		if gotText != text {
			t.Errorf("%s: the nodes block is\n%s\nthe code's is\n%s", studyPage, text, gotText)
		}
		return
	}
	got, err := parseNodes(gotText)
	if err != nil {
		t.Fatalf("the table the code writes: %v", err)
	}
	for _, gl := range got.lines {
		wl, ok := want.line(gl.board, gl.k)
		if !ok {
			t.Errorf("the code writes a line for %s k=%s, which %s lacks", gl.board, gl.k, studyPage)
			continue
		}
		for i, cell := range gl.cells {
			if cell != "" && cell != wl.cells[i] {
				t.Errorf("%s k=%s %s: %s says %s, the code %s", gl.board, gl.k, got.rungs[i], studyPage, wl.cells[i], cell)
			}
		}
		if gl.value != "?" && gl.value != wl.value {
			t.Errorf("%s k=%s: %s says the value is %s, the rungs run say %s", gl.board, gl.k, studyPage, wl.value, gl.value)
		}
	}
}

// cellOf returns the table's figure for the task id (board-kK-rung).
func (nt nodesTable) cellOf(id string) string {
	for _, l := range nt.lines {
		for i, rung := range nt.rungs {
			if l.board+"-k"+l.k+"-"+rung == id {
				return l.cells[i]
			}
		}
	}
	return ""
}

// line returns the table's line for a board and k.
func (nt nodesTable) line(board, k string) (nodesLine, bool) {
	for _, l := range nt.lines {
		if l.board == board && l.k == k {
			return l, true
		}
	}
	return nodesLine{}, false
}

package study

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
	mnktasks "github.com/woprlabs/wopr/pkg/tasks/mnk"
	"github.com/woprlabs/wopr/pkg/tasks/taskstest"
)

// runSweep plans a sweep and runs it in this process.
func runSweep(t *testing.T, p mnktasks.SweepParams) *mnktasks.SweepReport {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := mnktasks.Sweep{}.Plan(context.Background(), raw, tasks.PlanEnv{})
	if err != nil {
		t.Fatal(err)
	}
	return taskstest.RunPlan(t, mnktasks.Sweep{}, plan, tasks.Env{}, tasks.Summary{}).(*mnktasks.SweepReport)
}

// The chart: the PNG is an image, the SVG is XML with a legend and a panel
// per k; other formats are refused.
func TestChart(t *testing.T) {
	rep := runSweep(t, mnktasks.SweepParams{Boards: []string{"3x3", "3x4", "4x4"}, Ks: []int{3, 4}, NodeBudget: 100_000})
	chart, err := Chart(rep, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(chart))
	if err != nil {
		t.Fatalf("png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 400 {
		t.Errorf("png: %v, want at least 800x400", b)
	}
	svg, err := Chart(rep, "svg")
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" || !bytes.Contains(svg, []byte(">symmetry<")) || !bytes.Contains(svg, []byte(">k = 4<")) {
		t.Errorf("svg: root %q, want svg with a legend and a panel for k=4", root)
	}
	if _, err := Chart(rep, "gif"); err == nil {
		t.Error("a gif chart was drawn")
	}
}

// The study page's blocks are rewritten, its prose kept; an unknown block
// is an error.
func TestFill(t *testing.T) {
	rep := runSweep(t, mnktasks.SweepParams{Boards: []string{"3x3", "3x4"}, Ks: []int{3}, NodeBudget: 100_000})
	page := "# Study\n\nProse.\n<!-- sweep:nodes -->\nold table\n<!-- /sweep:nodes -->\nMore prose.\n<!-- sweep:chart -->\n<!-- /sweep:chart -->\n"
	got, err := Fill([]byte(page), rep, "study.svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Study\n\nProse.\n<!-- sweep:nodes -->\n| board | k | value | minimax |", "| 3x4 | 3 | win | stopped |",
		"<!-- /sweep:nodes -->\nMore prose.\n", "![Nodes against cells, a panel per k, a line per rung](study.svg)\n<!-- /sweep:chart -->"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("page lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "old table") {
		t.Errorf("the old block is still there:\n%s", got)
	}
	if _, err := Fill([]byte("<!-- sweep:nope -->\n<!-- /sweep:nope -->"), rep, "x.svg"); err == nil {
		t.Error("an unknown block was accepted")
	}
}

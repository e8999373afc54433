package tasks_test

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/woprlabs/wopr/"

// layer names the packages of the module (paths relative to it, with
// "..." for a package and those beneath it) that a package of the layer
// may import, besides the standard library and other modules.
type layer struct {
	name    string
	members []string
	allowed []string
}

// The floors of the house (docs/architecture.md): engines import nothing
// of wopr but engines; the kind contract nothing at all; a kind engines,
// players, the contract and the input reader; the runtime knows kinds only
// through the contract. A layer's members are matched in order: a package
// belongs to the first layer that names it.
var layers = []layer{
	{"engine", []string{"pkg/engine/..."}, []string{"pkg/engine/..."}},
	{"the contract", []string{"pkg/tasks"}, nil},
	{"the kinds' linker", []string{"pkg/tasks/all"}, []string{"pkg/tasks/..."}},
	{"test support of the contract", []string{"pkg/tasks/taskstest"}, []string{"pkg/tasks"}},
	{"kind", []string{"pkg/tasks/..."}, []string{"pkg/engine/...", "pkg/player", "pkg/tasks", "internal/infile"}},
	{"players", []string{"pkg/player"}, []string{"pkg/engine/..."}},
	{"game sessions", []string{"pkg/game"}, []string{"pkg/engine/...", "pkg/player"}},
	{"job records", []string{"pkg/job"}, []string{"pkg/tasks"}},
	{"runtime", []string{"pkg/coordinator", "pkg/worker"}, []string{"pkg/job", "pkg/tasks", "internal/store"}},
}

func within(pkg, pattern string) bool {
	if rest, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == rest || strings.HasPrefix(pkg, rest+"/")
	}
	return pkg == pattern
}

func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if within(pkg, p) {
			return true
		}
	}
	return false
}

// Every package of the module imports only what its floor allows, and the
// job kinds have one home, pkg/tasks (no pkg/kinds, no kind elsewhere).
func TestHouseLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(fields[0], module)
		seen[pkg] = true
		if path.Base(pkg) == "kinds" || strings.HasSuffix(pkg, "jobs") {
			t.Errorf("package %s: the job kinds live under pkg/tasks, named by their game", pkg)
		}
		var l *layer
		for i := range layers {
			if matches(pkg, layers[i].members) {
				l = &layers[i]
				break
			}
		}
		if l == nil {
			continue
		}
		for _, imp := range fields[1:] {
			rel, ok := strings.CutPrefix(imp, module)
			if ok && !matches(rel, l.allowed) {
				t.Errorf("%s (%s) imports %s: a package of its floor may import only %v", pkg, l.name, rel, l.allowed)
			}
		}
	}
	for _, want := range []string{"pkg/engine/mnk", "pkg/tasks", "pkg/tasks/mnk", "pkg/tasks/sudoku", "pkg/tasks/nineboard", "pkg/coordinator", "pkg/worker"} {
		if !seen[want] {
			t.Errorf("go list did not name %s: the test would check nothing of it", want)
		}
	}
}

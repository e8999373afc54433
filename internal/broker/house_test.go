package broker

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pkgFiles is a package of the module: its import path, its directory,
// the files of the package, its test package and its external test
// package (and those that build tags leave out), and what they import.
type pkgFiles struct {
	path, dir string
	files     []string
	imports   []string
}

// module lists the packages of the module (go list).
func module(t *testing.T) []pkgFiles {
	t.Helper()
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}} {{join .CgoFiles " "}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}} {{join .IgnoredGoFiles " "}}|{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`,
		"github.com/woprlabs/wopr/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var pkgs []pkgFiles
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 4 {
			t.Fatalf("go list: %q", line)
		}
		pkgs = append(pkgs, pkgFiles{path: f[0], dir: f[1], files: strings.Fields(f[2]), imports: strings.Fields(f[3])})
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list named %d packages, want the whole module:\n%s", len(pkgs), out)
	}
	return pkgs
}

const self = "github.com/woprlabs/wopr/internal/broker"

// This package is wopr's only door to NATS: no other package of the module,
// tests included, imports nats.go or its jetstream package (nats-server,
// the embedded server, is another matter).
func TestOnlyBrokerImportsNATS(t *testing.T) {
	for _, p := range module(t) {
		for _, imp := range p.imports {
			if (imp == "github.com/nats-io/nats.go" || strings.HasPrefix(imp, "github.com/nats-io/nats.go/")) && p.path != self {
				t.Errorf("%s imports %s: only %s may", p.path, imp, self)
			}
		}
	}
}

// The connection, broker.Broker, is named only here and by the runtimes
// that open it (pkg/embedded, pkg/service), tests included: everything
// else (the faces, the kinds, the coordinator and the worker) declares
// the interfaces it uses of the duties (Jobs, Work, Objects, Leases), so
// that it reads as wopr and a fake can stand in. The check parses every
// Go file of the module, tests and files of other build tags included, and
// looks for the selector broker.Broker under whatever name the file
// imports the package.
func TestOnlyRuntimesNameBroker(t *testing.T) {
	allowed := map[string]bool{
		self:                                    true,
		"github.com/woprlabs/wopr/pkg/embedded": true,
		"github.com/woprlabs/wopr/pkg/service":  true,
	}
	named := map[string]bool{} // packages seen naming it
	fset := token.NewFileSet()
	for _, p := range module(t) {
		for _, name := range p.files {
			path := filepath.Join(p.dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, pos := range namesBroker(f) {
				named[p.path] = true
				if !allowed[p.path] {
					t.Errorf("%s: names broker.Broker: only %s, pkg/embedded and pkg/service may (declare the interface you use of a duty instead)",
						fset.Position(pos), self)
				}
			}
		}
	}
	// The runtimes that open the connection name it: the check sees them.
	for _, p := range []string{"github.com/woprlabs/wopr/pkg/embedded", "github.com/woprlabs/wopr/pkg/service"} {
		if !named[p] {
			t.Errorf("%s does not name broker.Broker: the check finds nothing", p)
		}
	}
}

// namesBroker returns where file f names the type Broker of this package:
// as a selector on the name it imports the package under, or bare if it
// imports the package with a dot.
func namesBroker(f *ast.File) []token.Pos {
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == self {
			local = "broker"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" || local == "_" {
		return nil
	}
	var at []token.Pos
	var look func(n ast.Node) bool
	look = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == local && n.Sel.Name == "Broker" {
				at = append(at, n.Pos())
			}
			ast.Inspect(n.X, look)
			return false // n.Sel is a field or method, not a bare name
		case *ast.Ident:
			if local == "." && n.Name == "Broker" {
				at = append(at, n.Pos())
			}
		}
		return true
	}
	ast.Inspect(f, look)
	return at
}

package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every test and benchmark of this package that reaches binary, directly
// or through helpers of the package, calls runsBinaries as its first
// statement. binary panics when a test forgets under -race, but only in
// the race pass; this test finds the same mistake in the first pass,
// before the long race pass starts.
func TestRunsBinariesFirst(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	// calls maps each function or method of the package, by name, to the
	// names it calls; a method's name stands for every method so named.
	calls := map[string]map[string]bool{}
	bodies := map[string]*ast.FuncDecl{}
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if calls[name] == nil {
				calls[name] = map[string]bool{}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					switch f := c.Fun.(type) {
					case *ast.Ident:
						calls[name][f.Name] = true
					case *ast.SelectorExpr:
						calls[name][f.Sel.Name] = true
					}
				}
				return true
			})
			if fn.Recv == nil && (strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark")) {
				bodies[name] = fn
			}
		}
	}
	reaches := map[string]bool{}
	var reach func(name string, seen map[string]bool) bool
	reach = func(name string, seen map[string]bool) bool {
		if name == "binary" {
			return true
		}
		if r, ok := reaches[name]; ok {
			return r
		}
		if seen[name] {
			return false
		}
		seen[name] = true
		for callee := range calls[name] {
			if reach(callee, seen) {
				reaches[name] = true
				return true
			}
		}
		return false
	}
	var missing []string
	checked := 0
	for name, fn := range bodies {
		if !reach(name, map[string]bool{}) {
			continue
		}
		checked++
		if !startsWithRunsBinaries(fn) {
			missing = append(missing, fset.Position(fn.Pos()).String()+" "+name)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s runs a binary but does not call runsBinaries first", m)
	}
	if checked == 0 {
		t.Fatal("no test reaches binary: the check is looking at the wrong names")
	}
}

func startsWithRunsBinaries(fn *ast.FuncDecl) bool {
	if len(fn.Body.List) == 0 {
		return false
	}
	stmt, ok := fn.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := stmt.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "runsBinaries"
}

package study

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonsLinkNoGonum: the coordinator and the worker run sweeps but
// never draw them, so neither links gonum's plot nor this package: `go
// list -deps` of each names no gonum.org package and not internal/study.
func TestDaemonsLinkNoGonum(t *testing.T) {
	goTool, err := exec.LookPath("go") // go test puts its own first on PATH
	if err != nil {
		t.Skipf("the go command is not on PATH (%v): the daemons' imports are not checked", err)
	}
	for _, cmd := range []string{"./cmd/worker", "./cmd/coordinator"} {
		c := exec.Command(goTool, "list", "-deps", cmd)
		c.Dir = filepath.Join("..", "..") // the module's root
		out, err := c.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("go list -deps %s: %v\n%s", cmd, err, ee.Stderr)
			}
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s: %d packages (%q), want the daemon's whole graph", cmd, len(deps), deps)
		}
		for _, d := range deps {
			if strings.HasPrefix(d, "gonum.org/") || strings.HasSuffix(d, "/internal/study") {
				t.Errorf("%s links %s", cmd, d)
			}
		}
	}
}

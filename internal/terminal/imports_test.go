package terminal

import (
	"os/exec"
	"strings"
	"testing"
)

// The terminal plays through pkg/game and pkg/player: it depends on no job
// kind (pkg/tasks and beneath), whose glue belongs to the runtime.
func TestNoJobKinds(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/woprlabs/wopr/internal/terminal").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, want := range []string{"github.com/woprlabs/wopr/pkg/game", "github.com/woprlabs/wopr/pkg/player"} {
		if !strings.Contains(" "+strings.Join(deps, " ")+" ", " "+want+" ") {
			t.Errorf("go list -deps names no %s: want the whole graph:\n%s", want, out)
		}
	}
	for _, d := range deps {
		if d == "github.com/woprlabs/wopr/pkg/tasks" || strings.HasPrefix(d, "github.com/woprlabs/wopr/pkg/tasks/") {
			t.Errorf("internal/terminal depends on %s", d)
		}
	}
}

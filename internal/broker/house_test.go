package broker

import (
	"os/exec"
	"strings"
	"testing"
)

// This package is wopr's only door to NATS: no other package of the module,
// tests included, imports nats.go or its jetstream package (nats-server,
// the embedded server, is another matter).
func TestOnlyQueueImportsNATS(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`,
		"github.com/woprlabs/wopr/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const self = "github.com/woprlabs/wopr/internal/broker"
	checked := 0
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		checked++
		for imp := range strings.FieldsSeq(imports) {
			if (imp == "github.com/nats-io/nats.go" || strings.HasPrefix(imp, "github.com/nats-io/nats.go/")) && pkg != self {
				t.Errorf("%s imports %s: only %s may", pkg, imp, self)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("go list named %d packages, want the whole module:\n%s", checked, out)
	}
}

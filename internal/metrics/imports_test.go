package metrics_test

import (
	"os/exec"
	"strings"
	"testing"
)

// This package is wopr's only door to Prometheus: no other package of the
// module, tests included, imports client_golang or the Prometheus
// libraries it brings (tests scrape with metrics.Scrape).
func TestOnlyMetricsImportsPrometheus(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`,
		"github.com/woprlabs/wopr/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const self = "github.com/woprlabs/wopr/internal/metrics"
	checked := 0
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), " ")
		checked++
		for imp := range strings.FieldsSeq(imports) {
			if strings.HasPrefix(imp, "github.com/prometheus/") && pkg != self {
				t.Errorf("%s imports %s: only %s may", pkg, imp, self)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("go list named %d packages, want the whole module:\n%s", checked, out)
	}
}

package metrics_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/woprlabs/wopr/internal/metrics"
)

// dashboard is what the test reads of a Grafana dashboard.
type dashboard struct {
	Title      string
	UID        string
	Templating struct {
		List []struct {
			Name, Type string
			Query      any
			Datasource *datasource
		}
	}
	Panels []panel
}

type panel struct {
	ID         int
	Type       string
	Title      string
	Datasource *datasource
	GridPos    *struct{ X, Y, W, H int }
	Targets    []struct {
		Expr       string
		RefID      string `json:"refId"`
		Datasource *datasource
	}
	Panels []panel // of a collapsed row
}

type datasource struct{ Type, UID string }

// seriesName finds the names of series in a PromQL expression: wopr's, and
// the Go and process collectors'.
var seriesName = regexp.MustCompile(`\b(?:wopr|go|process)_[a-z0-9_]+\b`)

// The dashboard in deploy/grafana is valid JSON, takes its Prometheus
// from a datasource variable, and queries only series that wopr's
// processes expose, every one the issue asks for among them.
func TestDashboardQueriesExposedMetrics(t *testing.T) {
	data, err := os.ReadFile("../../deploy/grafana/wopr-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("wopr-dashboard.json: %v", err)
	}
	if d.Title == "" || d.UID == "" {
		t.Errorf("title %q, uid %q: want both", d.Title, d.UID)
	}
	hasDatasource := false
	var queries []string
	for _, v := range d.Templating.List {
		if v.Type == "datasource" && v.Name == "datasource" && v.Query == "prometheus" {
			hasDatasource = true
		}
		if v.Datasource != nil && v.Datasource.UID != "${datasource}" {
			t.Errorf("variable %s: datasource %+v, want uid ${datasource}", v.Name, *v.Datasource)
		}
		if q, ok := v.Query.(map[string]any); ok {
			if s, ok := q["query"].(string); ok {
				queries = append(queries, s)
			}
		}
	}
	if !hasDatasource {
		t.Error(`no variable "datasource" of type datasource, query prometheus`)
	}

	exposed := metrics.Names()
	ids := map[int]bool{}
	var walk func([]panel)
	walk = func(panels []panel) {
		for _, p := range panels {
			if ids[p.ID] {
				t.Errorf("panel %q: id %d used twice", p.Title, p.ID)
			}
			ids[p.ID] = true
			if p.GridPos == nil || p.GridPos.W == 0 || p.GridPos.H == 0 {
				t.Errorf("panel %q: no gridPos", p.Title)
			}
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q: datasource %+v, want uid ${datasource}", p.Title, p.Datasource)
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q: no query", p.Title)
			}
			for _, q := range p.Targets {
				if q.Datasource != nil && q.Datasource.UID != "${datasource}" {
					t.Errorf("panel %q, query %s: datasource %+v, want uid ${datasource}", p.Title, q.RefID, *q.Datasource)
				}
				if len(seriesName.FindAllString(q.Expr, -1)) == 0 {
					t.Errorf("panel %q, query %s: %q names no wopr, go or process series", p.Title, q.RefID, q.Expr)
				}
				queries = append(queries, q.Expr)
			}
		}
	}
	walk(d.Panels)

	queried := map[string]bool{}
	for _, q := range queries {
		for _, name := range seriesName.FindAllString(q, -1) {
			queried[name] = true
			if !slices.Contains(exposed, name) {
				t.Errorf("the dashboard queries %s, which no wopr process exposes (query %q)", name, q)
			}
		}
	}
	for _, name := range []string{
		metrics.TasksCompleted, metrics.TasksFailed, metrics.TasksRedelivered, metrics.TaskDuration + "_bucket",
		metrics.CacheHitsTotal, metrics.ResultsMerged, metrics.JobsByState, metrics.QueuePending,
	} {
		if !queried[name] {
			t.Errorf("the dashboard shows no %s", name)
		}
	}
}

package mnk

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// refusedBoard is a case of testdata/refused_boards.json: a board that
// analyze mnk (args) and the web's jobs API (params, over the kind's
// defaults) refuse with the same message, error, which is the kind's.
// cmd/analyze and internal/web check their sides against the same file.
type refusedBoard struct {
	Kind   string          `json:"kind"`
	Args   []string        `json:"args"`
	Params json.RawMessage `json:"params"`
	Error  string          `json:"error"`
}

// TestRefusedBoards: the kind refuses each board of the shared table with
// its message, at submit (Spec) and in Plan, which a job record may reach
// from anywhere.
func TestRefusedBoards(t *testing.T) {
	data, err := os.ReadFile("testdata/refused_boards.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []refusedBoard
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		// The kind's parameters, its defaults under the case's.
		var p interface{ Spec() (tasks.Spec, error) }
		switch c.Kind {
		case Count{}.Name():
			d := DefaultCountParams()
			p = &d
		case Levels{}.Name():
			p = &LevelsParams{}
		case Solve{}.Name():
			d := DefaultSolveParams()
			p = &d
		case Simulate{}.Name():
			d := DefaultSimulateParams()
			p = &d
		default:
			t.Fatalf("%s: no such kind in the table's cases", c.Kind)
		}
		if err := json.Unmarshal(c.Params, p); err != nil {
			t.Fatalf("%s %s: %v", c.Kind, c.Params, err)
		}
		if _, err := p.Spec(); !errors.Is(err, tasks.ErrInvalid) || err.Error() != c.Error {
			t.Errorf("%s %s: Spec: %v, want the invalid-parameters error %q", c.Kind, c.Params, err, c.Error)
		}
		kind, _ := tasks.Lookup(c.Kind)
		if _, err := kind.Plan(context.Background(), mustJSON(p), tasks.PlanEnv{}); !errors.Is(err, tasks.ErrInvalid) || err.Error() != c.Error {
			t.Errorf("%s %s: Plan: %v, want the invalid-parameters error %q", c.Kind, c.Params, err, c.Error)
		}
	}
}

func TestParseBoardAndDefaultK(t *testing.T) {
	for _, c := range []struct {
		s          string
		rows, cols int
		k          int
	}{
		{"3x3", 3, 3, 3}, {"4x5", 4, 5, 4}, {"1x8", 1, 8, 1}, {"15x15", 15, 15, 5}, {"19x7", 19, 7, 5}, {"9x3", 9, 3, 3}, {"0x3", 0, 3, 0},
	} {
		rows, cols, err := ParseBoard(c.s)
		if err != nil || rows != c.rows || cols != c.cols {
			t.Errorf("ParseBoard(%q) = %d, %d, %v; want %d, %d", c.s, rows, cols, err, c.rows, c.cols)
		}
		if k := DefaultK(rows, cols); k != c.k {
			t.Errorf("DefaultK(%d, %d) = %d, want %d", rows, cols, k, c.k)
		}
	}
	for _, s := range []string{"", "3", "3by3", "3x", "x3", "-1x3", "3x3x3", " 3x3", "12345x3"} {
		if _, _, err := ParseBoard(s); err == nil {
			t.Errorf("ParseBoard(%q): no error, want one", s)
		}
	}
}

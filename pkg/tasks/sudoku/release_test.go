package sudoku

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// releaseStore records what releaseInputs deletes.
type releaseStore struct {
	purged  bool
	deleted []string
}

func (s *releaseStore) PurgePieces(context.Context) error { s.purged = true; return nil }

func (s *releaseStore) DeleteContent(_ context.Context, name string) error {
	s.deleted = append(s.deleted, name)
	return nil
}

// releaseInputs purges the pieces and deletes the lists of a corpus job's
// inputs.
func TestReleaseInputs(t *testing.T) {
	params, _ := json.Marshal(SolveParams{Inputs: []Input{{File: "a1.txt", Object: "piece/a1"}, {File: "a2.txt", Object: "input/a2"}}})
	s := &releaseStore{}
	if err := releaseInputs(context.Background(), s, params); err != nil {
		t.Fatal(err)
	}
	if want := []string{"piece/a1", "input/a2"}; !s.purged || !slices.Equal(s.deleted, want) {
		t.Errorf("pieces purged %v, deleted %v; want true, %v", s.purged, s.deleted, want)
	}
	if err := releaseInputs(context.Background(), &releaseStore{}, json.RawMessage(`{"inputs":`)); err == nil {
		t.Error("bad parameters: no error")
	}
}

// The corpus kinds, as the client finds them by a job's kind, release
// their inputs (tasks.ReleasesInputs); the other kinds have none to.
func TestCorpusKindsReleaseInputs(t *testing.T) {
	for kind := range corpusKinds {
		k, ok := tasks.Lookup(kind)
		if _, releases := k.(tasks.ReleasesInputs); !ok || !releases {
			t.Errorf("kind %s: registered %v, releases its inputs %v; want both", kind, ok, releases)
		}
	}
	for _, kind := range tasks.Names() {
		k, _ := tasks.Lookup(kind)
		if _, releases := k.(tasks.ReleasesInputs); releases != corpusKinds[kind] {
			t.Errorf("kind %s releases its inputs: %v, want %v", kind, releases, corpusKinds[kind])
		}
	}
}

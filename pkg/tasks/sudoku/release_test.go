package sudoku

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/woprlabs/wopr/pkg/job"
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

// releaseInputs purges the pieces and deletes the lists of a done corpus
// job's inputs when no job is unfinished; it deletes nothing beside an
// unfinished job (of any kind), for a job not done, or of another kind.
func TestReleaseInputs(t *testing.T) {
	record := func(id string, state job.State, kind string) *job.Record {
		params, _ := json.Marshal(SolveParams{Inputs: []Input{{File: id + "1.txt", Object: "piece/" + id + "1"}, {File: id + "2.txt", Object: "input/" + id + "2"}}})
		return &job.Record{ID: id, State: state, Spec: job.Spec{Kind: kind, Params: params}}
	}
	for _, tc := range []struct {
		name   string
		done   *job.Record
		others []*job.Record
		want   bool
	}{
		{"alone", record("a", job.Done, "sudoku.solve"), nil, true},
		{"beside finished jobs", record("a", job.Done, "sudoku.rate"),
			[]*job.Record{record("b", job.Done, "sudoku.solve"), record("c", job.Failed, "sudoku.solve"), record("d", job.Cancelled, "mnk.count")}, true},
		{"beside an unfinished job", record("a", job.Done, "sudoku.solve"), []*job.Record{record("b", job.Running, "sudoku.solve")}, false},
		{"beside an unfinished job of another kind", record("a", job.Done, "sudoku.solve"), []*job.Record{record("b", job.Submitted, "mnk.count")}, false},
		{"not done", record("a", job.Running, "sudoku.solve"), nil, false},
		{"of another kind", record("a", job.Done, "mnk.count"), nil, false},
	} {
		s := &releaseStore{}
		released, err := releaseInputs(context.Background(), s, tc.done, append(tc.others, tc.done))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"piece/a1", "input/a2"}
		if !tc.want {
			want = nil
		}
		if released != tc.want || s.purged != tc.want || !slices.Equal(s.deleted, want) {
			t.Errorf("%s: released %v, pieces purged %v, deleted %v; want %v, %v, %v", tc.name, released, s.purged, s.deleted, tc.want, tc.want, want)
		}
	}
}

// The corpus kinds, as the client finds them by a job's kind, release
// their inputs (tasks.ReleasesInputs).
func TestCorpusKindsReleaseInputs(t *testing.T) {
	for kind := range corpusKinds {
		k, ok := tasks.Lookup(kind)
		if _, releases := k.(tasks.ReleasesInputs); !ok || !releases {
			t.Errorf("kind %s: registered %v, releases its inputs %v; want both", kind, ok, releases)
		}
	}
}

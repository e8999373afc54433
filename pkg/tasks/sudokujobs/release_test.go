package sudokujobs

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/woprlabs/wopr/pkg/job"
)

// ReleaseInputs deletes the manifest and pieces of a done corpus job's
// inputs but those that an unfinished corpus job names; it deletes nothing
// for a job not done, or of another kind.
func TestReleaseInputs(t *testing.T) {
	pz := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	objs := memObjects{}
	upload := func(text string) Input {
		in, err := UploadCorpus(context.Background(), "f.txt", strings.NewReader(text), 2, store(objs))
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	a := upload(pz + "\n" + pz + "\n" + strings.Repeat(".", 81) + "\n") // two pieces
	b := upload(pz + "\n" + pz + "\n")                                   // the first of them
	record := func(id string, state job.State, kind string, in Input) *job.Record {
		params, _ := json.Marshal(SolveParams{Inputs: []Input{in}, Chunk: 2})
		return &job.Record{ID: id, State: state, Spec: job.Spec{Kind: kind, Params: params}}
	}
	var deleted []string
	del := func(_ context.Context, name string) error {
		deleted = append(deleted, name)
		return nil
	}
	for _, tc := range []struct {
		name   string
		done   *job.Record
		others []*job.Record
		want   int // deleted: of a's manifest and two pieces
	}{
		{"alone", record("a", job.Done, "sudoku.solve", a), nil, 3},
		{"beside b unfinished", record("a", job.Done, "sudoku.rate", a), []*job.Record{record("b", job.Running, "sudoku.solve", b)}, 2},
		{"beside b done", record("a", job.Done, "sudoku.solve", a), []*job.Record{record("b", job.Done, "sudoku.solve", b)}, 3},
		{"not done", record("a", job.Running, "sudoku.solve", a), nil, 0},
		{"another kind", record("a", job.Done, "mnk.count", a), nil, 0},
	} {
		deleted = nil
		n, err := ReleaseInputs(context.Background(), objs, del, tc.done, append(tc.others, tc.done))
		if err != nil {
			t.Fatal(err)
		}
		keep := map[string]bool{}
		for _, o := range tc.others {
			if !o.State.Final() {
				keep, _ = corpusObjects(context.Background(), objs, o.Spec)
			}
		}
		if n != tc.want || len(deleted) != tc.want || slices.ContainsFunc(deleted, func(name string) bool { return keep[name] }) {
			t.Errorf("%s: deleted %d (%v), want %d of %v", tc.name, n, deleted, tc.want, slices.Sorted(maps.Keys(objs)))
		}
	}
	// The manifest of an unfinished job cannot be read: nothing deleted.
	deleted = nil
	lost := record("c", job.Running, "sudoku.solve", Input{File: "g.txt", Object: "input/gone"})
	if _, err := ReleaseInputs(context.Background(), objs, del, record("a", job.Done, "sudoku.solve", a), []*job.Record{lost}); err == nil || len(deleted) > 0 {
		t.Errorf("with an unreadable manifest of an unfinished job: deleted %v, error %v; want nothing deleted, an error", deleted, err)
	}
}

package sudoku

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/woprlabs/wopr/pkg/job"
)

// corpusKinds are the kinds whose parameters are SolveParams.
var corpusKinds = map[string]bool{Solve{}.Name(): true, Rate{}.Name(): true}

// InputStore is where UploadCorpus stored a corpus (broker.Objects).
type InputStore interface {
	// PurgePieces deletes every piece of every input at once.
	PurgePieces(ctx context.Context) error
	// DeleteContent deletes what was stored under name.
	DeleteContent(ctx context.Context, name string) error
}

// ReleaseInputs deletes what UploadCorpus stored for corpus job j, done,
// once no job of jobs (every job of the store) is unfinished, and tells
// whether it did: every piece at once (the pieces are named by their
// content, and two jobs of the same text share them, so only when no job
// may read one again) and the lists of j's inputs. A finished job never
// reads its inputs again: the same command run again uploads them again
// (and is answered from the coordinator's cache of results), while a job
// not finished reads them when it is resumed, by its command or by analyze
// report --wait; with one in the store, everything stays for the bucket's
// time to live. Only a process that no other client shares the store with
// may call it (the embedded default): a client that uploads pieces
// meanwhile, for a job not yet submitted, would lose them.
func ReleaseInputs(ctx context.Context, store InputStore, j *job.Record, jobs []*job.Record) (bool, error) {
	if j.State != job.Done || !corpusKinds[j.Spec.Kind] {
		return false, nil
	}
	for _, o := range jobs {
		if o.ID != j.ID && !o.State.Final() {
			return false, nil
		}
	}
	var p SolveParams
	if err := json.Unmarshal(j.Spec.Params, &p); err != nil {
		return false, fmt.Errorf("%s parameters: %w", j.Spec.Kind, err)
	}
	if err := store.PurgePieces(ctx); err != nil {
		return false, err
	}
	var errs []error
	for _, in := range p.Inputs {
		errs = append(errs, store.DeleteContent(ctx, in.Object))
	}
	return true, errors.Join(errs...)
}

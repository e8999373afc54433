package sudoku

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// corpusKinds are the kinds whose parameters are SolveParams.
var corpusKinds = map[string]bool{Solve{}.Name(): true, Rate{}.Name(): true}

// ReleaseInputs implements tasks.ReleasesInputs (see releaseInputs).
func (Solve) ReleaseInputs(ctx context.Context, store tasks.InputStore, j *job.Record, jobs []*job.Record) error {
	_, err := releaseInputs(ctx, store, j, jobs)
	return err
}

// ReleaseInputs implements tasks.ReleasesInputs (see releaseInputs).
func (Rate) ReleaseInputs(ctx context.Context, store tasks.InputStore, j *job.Record, jobs []*job.Record) error {
	_, err := releaseInputs(ctx, store, j, jobs)
	return err
}

// releaseInputs deletes what UploadCorpus stored for corpus job j, done,
// once no job of jobs (every job of the store) is unfinished, and tells
// whether it did: every piece at once (the pieces are named by their
// content, and two jobs of the same text share them, so only when no job
// may read one again) and the lists of j's inputs. A finished job never
// reads its inputs again: the same command run again uploads them again
// (and is answered from the coordinator's cache of results), while a job
// not finished reads them when it is resumed, by its command or by analyze
// report --wait; with one in the store, everything stays for the bucket's
// time to live.
func releaseInputs(ctx context.Context, store tasks.InputStore, j *job.Record, jobs []*job.Record) (bool, error) {
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

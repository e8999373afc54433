package sudoku

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// ReleaseInputs implements tasks.ReleasesInputs (see releaseInputs).
func (Solve) ReleaseInputs(ctx context.Context, store tasks.InputStore, params json.RawMessage) error {
	return releaseInputs(ctx, store, params)
}

// ReleaseInputs implements tasks.ReleasesInputs (see releaseInputs).
func (Rate) ReleaseInputs(ctx context.Context, store tasks.InputStore, params json.RawMessage) error {
	return releaseInputs(ctx, store, params)
}

// releaseInputs deletes what UploadCorpus stored for a corpus job with
// these parameters: every piece at once (the pieces are named by their
// content, and two jobs of the same text share them, so only when no job
// may read one again, as tasks.ReleasesInputs promises) and the lists of
// the job's inputs. A finished job never reads its inputs again: the same
// command run again uploads them again (and is answered from the
// coordinator's cache of results), while a job not finished reads them
// when it is resumed, by its command or by analyze report --wait.
func releaseInputs(ctx context.Context, store tasks.InputStore, params json.RawMessage) error {
	var p SolveParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("corpus parameters: %w", err)
	}
	if err := store.PurgePieces(ctx); err != nil {
		return err
	}
	var errs []error
	for _, in := range p.Inputs {
		errs = append(errs, store.DeleteContent(ctx, in.Object))
	}
	return errors.Join(errs...)
}

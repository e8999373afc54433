package sudokujobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/woprlabs/wopr/pkg/job"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// corpusKinds are the kinds whose parameters are SolveParams.
var corpusKinds = map[string]bool{Solve{}.Name(): true, Rate{}.Name(): true}

// ReleaseInputs deletes (del) what UploadCorpus stored for the inputs of
// corpus job j, done: their manifests and pieces, but those that a job of
// jobs that is not finished also names (they are named by their content,
// so two jobs of the same text share them), and returns how many it
// deleted. A finished job never reads its inputs again: the same command
// run again uploads them again (and is answered from the coordinator's
// cache of results), while a job not finished reads them when it is
// resumed, by its command or by analyze report --wait. It deletes nothing
// if it cannot read what the other jobs name. Only a process that no other
// client shares the store with may call it (the embedded default): a
// client that uploads the same pieces meanwhile would find them there and
// lose them.
func ReleaseInputs(ctx context.Context, objects tasks.Objects, del func(context.Context, string) error, j *job.Record, jobs []*job.Record) (int, error) {
	if j.State != job.Done || !corpusKinds[j.Spec.Kind] {
		return 0, nil
	}
	mine, err := corpusObjects(ctx, objects, j.Spec)
	if err != nil {
		return 0, err
	}
	for _, o := range jobs {
		if o.ID == j.ID || o.State.Final() || !corpusKinds[o.Spec.Kind] {
			continue
		}
		theirs, err := corpusObjects(ctx, objects, o.Spec)
		if err != nil {
			return 0, fmt.Errorf("the inputs of job %s: %w", o.ID, err)
		}
		for name := range theirs {
			delete(mine, name)
		}
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		names = make(chan string)
		n     int
	)
	for range uploaders {
		wg.Go(func() {
			for name := range names {
				err := del(ctx, name)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					n++
				}
				mu.Unlock()
			}
		})
	}
	for name := range mine {
		names <- name
	}
	close(names)
	wg.Wait()
	return n, errors.Join(errs...)
}

// corpusObjects returns the names of the manifests and pieces of the
// inputs of a corpus job.
func corpusObjects(ctx context.Context, objects tasks.Objects, spec job.Spec) (map[string]bool, error) {
	var p SolveParams
	if err := json.Unmarshal(spec.Params, &p); err != nil {
		return nil, fmt.Errorf("%s parameters: %w", spec.Kind, err)
	}
	per := p.Chunk
	if per == 0 {
		per = DefaultChunk
	}
	names := map[string]bool{}
	for _, in := range p.Inputs {
		m, err := objects.Get(ctx, in.Object)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.File, err)
		}
		names[in.Object] = true
		err = readManifest(m, per, func(_, _ int, object string) { names[object] = true })
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.File, err)
		}
	}
	return names, nil
}

package sudoku

import (
	"context"
	"fmt"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// maxHeld bounds the bytes of results that wait for an earlier task (a
// task held up, a worker that died with it): the results past it are
// dropped and read again in their turn (PlanEnv.Result). A variable for
// the tests.
var maxHeld = 64 << 20

// window merges the results of a corpus job's tasks in input order, for
// the plans of "sudoku.solve" and "sudoku.rate": each task is written
// (write) as soon as the tasks before it are written, merged or failed.
// Tasks are run in about their order, so next follows the last result
// closely and few results wait for it: the plan holds a window of
// results, not the corpus's, and at most maxHeld bytes of them (counted
// as they were merged); past that, a result that waits is dropped and
// read again in its turn, when the runtime can read it back (reread).
type window[R any] struct {
	ids     []string       // by task
	index   map[string]int // task id -> position
	state   []taskState    // by task
	results []R            // by task: held, waiting for next
	sizes   []int          // by task: the bytes of a held result
	held    int            // bytes of results held
	next    int            // the first task not written
	// decode reads the result of task ti, as the runner returned it.
	decode func(ti int, data []byte) (R, error)
	// write writes task ti: its result r, or, with ok false, that it
	// failed.
	write func(ctx context.Context, ti int, r R, ok bool) error
	// reread is PlanEnv.Result, or nil (nothing is dropped).
	reread func(ctx context.Context, id string) ([]byte, error)
}

type taskState uint8

const (
	pending taskState = iota // neither merged nor failed
	held                     // merged, its result waits for next
	dropped                  // merged, its result to be read again
	failed                   // failed, waiting for next
	written
)

func newWindow[R any](ts []tasks.Task, reread func(context.Context, string) ([]byte, error),
	decode func(int, []byte) (R, error), write func(context.Context, int, R, bool) error) *window[R] {
	w := &window[R]{ids: make([]string, len(ts)), index: make(map[string]int, len(ts)), state: make([]taskState, len(ts)),
		results: make([]R, len(ts)), sizes: make([]int, len(ts)), decode: decode, write: write, reread: reread}
	for i, t := range ts {
		w.ids[i] = t.ID
		w.index[t.ID] = i
	}
	return w
}

func (w *window[R]) position(id string) (int, error) {
	ti, ok := w.index[id]
	if !ok {
		return 0, fmt.Errorf("no task %s", id)
	}
	return ti, nil
}

// merge takes the result of task id (a result merged twice is ignored)
// and writes what it completes.
func (w *window[R]) merge(id string, data []byte) error {
	ti, err := w.position(id)
	if err != nil || w.state[ti] != pending {
		return err
	}
	r, err := w.decode(ti, data)
	if err != nil {
		return fmt.Errorf("result of task %s: %w", id, err)
	}
	if ti != w.next && w.reread != nil && w.held+len(data) > maxHeld {
		w.state[ti] = dropped
		return nil
	}
	w.state[ti], w.results[ti], w.sizes[ti] = held, r, len(data)
	w.held += len(data)
	return w.advance(context.Background(), false)
}

// fail takes the failure of task id and writes what it completes.
func (w *window[R]) fail(id string) error {
	ti, err := w.position(id)
	if err != nil || w.state[ti] != pending {
		return err
	}
	w.state[ti] = failed
	return w.advance(context.Background(), false)
}

// advance writes the tasks from next on that are merged or failed, or,
// with all, every task left (one neither merged nor told failed failed).
func (w *window[R]) advance(ctx context.Context, all bool) error {
	for ; w.next < len(w.state); w.next++ {
		ti := w.next
		var r R
		ok := true
		switch w.state[ti] {
		case held:
			r = w.results[ti]
		case dropped:
			data, err := w.reread(ctx, w.ids[ti])
			if err == nil {
				r, err = w.decode(ti, data)
			}
			if err != nil {
				return fmt.Errorf("result of task %s, read again: %w", w.ids[ti], err)
			}
		case failed:
			ok = false
		case pending:
			if !all {
				return nil
			}
			ok = false
		}
		if err := w.write(ctx, ti, r, ok); err != nil {
			return err
		}
		var zero R
		w.held -= w.sizes[ti]
		w.state[ti], w.results[ti], w.sizes[ti] = written, zero, 0
	}
	return nil
}

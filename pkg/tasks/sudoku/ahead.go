package sudoku

import (
	"context"
	"fmt"
	"sync"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// readAheadTasks is the number of next tasks whose pieces a payload names.
const readAheadTasks = 2

// maxAhead bounds the pieces read ahead and not yet taken (about 250 KB
// each).
const maxAhead = 16

// readAhead reads the pieces of the next tasks while a task runs, for the
// runners of one worker process (tasks.Shared), so that a slot does not
// wait for a request through the NATS server (a piece of up to maxPiece
// bytes) at the start of each task, its core idle meanwhile.
// BenchmarkSudokuCorpusEndToEnd measures the job with it.
//
// Tasks are delivered in about their order, so on the embedded default
// the next tasks are this process's: the slot that takes one finds its
// piece read. On a cluster they mostly go to other workers, whose pieces
// a worker must not fetch: there it reads only its own (tasks.Env.Alone
// is false). Should workers join an embedded cluster, once the reads
// dropped untaken outnumber those taken by more than maxAhead, the
// process reads ahead no more.
type readAhead struct {
	mu      sync.Mutex
	reads   map[string]*aheadRead
	order   []string // of reads, oldest first
	taken   int      // reads taken by a task
	dropped int      // reads dropped untaken
}

type aheadRead struct {
	done chan struct{}
	data []byte
	err  error
}

// processReadAhead returns the readAhead of a worker process, or nil if
// its runners share nothing or it is not the cluster's only worker.
func processReadAhead(env tasks.Env) *readAhead {
	if env.Process == nil || !env.Alone {
		return nil
	}
	return sharedReadAhead.Get(env)
}

// sharedReadAhead is the readAhead of a worker process.
var sharedReadAhead = tasks.NewShared(func() *readAhead { return &readAhead{reads: map[string]*aheadRead{}} })

// read decodes a payload and reads its piece, taking it from the reads
// ahead if there, and starts reading the pieces of the next tasks that it
// names. The caller calls wait, before it returns, to wait for those
// reads (which ctx bounds). A nil a reads the piece alone.
func (a *readAhead) read(ctx context.Context, payload []byte, objects tasks.Objects) (c *chunk, wait func(), err error) {
	if a == nil || objects == nil {
		c, err = decodeChunk(ctx, payload, objects)
		return c, func() {}, err
	}
	if c, err = parseChunk(payload); err != nil {
		return nil, func() {}, err
	}
	var wg sync.WaitGroup
	if r := a.take(c.Object); r != nil {
		select {
		case <-r.done:
			c.Text, err = r.data, r.err
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	a.start(ctx, c.Next, objects, &wg)
	if c.Text == nil || err != nil {
		if c.Text, err = objects.Get(ctx, c.Object); err != nil {
			wg.Wait()
			return nil, func() {}, fmt.Errorf("chunk of %s: %w", c.File, err)
		}
	}
	return c, wg.Wait, nil
}

// take removes the read of the piece name and returns it, or nil.
func (a *readAhead) take(name string) *aheadRead {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.reads[name]
	if r != nil {
		delete(a.reads, name)
		a.taken++
	}
	return r
}

// start reads the pieces names ahead (wg counts the reads), but those
// being read, while reading ahead pays.
func (a *readAhead) start(ctx context.Context, names []string, objects tasks.Objects, wg *sync.WaitGroup) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dropped > a.taken+maxAhead {
		return
	}
	for _, name := range names {
		if a.reads[name] != nil {
			continue
		}
		// Drop the oldest reads (and the names of those taken).
		for len(a.reads) >= maxAhead || len(a.order) >= 4*maxAhead {
			old := a.order[0]
			a.order = a.order[1:]
			if a.reads[old] != nil {
				delete(a.reads, old)
				a.dropped++
			}
		}
		r := &aheadRead{done: make(chan struct{})}
		a.reads[name] = r
		a.order = append(a.order, name)
		wg.Go(func() {
			defer close(r.done)
			r.data, r.err = objects.Get(ctx, name)
		})
	}
}

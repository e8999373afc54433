package embedded

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/woprlabs/wopr/pkg/coordinator"
	"github.com/woprlabs/wopr/pkg/tasks"
)

// handoff passes outputs from the coordinator of an embedded cluster to
// the client in its process through the client's files, so that they make
// no round trip through the object store: the client names the file that
// an output object is to be written to (Cluster.Sink) before its job runs,
// and the coordinator's writes of that object go straight to the file, as
// they are made. It is the object store as the coordinator sees it: an
// output with no file, and everything else, goes to the store beneath, as
// on a cluster. Inputs are another matter (see lender).
type handoff struct {
	coordinator.Objects // the store beneath

	mu    sync.Mutex
	sinks map[string]*os.File // output object -> the client's file
}

func newHandoff(store coordinator.Objects) *handoff {
	return &handoff{Objects: store, sinks: map[string]*os.File{}}
}

// Sink has the writes of the output object name go to f, from its start,
// until Unsink, and tells whether they will: false on a cluster started
// bare, which has no coordinator (the output is then in the object
// store).
func (c *Cluster) Sink(name string, f *os.File) bool {
	h := c.handoff
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sinks[name] = f
	return true
}

// Unsink forgets the file of the output object name.
func (c *Cluster) Unsink(name string) {
	if h := c.handoff; h != nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.sinks, name)
	}
}

// Put writes the object name to the client's file for it, if there is
// one, and otherwise stores it.
func (h *handoff) Put(ctx context.Context, name string, data []byte) error {
	f, err := h.sink(name)
	if err != nil {
		return fmt.Errorf("output %s: %w", name, err)
	}
	if f == nil {
		return h.Objects.Put(ctx, name, data)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("output %s: %w", name, err)
	}
	return nil
}

// Create starts the object name in the client's file for it, if there is
// one, and otherwise in the store.
func (h *handoff) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	f, err := h.sink(name)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", name, err)
	}
	if f == nil {
		return h.Objects.Create(ctx, name)
	}
	return sinkWriter{f}, nil
}

// sink returns the file that the output name goes to, emptied, or nil.
func (h *handoff) sink(name string) (*os.File, error) {
	h.mu.Lock()
	f := h.sinks[name]
	h.mu.Unlock()
	if f == nil {
		return nil, nil
	}
	if err := f.Truncate(0); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return f, nil
}

// sinkWriter writes an output to its file; closing it leaves the file
// open, for the client.
type sinkWriter struct{ f *os.File }

func (w sinkWriter) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w sinkWriter) Close() error { return nil }

// Delete deletes an object of the store beneath, if it can
// (tasks.Deleter): the last pieces of a level count, which its report
// deletes.
func (h *handoff) Delete(ctx context.Context, name string) error {
	if d, ok := h.Objects.(tasks.Deleter); ok {
		return d.Delete(ctx, name)
	}
	return nil
}

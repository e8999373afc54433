package broker

import (
	"io"
	"os"
	"sync"
)

// handoff passes outputs between the parts of one process that share
// Objects (the embedded default: the client and the coordinator) through
// the client's files, so that they make no round trip through the object
// store: the client names the file that an output object is to be written
// to (Sink) before its job runs, and the coordinator's writes of that
// object go straight to the file, as they are made. An output with no file
// goes to the object store as on a cluster. Inputs are another matter (see
// lender).
type handoff struct {
	mu    sync.Mutex
	sinks map[string]*os.File // output object -> the client's file
}

// EnableHandoff makes these Objects hand outputs over to the files of a
// client in the same process (see handoff). Only for Objects whose
// outputs are read by a client in their process: the embedded default.
func (o *Objects) EnableHandoff() { o.handoff = &handoff{sinks: map[string]*os.File{}} }

// Sink has the writes of the output object name go to f, from its start,
// until Unsink, and tells whether they will: false without the handoff
// (the output is then in the object store).
func (o *Objects) Sink(name string, f *os.File) bool {
	h := o.handoff
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sinks[name] = f
	return true
}

// Unsink forgets the file of the output object name.
func (o *Objects) Unsink(name string) {
	if h := o.handoff; h != nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.sinks, name)
	}
}

// sink returns the file that the output name goes to, emptied, or nil.
func (h *handoff) sink(name string) (*os.File, error) {
	if h == nil {
		return nil, nil
	}
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

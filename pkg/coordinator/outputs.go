package coordinator

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// outputs stores a job's outputs as objects and records their names.
type outputs struct {
	objects tasks.Objects
	job     string
	mu      sync.Mutex
	names   map[string]string // output name -> object
	parts   map[string]int    // output name -> parts, of one written in parts
}

func newOutputs(objects tasks.Objects, job string) *outputs {
	return &outputs{objects: objects, job: job, names: map[string]string{}, parts: map[string]int{}}
}

func (o *outputs) Put(ctx context.Context, name string, data []byte) error {
	object := tasks.OutputObject(o.job, name)
	if err := o.objects.Put(ctx, object, data); err != nil {
		return err
	}
	o.done(name, object, 0)
	return nil
}

// done records the output name, complete in object.
func (o *outputs) done(name, object string, parts int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.names[name] = object
	delete(o.parts, name)
	if parts > 0 {
		o.parts[name] = parts
	}
}

// creator is an object store that writes an object a part at a time
// (broker.Objects).
type creator interface {
	Create(ctx context.Context, name string) (io.WriteCloser, error)
}

// Create implements tasks.Outputs. Without an object store that writes a
// part at a time, the output is put whole when it is closed.
func (o *outputs) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	object := tasks.OutputObject(o.job, name)
	cr, ok := o.objects.(creator)
	if !ok {
		return &wholeWriter{o: o, name: name}, nil
	}
	w, err := cr.Create(ctx, object)
	if err != nil {
		return nil, err
	}
	return &outputWriter{WriteCloser: w, o: o, name: name, object: object}, nil
}

// outputWriter records its output once closed.
type outputWriter struct {
	io.WriteCloser
	o            *outputs
	name, object string
}

func (w *outputWriter) Close() error {
	if err := w.WriteCloser.Close(); err != nil {
		return err
	}
	parts := 0
	if p, ok := w.WriteCloser.(interface{ Parts() int }); ok {
		parts = p.Parts()
	}
	w.o.done(w.name, w.object, parts)
	return nil
}

// wholeWriter gathers an output to put it whole.
type wholeWriter struct {
	o    *outputs
	name string
	data []byte
}

func (w *wholeWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	return len(p), nil
}

func (w *wholeWriter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return w.o.Put(ctx, w.name, w.data)
}

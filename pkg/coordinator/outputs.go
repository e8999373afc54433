package coordinator

import (
	"context"
	"io"
	"sync"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// outputs stores a job's outputs as objects and records their names.
type outputs struct {
	objects Objects
	job     string
	mu      sync.Mutex
	names   map[string]string // output name -> object
	parts   map[string]int    // output name -> parts, of one written in parts
}

func newOutputs(objects Objects, job string) *outputs {
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

// Create implements tasks.Outputs.
func (o *outputs) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	object := tasks.OutputObject(o.job, name)
	w, err := o.objects.Create(ctx, object)
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
	if p, ok := w.WriteCloser.(interface{ Parts() int }); ok { // see Objects.Create
		parts = p.Parts()
	}
	w.o.done(w.name, w.object, parts)
	return nil
}

package queue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// Objects returns the cluster's object store as the kinds see it.
func (b *Broker) Objects() tasks.Objects { return objects{b.objects, b.handoff} }

type objects struct {
	os jetstream.ObjectStore
	h  *handoff
}

// Get returns an object's content, which the caller must not change.
func (o objects) Get(ctx context.Context, name string) ([]byte, error) {
	if data, ok := o.h.take(name); ok {
		return data, nil
	}
	return getObject(ctx, o.os, name)
}

// Shared tells whether this process's workers hold the input name in
// memory too (see ShareHandoff): tasks.PlanEnv.Shared.
func (b *Broker) Shared(name string) bool { return b.handoff.held(name) }

// getObject reads an object into a buffer of its size.
func getObject(ctx context.Context, os jetstream.ObjectStore, name string) ([]byte, error) {
	res, err := os.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("get object %s: %w", name, err)
	}
	defer res.Close()
	info, err := res.Info()
	if err != nil {
		return nil, fmt.Errorf("get object %s: %w", name, err)
	}
	data := make([]byte, info.Size)
	if _, err := io.ReadFull(res, data); err != nil {
		return nil, fmt.Errorf("read object %s: %w", name, err)
	}
	// Reading to the end checks the digest.
	if n, err := res.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("read object %s: longer than its size %d", name, info.Size)
	} else if err != io.EOF {
		return nil, fmt.Errorf("read object %s: %w", name, err)
	}
	return data, nil
}

// Put stores an object; with the handoff, an output (tasks.OutputPrefix) that
// fits stays in memory for the client of this process instead.
func (o objects) Put(ctx context.Context, name string, data []byte) error {
	if isOutput(name) && o.h.put(name, data) {
		return nil
	}
	if _, err := o.os.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("put object %s: %w", name, err)
	}
	return nil
}

// Input is a job input named by its content, ready to upload.
type Input struct {
	Name string // "input/<digest>"
	Data []byte
}

// inputBlock is the block size of input digests.
const inputBlock = 4 << 20

// NewInput names data (which must not change afterwards) by its content:
// the SHA-256 of the SHA-256 digests of its 4 MiB blocks, hashed on all
// CPUs (one SHA-256 of the whole would run on one core, all of it before a
// job can start).
func NewInput(data []byte) Input {
	n := max((len(data)+inputBlock-1)/inputBlock, 1)
	sums := make([]byte, n*sha256.Size)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				sum := sha256.Sum256(data[i*inputBlock : min((i+1)*inputBlock, len(data))])
				copy(sums[i*sha256.Size:], sum[:])
			}
		})
	}
	wg.Wait()
	root := sha256.Sum256(sums)
	return Input{Name: "input/" + hex.EncodeToString(root[:]), Data: data}
}

// UploadInput stores a job input under a name derived from its content
// (NewInput), skipping the upload when it is already there, and returns the
// name.
func (b *Broker) UploadInput(ctx context.Context, r io.Reader) (string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("read input: %w", err)
	}
	return b.Upload(ctx, NewInput(data))
}

// Upload stores an input made by NewInput and returns its name. With the
// handoff (the embedded default) an input that fits is kept in memory for
// this process instead of being uploaded (see handoff).
func (b *Broker) Upload(ctx context.Context, in Input) (string, error) {
	name, data := in.Name, in.Data
	if b.handoff.keep(name, data) {
		return name, nil
	}
	info, err := b.objects.GetInfo(ctx, name)
	if err == nil && info.Size == uint64(len(data)) {
		return name, nil
	}
	if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", fmt.Errorf("look up object %s: %w", name, err)
	}
	if _, err := b.objects.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data)); err != nil {
		return "", fmt.Errorf("upload input: %w", err)
	}
	return name, nil
}

// TakeLocal returns an object handed over in memory in this process (see
// EnableHandoff), which the caller must not change; ok is false for any
// other object.
func (b *Broker) TakeLocal(name string) (data []byte, ok bool) { return b.handoff.take(name) }

// DownloadTo writes an object to w.
func (b *Broker) DownloadTo(ctx context.Context, name string, w io.Writer) error {
	if data, ok := b.handoff.take(name); ok {
		_, err := w.Write(data)
		return err
	}
	res, err := b.objects.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("get object %s: %w", name, err)
	}
	defer res.Close()
	if _, err := io.Copy(w, res); err != nil {
		return fmt.Errorf("read object %s: %w", name, err)
	}
	return nil
}

package queue

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// ObjectStore returns the cluster's object store as the kinds see it.
func (b *Broker) ObjectStore() tasks.Objects { return objects{b.Objects} }

type objects struct{ os jetstream.ObjectStore }

func (o objects) Get(ctx context.Context, name string) ([]byte, error) {
	data, err := o.os.GetBytes(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("get object %s: %w", name, err)
	}
	return data, nil
}

func (o objects) Put(ctx context.Context, name string, data []byte) error {
	if _, err := o.os.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("put object %s: %w", name, err)
	}
	return nil
}

// UploadInput stores a job input under a name derived from its content
// ("input/<sha256>"), skipping the upload when it is already there, and
// returns the name.
func (b *Broker) UploadInput(ctx context.Context, r io.Reader) (string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("read input: %w", err)
	}
	sum := sha256.Sum256(data)
	name := "input/" + hex.EncodeToString(sum[:])
	info, err := b.Objects.GetInfo(ctx, name)
	if err == nil && info.Size == uint64(len(data)) {
		return name, nil
	}
	if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", fmt.Errorf("look up object %s: %w", name, err)
	}
	if _, err := b.Objects.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data)); err != nil {
		return "", fmt.Errorf("upload input: %w", err)
	}
	return name, nil
}

// DownloadTo writes an object to w.
func (b *Broker) DownloadTo(ctx context.Context, name string, w io.Writer) error {
	res, err := b.Objects.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("get object %s: %w", name, err)
	}
	defer res.Close()
	if _, err := io.Copy(w, res); err != nil {
		return fmt.Errorf("read object %s: %w", name, err)
	}
	return nil
}

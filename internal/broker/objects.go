package broker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Objects is the cluster's store of job inputs and outputs: the object
// store, and the bucket of pieces, inputs that fit a message (each a
// task's), which a Lender may leave in their files. It is what the kinds
// read their inputs from and write their outputs to (tasks.Objects), what
// a client uploads inputs to (tasks.Inputs) and downloads outputs from.
type Objects struct {
	c      *conn
	os     jetstream.ObjectStore
	pieces jetstream.KeyValue
	lender Lender // nil unless SetLender
}

// Get returns an object's content, which the caller must not change: a
// piece (UploadContent) from its bucket or its place in a file
// (UploadFileRange), any other from the object store.
func (o *Objects) Get(ctx context.Context, name string) ([]byte, error) {
	if key, ok := strings.CutPrefix(name, piecePrefix); ok {
		data, err := o.getPiece(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("get piece %s: %w", name, err)
		}
		return data, nil
	}
	return getObject(ctx, o.os, name)
}

// piecePrefix starts the names of pieces (UploadContent).
const piecePrefix = "piece/"

// UploadContent stores data under a name derived from its content,
// unless it is there already, and returns the name. Data that fits a
// message goes to the bucket of pieces, where reading it back is one
// request (reading an object takes a consumer of its own, created and
// deleted for each read); anything bigger is an input object. It
// may be called from several goroutines at once.
func (o *Objects) UploadContent(ctx context.Context, data []byte) (string, error) {
	if !o.fitsPiece(data) {
		return o.upload(ctx, NewInput(data))
	}
	key := contentKey(data)
	// Attempts lost with a server that restarts are sent again; one that
	// was stored before its answer was lost finds its key there, with the
	// same content, and the piece is stored once.
	err := o.c.request(ctx, func(ctx context.Context) error {
		_, err := o.pieces.Create(ctx, key, data)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return nil
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store piece %s: %w", key, err)
	}
	return piecePrefix + key, nil
}

// DeleteContent deletes what UploadContent stored under name (nothing if
// it is not there). Names are made from content: delete only what no job
// that may still run names.
func (o *Objects) DeleteContent(ctx context.Context, name string) error {
	if key, ok := strings.CutPrefix(name, piecePrefix); ok {
		if o.lender != nil {
			o.lender.Forget(key)
		}
		for _, k := range []string{key, refPrefix + key} {
			if err := o.pieces.Purge(ctx, k); err != nil {
				return fmt.Errorf("delete piece %s: %w", name, err)
			}
		}
		return nil
	}
	if err := o.os.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("delete object %s: %w", name, err)
	}
	return nil
}

// PurgePieces deletes every piece of the bucket at once, for a store
// whose jobs are all finished (deleting pieces one by one has the server
// read every block that holds them into memory).
func (o *Objects) PurgePieces(ctx context.Context) error {
	if o.lender != nil {
		o.lender.ForgetAll()
	}
	s, err := o.c.js.Stream(ctx, "KV_"+piecesBucket)
	if err == nil {
		err = s.Purge(ctx)
	}
	if err != nil {
		return fmt.Errorf("purge bucket %s: %w", piecesBucket, err)
	}
	return nil
}

// pieceHeadroom is what a message holds besides the data of a piece.
const pieceHeadroom = 4 << 10

// fitsPiece tells whether data fits a message of the bucket of pieces.
func (o *Objects) fitsPiece(data []byte) bool {
	return len(data) <= int(o.c.nc.MaxPayload())-pieceHeadroom
}

// contentKey is the key of data among the pieces: its name as an input
// (NewInput) without the prefix.
func contentKey(data []byte) string {
	return strings.TrimPrefix(NewInput(data).Name, "input/")
}

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

// Put stores an object.
func (o *Objects) Put(ctx context.Context, name string, data []byte) error {
	if _, err := o.os.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("put object %s: %w", name, err)
	}
	return nil
}

// Delete deletes an object (tasks.Deleter); nothing if there is none.
func (o *Objects) Delete(ctx context.Context, name string) error {
	if err := o.os.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("delete object %s: %w", name, err)
	}
	return nil
}

// Create starts the object name, written in order through the writer (see
// tasks.Outputs) as objects of up to partSize bytes, "<name>/<i>" from
// i = 0, put as they fill. Once closed, the writer's method Parts() int
// tells how many it put (DownloadTo reads them back).
func (o *Objects) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	return &partWriter{os: o.os, name: name}, nil
}

// partSize is the size of the parts of an object written a part at a time.
const partSize = 8 << 20

// PartName is the object name of part i of an object written a part at a
// time (Objects.Create).
func PartName(name string, i int) string { return name + "/" + strconv.Itoa(i) }

// partWriter writes an object as parts.
type partWriter struct {
	os    jetstream.ObjectStore
	name  string
	buf   []byte
	parts int
}

func (w *partWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, partSize)
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf, p = w.buf[:len(w.buf)+k], p[k:]
		if len(w.buf) == partSize {
			if err := w.put(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (w *partWriter) put() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := PartName(w.name, w.parts)
	if _, err := w.os.PutBytes(ctx, name, w.buf); err != nil {
		return fmt.Errorf("put object %s: %w", name, err)
	}
	w.parts++
	w.buf = w.buf[:0]
	return nil
}

// Close puts the last part (an empty object has one, empty).
func (w *partWriter) Close() error {
	if len(w.buf) > 0 || w.parts == 0 {
		return w.put()
	}
	return nil
}

// Parts is the number of parts put.
func (w *partWriter) Parts() int { return w.parts }

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
	hash := func() {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			sum := sha256.Sum256(data[i*inputBlock : min((i+1)*inputBlock, len(data))])
			copy(sums[i*sha256.Size:], sum[:])
		}
	}
	if n == 1 {
		hash() // a piece: no goroutine for one block
	} else {
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), n) {
			wg.Go(hash)
		}
		wg.Wait()
	}
	root := sha256.Sum256(sums)
	return Input{Name: "input/" + hex.EncodeToString(root[:]), Data: data}
}

// upload stores an input made by NewInput, unless an object of its name
// and size is there already, and returns its name. It may be called from
// several goroutines at once. An attempt lost with a server that restarts
// is made again, within objectAttempt: an object put again under its name
// replaces the chunks of the one before.
func (o *Objects) upload(ctx context.Context, in Input) (string, error) {
	name, data := in.Name, in.Data
	info, err := o.os.GetInfo(ctx, name)
	if err == nil && info.Size == uint64(len(data)) {
		return name, nil
	}
	if err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", fmt.Errorf("look up object %s: %w", name, err)
	}
	err = o.c.requestFor(ctx, objectAttempt(len(data)), func(ctx context.Context) error {
		_, err := o.os.Put(ctx, jetstream.ObjectMeta{Name: name}, bytes.NewReader(data))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("upload input: %w", err)
	}
	return name, nil
}

// objectAttempt is how long an attempt at putting an object of n bytes
// may take: 10 s, and a second for each MiB, 1 MiB/s being a slow link.
func objectAttempt(n int) time.Duration { return 10*time.Second + time.Duration(n>>20)*time.Second }

// DownloadTo writes an object to w; parts > 0 says that it was written in
// that many parts (Objects.Create), which are written one after another.
func (o *Objects) DownloadTo(ctx context.Context, name string, parts int, w io.Writer) error {
	if parts == 0 {
		return o.download(ctx, name, w)
	}
	for i := range parts {
		if err := o.download(ctx, PartName(name, i), w); err != nil {
			return err
		}
	}
	return nil
}

func (o *Objects) download(ctx context.Context, name string, w io.Writer) error {
	res, err := o.os.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("get object %s: %w", name, err)
	}
	defer res.Close()
	if _, err := io.Copy(w, res); err != nil {
		return fmt.Errorf("read object %s: %w", name, err)
	}
	return nil
}

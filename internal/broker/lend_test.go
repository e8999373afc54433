package broker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// disk is the files of one machine, in memory, as testLenders read them.
type disk struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (d *disk) write(path string, data []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.files[path] = bytes.Clone(data)
}

// read returns n bytes of the file path from at, if it has them and they
// are want.
func (d *disk) read(path string, at int64, n int, want []byte) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.files[path]
	if at+int64(n) > int64(len(f)) {
		return nil, fmt.Errorf("%s, bytes %d to %d: cut short", path, at, at+int64(n))
	}
	data := bytes.Clone(f[at : at+int64(n)])
	if want != nil && !bytes.Equal(data, want) {
		return nil, fmt.Errorf("%s, bytes %d to %d: changed", path, at, at+int64(n))
	}
	return data, nil
}

// testLender is a Lender of a process on a machine whose files are a disk:
// its references say where a piece is ("path at length"), and it keeps
// the pieces it lent, to check what it reads against them.
type testLender struct {
	disk *disk

	mu      sync.Mutex
	lent    map[string][]byte // key -> the piece
	where   map[string]string // key -> its reference
	forgets int
}

func newTestLender(d *disk) *testLender {
	return &testLender{disk: d, lent: map[string][]byte{}, where: map[string]string{}}
}

func (l *testLender) Lend(key string, data []byte, path string, at int64) ([]byte, error) {
	ref := fmt.Sprintf("%s %d %d", path, at, len(data))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lent[key], l.where[key] = bytes.Clone(data), ref
	return []byte(ref), nil
}

func (l *testLender) Lent(key string) ([]byte, bool, error) {
	l.mu.Lock()
	want, ok := l.lent[key]
	ref := l.where[key]
	l.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	var path string
	var at int64
	var n int
	if _, err := fmt.Sscanf(ref, "%s %d %d", &path, &at, &n); err != nil {
		return nil, true, err
	}
	data, err := l.disk.read(path, at, n, want)
	return data, true, err
}

func (l *testLender) Read(ref []byte) ([]byte, error) {
	var path string
	var at int64
	var n int
	if _, err := fmt.Sscanf(string(ref), "%s %d %d", &path, &at, &n); err != nil {
		return nil, err
	}
	return l.disk.read(path, at, n, nil)
}

func (l *testLender) Forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.lent, key)
	delete(l.where, key)
	l.forgets++
}

func (l *testLender) ForgetAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.lent)
	clear(l.where)
	l.forgets++
}

func (l *testLender) forgot() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.forgets
}

// A piece lent (UploadFileRange with a Lender) has the name UploadContent
// gives it and is not stored: the bucket holds the reference the lender
// made. The readers that share the lender read the piece through its
// memory, a reader of another process through the reference; a piece the
// lender cannot read is an error, unless the piece was stored meanwhile.
// Deleted, the piece and its reference are gone and the lender forgets
// it; so do all pieces purged. Without a lender, or without a place, the
// piece is stored. (The lender of the embedded default, which reads
// files: pkg/embedded's TestFileRangePieces.)
func TestLentPieces(t *testing.T) {
	ctx := context.Background()
	url := startServer(t, nil).ClientURL()
	client, worker, other, plain := openOn(t, url), openOn(t, url), openOn(t, url), openOn(t, url)
	d := &disk{files: map[string][]byte{}}
	lender := newTestLender(d)
	client.Objects().SetLender(lender)
	worker.Objects().SetLender(lender)
	other.Objects().SetLender(newTestLender(d))
	if !client.Objects().Lends() || !worker.Objects().Lends() || !other.Objects().Lends() || plain.Objects().Lends() {
		t.Fatalf("lends: client %v, worker %v, other %v, plain %v",
			client.Objects().Lends(), worker.Objects().Lends(), other.Objects().Lends(), plain.Objects().Lends())
	}
	const path = "/corpus.txt"
	text := []byte("first line\nthe piece\nlast line\n")
	d.write(path, text)
	at := int64(len("first line\n"))
	piece := []byte("the piece\n")
	key := contentKey(piece)
	want := piecePrefix + key
	name, err := client.Objects().UploadFileRange(ctx, piece, path, at)
	if err != nil || name != want {
		t.Fatalf("UploadFileRange: %s, %v; want %s", name, err, want)
	}
	if _, err := client.objects.pieces.Get(ctx, key); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("the piece was stored: %v", err)
	}
	if e, err := client.objects.pieces.Get(ctx, refPrefix+key); err != nil || string(e.Value()) != fmt.Sprintf("%s %d %d", path, at, len(piece)) {
		t.Fatalf("the reference was not stored as the lender made it: %v", err)
	}
	read := func(b *Broker) ([]byte, error) { return b.Objects().Get(ctx, name) }
	for who, b := range map[string]*Broker{"client": client, "worker": worker, "other": other} {
		if got, err := read(b); err != nil || !bytes.Equal(got, piece) {
			t.Errorf("%s read %q, %v; want %q", who, got, err, piece)
		}
	}
	if got, err := read(plain); err == nil {
		t.Errorf("a reader without a lender read %q", got)
	}

	// Cut short under the lender.
	d.write(path, text[:at+3])
	for who, b := range map[string]*Broker{"worker": worker, "other": other} {
		if got, err := read(b); err == nil {
			t.Errorf("%s read %q from a file cut short", who, got)
		}
	}
	// Stored meanwhile, the piece is read from the bucket.
	if _, err := plain.Objects().UploadContent(ctx, piece); err != nil {
		t.Fatal(err)
	}
	for who, b := range map[string]*Broker{"worker": worker, "other": other, "plain": plain} {
		if got, err := read(b); err != nil || !bytes.Equal(got, piece) {
			t.Errorf("%s read %q, %v once stored; want %q", who, got, err, piece)
		}
	}

	// Deleted, neither the piece nor its reference is left.
	d.write(path, text)
	forgot := lender.forgot()
	if err := client.Objects().DeleteContent(ctx, name); err != nil {
		t.Fatal(err)
	}
	if lender.forgot() != forgot+1 {
		t.Error("the lender was not told that the piece was deleted")
	}
	for who, b := range map[string]*Broker{"worker": worker, "other": other} {
		if got, err := read(b); err == nil {
			t.Errorf("%s read %q after the piece was deleted", who, got)
		}
	}
	if _, err := client.objects.pieces.Get(ctx, refPrefix+key); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("the place is left after the piece was deleted: %v", err)
	}

	// Without the lender, or without a place, the piece is stored.
	for i, upload := range []func() (string, error){
		func() (string, error) { return plain.Objects().UploadFileRange(ctx, piece, path, at) },
		func() (string, error) { return client.Objects().UploadFileRange(ctx, piece, path, -1) },
	} {
		if err := plain.Objects().DeleteContent(ctx, name); err != nil {
			t.Fatal(err)
		}
		if got, err := upload(); err != nil || got != want {
			t.Fatalf("upload %d: %s, %v; want %s", i, got, err, want)
		}
		if e, err := client.objects.pieces.Get(ctx, key); err != nil || !bytes.Equal(e.Value(), piece) {
			t.Errorf("upload %d: the piece was not stored (%v)", i, err)
		}
	}

	// Every piece purged, the lender forgets every place.
	if _, err := client.Objects().UploadFileRange(ctx, piece, path, at); err != nil {
		t.Fatal(err)
	}
	forgot = lender.forgot()
	if err := client.Objects().PurgePieces(ctx); err != nil {
		t.Fatal(err)
	}
	if lender.forgot() != forgot+1 {
		t.Error("the lender was not told that every piece was purged")
	}
	if got, err := read(worker); err == nil {
		t.Errorf("the worker read %q after every piece was purged", got)
	}
}

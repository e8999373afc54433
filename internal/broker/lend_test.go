package broker

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// A piece left in its file (UploadFileRange) has the name UploadContent
// gives it and is not stored: the readers that share the lender read it
// from the place kept in memory, a reader of another process from the
// place kept in the bucket. A file changed or cut since is an error that
// names it, unless the piece was stored meanwhile; deleted, the piece and
// its place are gone. Without the lender, or without a place, the piece
// is stored.
func TestFileRangePieces(t *testing.T) {
	ctx := context.Background()
	url := startServer(t, nil).ClientURL()
	client, worker, other := openOn(t, url), openOn(t, url), openOn(t, url)
	client.Objects().EnableLender()
	worker.Objects().ShareLender(client.Objects())
	if !client.Objects().Lends() || !worker.Objects().Lends() || other.Objects().Lends() {
		t.Fatalf("lends: client %v, worker %v, other %v", client.Objects().Lends(), worker.Objects().Lends(), other.Objects().Lends())
	}
	path := filepath.Join(t.TempDir(), "corpus.txt")
	text := []byte("first line\nthe piece\nlast line\n")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	at := int64(len("first line\n"))
	piece := []byte("the piece\n")
	want := piecePrefix + contentKey(piece)
	name, err := client.Objects().UploadFileRange(ctx, piece, path, at)
	if err != nil || name != want {
		t.Fatalf("UploadFileRange: %s, %v; want %s", name, err, want)
	}
	if _, err := client.objects.pieces.Get(ctx, contentKey(piece)); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("the piece was stored: %v", err)
	}
	read := func(b *Broker) ([]byte, error) { return b.Objects().Get(ctx, name) }
	for who, b := range map[string]*Broker{"client": client, "worker": worker, "other": other} {
		if got, err := read(b); err != nil || !bytes.Equal(got, piece) {
			t.Errorf("%s read %q, %v; want %q", who, got, err, piece)
		}
	}

	// Changed in place, then cut short.
	changed := bytes.Replace(text, []byte("the piece"), []byte("the pieCe"), 1)
	for _, damaged := range [][]byte{changed, text[:at+3]} {
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		for who, b := range map[string]*Broker{"worker": worker, "other": other} {
			if got, err := read(b); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("%s read %q from a damaged file, error %v; want one naming %s", who, got, err, path)
			}
		}
	}
	// Stored meanwhile, the piece is read from the bucket.
	if _, err := other.Objects().UploadContent(ctx, piece); err != nil {
		t.Fatal(err)
	}
	for who, b := range map[string]*Broker{"worker": worker, "other": other} {
		if got, err := read(b); err != nil || !bytes.Equal(got, piece) {
			t.Errorf("%s read %q, %v once stored; want %q", who, got, err, piece)
		}
	}

	// Deleted, neither the piece nor its place is left.
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := client.Objects().DeleteContent(ctx, name); err != nil {
		t.Fatal(err)
	}
	for who, b := range map[string]*Broker{"worker": worker, "other": other} {
		if got, err := read(b); err == nil {
			t.Errorf("%s read %q after the piece was deleted", who, got)
		}
	}
	if _, err := client.objects.pieces.Get(ctx, refPrefix+contentKey(piece)); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("the place is left after the piece was deleted: %v", err)
	}

	// Without the lender, or without a place, the piece is stored.
	for i, upload := range []func() (string, error){
		func() (string, error) { return other.Objects().UploadFileRange(ctx, piece, path, at) },
		func() (string, error) { return client.Objects().UploadFileRange(ctx, piece, path, -1) },
	} {
		if err := other.Objects().DeleteContent(ctx, name); err != nil {
			t.Fatal(err)
		}
		if got, err := upload(); err != nil || got != want {
			t.Fatalf("upload %d: %s, %v; want %s", i, got, err, want)
		}
		if e, err := client.objects.pieces.Get(ctx, contentKey(piece)); err != nil || !bytes.Equal(e.Value(), piece) {
			t.Errorf("upload %d: the piece was not stored (%v)", i, err)
		}
	}
}

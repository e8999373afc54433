package embedded

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/woprlabs/wopr/internal/broker"
)

// startServer starts an in-process server for one test, with its store in
// a temporary directory.
func startServer(t *testing.T) *server.Server {
	t.Helper()
	s, err := NewServer(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// connect opens a connection to s, closed when the test ends, whose
// objects read pieces through l (nil: none).
func connect(t *testing.T, s *server.Server, l *lender) *broker.Broker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := broker.Open(ctx, broker.Endpoint{InProcess: s, Name: t.Name()}, broker.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if l != nil {
		b.Objects().SetLender(l)
	}
	return b
}

// A piece left in its file (UploadFileRange) has the name UploadContent
// gives it and is not stored: the readers that share the lender read it
// from the place kept in memory, a reader of another process from the
// place kept in the bucket. A file changed or cut since is an error that
// names it, unless the piece was stored meanwhile; deleted, the piece and
// its place are gone. Without the lender, or without a place, the piece
// is stored. (What the adapter keeps of a lent piece, and asks of its
// lender: internal/broker's TestLentPieces.)
func TestFileRangePieces(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	l := newLender()
	client, worker := connect(t, s, l), connect(t, s, l)
	other := connect(t, s, newLender()) // another process on this machine
	plain := connect(t, s, nil)         // a process that lends nothing: it reads stored pieces only
	if !client.Objects().Lends() || !worker.Objects().Lends() || !other.Objects().Lends() || plain.Objects().Lends() {
		t.Fatalf("lends: client %v, worker %v, other %v, plain %v",
			client.Objects().Lends(), worker.Objects().Lends(), other.Objects().Lends(), plain.Objects().Lends())
	}
	path := filepath.Join(t.TempDir(), "corpus.txt")
	text := []byte("first line\nthe piece\nlast line\n")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	at := int64(len("first line\n"))
	piece := []byte("the piece\n")
	name, err := client.Objects().UploadFileRange(ctx, piece, path, at)
	if err != nil || !strings.HasPrefix(name, "piece/") {
		t.Fatalf("UploadFileRange: %s, %v; want a piece", name, err)
	}
	read := func(b *broker.Broker) ([]byte, error) { return b.Objects().Get(ctx, name) }
	if got, err := read(plain); err == nil {
		t.Fatalf("the piece was stored: read %q without a lender", got)
	}
	for who, b := range map[string]*broker.Broker{"client": client, "worker": worker, "other": other} {
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
		for who, b := range map[string]*broker.Broker{"worker": worker, "other": other} {
			if got, err := read(b); err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("%s read %q from a damaged file, error %v; want one naming %s", who, got, err, path)
			}
		}
	}
	// Stored meanwhile, under the same name, the piece is read from the
	// bucket.
	if stored, err := plain.Objects().UploadContent(ctx, piece); err != nil || stored != name {
		t.Fatalf("UploadContent: %s, %v; want %s, the name UploadFileRange gave", stored, err, name)
	}
	for who, b := range map[string]*broker.Broker{"worker": worker, "other": other} {
		if got, err := read(b); err != nil || !bytes.Equal(got, piece) {
			t.Errorf("%s read %q, %v once stored; want %q", who, got, err, piece)
		}
	}

	// Deleted, neither the piece nor its place is left: the file is
	// whole again, and still nobody reads the piece.
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := client.Objects().DeleteContent(ctx, name); err != nil {
		t.Fatal(err)
	}
	for who, b := range map[string]*broker.Broker{"worker": worker, "other": other} {
		if got, err := read(b); err == nil {
			t.Errorf("%s read %q after the piece was deleted", who, got)
		}
	}

	// Without the lender, or without a place, the piece is stored.
	for i, upload := range []func() (string, error){
		func() (string, error) { return plain.Objects().UploadFileRange(ctx, piece, path, at) },
		func() (string, error) { return client.Objects().UploadFileRange(ctx, piece, path, -1) },
	} {
		if err := plain.Objects().DeleteContent(ctx, name); err != nil {
			t.Fatal(err)
		}
		if got, err := upload(); err != nil || got != name {
			t.Fatalf("upload %d: %s, %v; want %s", i, got, err, name)
		}
		if got, err := read(plain); err != nil || !bytes.Equal(got, piece) {
			t.Errorf("upload %d: the piece was not stored (%q, %v)", i, got, err)
		}
	}
}

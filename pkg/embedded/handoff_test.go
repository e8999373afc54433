package embedded

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/woprlabs/wopr/pkg/tasks"
)

// With the handoff, an output that the client has a file for goes to that
// file, not to the store, whether put whole or written a part at a time;
// any other goes to the store. A cluster started bare, which runs no
// coordinator, has no files for outputs.
func TestHandoff(t *testing.T) {
	ctx := context.Background()
	b := connect(t, startServer(t), nil)
	c := &Cluster{handoff: newHandoff(b.Objects())}
	h := c.handoff
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sunk := tasks.OutputObject("j2", "out")
	if !c.Sink(sunk, f) {
		t.Fatal("no sink with the handoff")
	}
	for range 2 { // the second time starts it over
		if err := h.Put(ctx, sunk, []byte("whole\n")); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(f.Name()); err != nil || string(got) != "whole\n" {
		t.Errorf("sink holds %q, %v", got, err)
	}
	if _, err := b.Objects().Get(ctx, sunk); err == nil {
		t.Error("an output with a sink is in the object store")
	}
	w, err := h.Create(ctx, sunk)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"one\n", "two\n"} {
		if _, err := io.WriteString(w, line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(f.Name()); err != nil || string(got) != "one\ntwo\n" {
		t.Errorf("sink written a part at a time holds %q, %v", got, err)
	}

	// Forgotten, or never named, an output goes to the store.
	c.Unsink(sunk)
	other := tasks.OutputObject("j3", "out")
	for _, name := range []string{sunk, other} {
		if err := h.Put(ctx, name, []byte("stored\n")); err != nil {
			t.Fatal(err)
		}
		if got, err := b.Objects().Get(ctx, name); err != nil || string(got) != "stored\n" {
			t.Errorf("%s in the store: %q, %v", name, got, err)
		}
	}
	w, err = h.Create(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "in parts\n"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := b.Objects().DownloadTo(ctx, other, w.(interface{ Parts() int }).Parts(), &buf); err != nil || buf.String() != "in parts\n" {
		t.Errorf("%s written a part at a time to the store: %q, %v", other, buf.String(), err)
	}
	if got, err := os.ReadFile(f.Name()); err != nil || string(got) != "one\ntwo\n" {
		t.Errorf("the sink changed once forgotten: %q, %v", got, err)
	}

	bare, err := StartBare(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close(ctx)
	if bare.Sink(sunk, f) {
		t.Error("a cluster started bare took a file for an output")
	}
}

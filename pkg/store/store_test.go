package store

import (
	"fmt"
	"testing"
)

func TestPutVisibleAtOnceAndDurableAfterClose(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := db.Put(fmt.Appendf(nil, "k%04d", i), fmt.Appendf(nil, "v%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// Before any flush, reads see the pending writes.
	v, ok, err := db.Get([]byte("k0007"))
	if err != nil || !ok || string(v) != "v7" {
		t.Fatalf("Get before flush: %q %v %v, want v7", v, ok, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	if err := db.Scan([]byte("k"), func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Errorf("after reopen: %d keys, want 1000", n)
	}
}

func TestSetIfAbsentIsADoneMarker(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, want := range []bool{true, false, false} {
		wrote, err := db.SetIfAbsent([]byte("result/j/t1"), fmt.Appendf(nil, "%d", i))
		if err != nil || wrote != want {
			t.Fatalf("call %d: wrote %v (%v), want %v", i, wrote, err, want)
		}
	}
	v, _, _ := db.Get([]byte("result/j/t1"))
	if string(v) != "0" {
		t.Errorf("value %q, want the first one (0)", v)
	}
	if err := db.DeletePrefix([]byte("result/j/")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.Get([]byte("result/j/t1")); ok {
		t.Error("key survived DeletePrefix")
	}
}

func TestSecondOpenerIsRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db2, err := Open(dir, Options{}); err == nil {
		db2.Close()
		t.Error("a second Open of the same directory succeeded")
	}
}

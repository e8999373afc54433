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
	if ok, err := db.Has([]byte("k0007")); err != nil || !ok {
		t.Fatalf("Has before flush: %v %v, want true", ok, err)
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
	for key, want := range map[string]bool{"k0999": true, "k1000": false} {
		if ok, err := db.Has([]byte(key)); err != nil || ok != want {
			t.Errorf("Has(%s) after reopen: %v %v, want %v", key, ok, err, want)
		}
	}
}

func TestDeletePrefixAlsoDropsPendingWrites(t *testing.T) {
	db, err := Open("", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, k := range []string{"result/j/t1", "result/j/t2", "result/k/t1"} {
		if err := db.Put([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeletePrefix([]byte("result/j/")); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"result/j/t1": false, "result/j/t2": false, "result/k/t1": true} {
		if _, ok, _ := db.Get([]byte(k)); ok != want {
			t.Errorf("%s present %v after DeletePrefix, want %v", k, ok, want)
		}
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

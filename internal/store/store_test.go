package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
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

// expiresAt returns the expiry of key in Badger (0: never), after a flush.
func expiresAt(t *testing.T, db *DB, key string) uint64 {
	t.Helper()
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	var at uint64
	err := db.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(key))
		if err != nil {
			return err
		}
		at = item.ExpiresAt()
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return at
}

// Values written by Put expire after the store's TTL (DefaultTTL unless
// set; never if negative), those written by Keep never; an expired value is
// gone.
func TestPutExpires(t *testing.T) {
	now := uint64(time.Now().Unix())
	for _, c := range []struct {
		ttl      time.Duration
		min, max uint64 // expiry, 0 for never
	}{
		{0, now + uint64(DefaultTTL.Seconds()), now + uint64(DefaultTTL.Seconds()) + 60},
		{time.Hour, now + 3600, now + 3600 + 60},
		{-1, 0, 0},
	} {
		db, err := Open(t.TempDir(), Options{TTL: c.ttl})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Put([]byte("k"), []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := db.Keep([]byte("kept"), []byte("v")); err != nil {
			t.Fatal(err)
		}
		if at := expiresAt(t, db, "k"); at < c.min || at > c.max {
			t.Errorf("TTL %v: expires at %d, want %d to %d", c.ttl, at, c.min, c.max)
		}
		if at := expiresAt(t, db, "kept"); at != 0 {
			t.Errorf("TTL %v: a value kept expires at %d, want never", c.ttl, at)
		}
		db.Close()
	}

	// A TTL under a second expires within the second it was written in.
	db, err := Open(t.TempDir(), Options{TTL: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Put([]byte("gone"), make([]byte, 8<<10)); err != nil { // in the value log
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := db.Get([]byte("gone")); ok || err != nil {
		t.Errorf("Get of an expired value: found %v, err %v; want not found", ok, err)
	}
}

// Fresh writes again a value that would expire within half the TTL, and
// leaves the others as they are.
func TestFreshRenewsValuesAboutToExpire(t *testing.T) {
	db, err := Open(t.TempDir(), Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Written an hour ago with the store's TTL, or by a store with a
	// shorter one: 10 s left.
	if err := db.db.Update(func(txn *badger.Txn) error {
		return txn.SetEntry(badger.NewEntry([]byte("old"), []byte("v")).WithTTL(10 * time.Second))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Put([]byte("new"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := db.Keep([]byte("kept"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	newVersion, keptVersion := version(t, db, "new"), version(t, db, "kept")
	for _, k := range []string{"old", "new", "kept"} {
		if ok, err := db.Fresh([]byte(k)); !ok || err != nil {
			t.Fatalf("Fresh(%s) = %v, %v; want true", k, ok, err)
		}
	}
	if ok, err := db.Fresh([]byte("missing")); ok || err != nil {
		t.Errorf("Fresh(missing) = %v, %v; want false", ok, err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	now := uint64(time.Now().Unix())
	if at := expiresAt(t, db, "old"); at < now+3500 {
		t.Errorf("a value with 10 s left expires at %d after Fresh, want about %d", at, now+3600)
	}
	if v := version(t, db, "new"); v != newVersion {
		t.Errorf("a value with its whole TTL left was written again (version %d, was %d)", v, newVersion)
	}
	if v, at := version(t, db, "kept"), expiresAt(t, db, "kept"); v != keptVersion || at != 0 {
		t.Errorf("a value kept for ever: version %d (was %d), expires at %d after Fresh", v, keptVersion, at)
	}
	if v, ok, err := db.Get([]byte("old")); string(v) != "v" || !ok || err != nil {
		t.Errorf("Get(old) after Fresh = %q, %v, %v", v, ok, err)
	}
}

// version is the version (commit timestamp) of the value under key: it
// changes when the value is written again.
func version(t *testing.T, db *DB, key string) uint64 {
	t.Helper()
	var v uint64
	if err := db.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(key))
		if err == nil {
			v = item.Version()
		}
		return err
	}); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return v
}

// Put keeps a copy of the key and value, which the caller may then reuse;
// PutOwned a copy of the key and the value itself. Both are stored.
func TestPutCopiesAndPutOwnedKeeps(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key, val := []byte("a"), []byte("first")
	if err := db.Put(key, val); err != nil {
		t.Fatal(err)
	}
	key[0], val[0] = 'b', 'F'
	owned := []byte("second")
	if err := db.PutOwned(key, owned); err != nil {
		t.Fatal(err)
	}
	key[0] = 'c'
	for k, want := range map[string]string{"a": "first", "b": "second"} {
		if v, ok, err := db.Get([]byte(k)); err != nil || !ok || string(v) != want {
			t.Errorf("before the flush, %s: %q %v %v, want %q", k, v, ok, err, want)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"a": "first", "b": "second"} {
		if v, ok, err := db.Get([]byte(k)); err != nil || !ok || string(v) != want {
			t.Errorf("after the flush, %s: %q %v %v, want %q", k, v, ok, err, want)
		}
	}
	if ok, _ := db.Has([]byte("c")); ok {
		t.Error("a key changed after PutOwned was stored under its new name")
	}
}

// Writes flushed while another job's results are dropped are kept: Badger
// refuses writes while it drops a prefix, and a batch it refused would be
// lost with its pending entries. (A coordinator lost the cached result of
// a job that finished while the job before it was being forgotten.)
func TestWritesDuringDeletePrefixAreKept(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 300
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if err := db.Put(fmt.Appendf(nil, "result/%d/x", i), []byte("r")); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	writes := make(chan error, 1)
	go func() {
		for i := range n {
			if err := db.Put(fmt.Appendf(nil, "cache/%d", i), []byte("v")); err != nil {
				writes <- err
				return
			}
			if err := db.Flush(); err != nil {
				writes <- err
				return
			}
		}
		writes <- nil
	}()
	for i := range n {
		if err := db.DeletePrefix(fmt.Appendf(nil, "result/%d/", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(<-done, <-writes); err != nil {
		t.Fatalf("writes while prefixes were dropped: %v", err)
	}
	for i := range n {
		if _, ok, err := db.Get(fmt.Appendf(nil, "cache/%d", i)); err != nil || !ok {
			t.Fatalf("cache/%d written while prefixes were dropped: found %v (%v), want it kept", i, ok, err)
		}
	}
}

// Package store is wopr's adapter to Badger: one on-disk key-value store per
// process and directory, used by workers as a persistent result cache and by
// the coordinator for job state (merged task results, done markers).
package store

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// DB is an open Badger database with a write-behind batch for cache writes.
type DB struct {
	db  *badger.DB
	log *slog.Logger

	mu    sync.Mutex
	batch *badger.WriteBatch
	// pending holds the batch's writes until they are flushed, so that Get
	// sees them at once.
	pending map[string][]byte
	// pendingBytes is the size of the keys and values in pending.
	pendingBytes uint64
	ttl          time.Duration // of every Put; 0: forever
	dir          string        // absolute; "" in memory
	stop         chan struct{}
	done         chan struct{}

	// failed is closed, and err set, once the store stops writing
	// because its disk is full (Failed).
	failed chan struct{}
	err    error
}

// DefaultTTL is how long a value written by Put lasts unless Options say
// otherwise. Caches only grow (every puzzle of a corpus job adds its
// result to the coordinator's store), and a result nothing asked for in a
// month is cheaper to compute again than to keep.
const DefaultTTL = 30 * 24 * time.Hour

// gcEvery is how often the value log is compacted: values that expired or
// were deleted take disk space until their file is rewritten.
const gcEvery = 10 * time.Minute

// Options tune a DB.
type Options struct {
	// InMemory keeps everything in memory (tests); Dir is then ignored.
	InMemory bool
	// FlushEvery is how often cached writes are flushed to disk.
	FlushEvery time.Duration
	// TTL is how long a value written by Put lasts: 0 means DefaultTTL, a
	// negative TTL forever.
	TTL time.Duration
	Log *slog.Logger
}

// Open opens (creating if needed) the Badger database in dir. Only one
// process may have a directory open at a time. A directory on a
// filesystem with less than MinFree free is refused with a
// *DiskFullError.
func Open(dir string, o Options) (*DB, error) {
	if !o.InMemory {
		if err := checkSpace(dir, MinFree); err != nil {
			return nil, err
		}
	}
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithBlockCacheSize(32 << 20).
		WithIndexCacheSize(16 << 20).
		WithMemTableSize(32 << 20).
		WithValueLogFileSize(256 << 20).
		// Task results (up to ~100 KB) go to the value log instead of being
		// copied through memtable flushes and compactions: 10% of a corpus
		// job's CPU was spent moving them.
		WithValueThreshold(4 << 10).
		// Cached results are small and short-lived: compressing SSTables
		// cost 5% of a Sudoku corpus job's CPU for little space.
		WithCompression(options.None)
	if o.InMemory {
		opts = opts.WithInMemory(true).WithDir("").WithValueDir("")
	}
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("open badger store %s: %w", dir, oneLine{err})
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = 500 * time.Millisecond
	}
	switch {
	case o.TTL == 0:
		o.TTL = DefaultTTL
	case o.TTL < 0:
		o.TTL = 0
	}
	s := &DB{db: db, log: o.Log, batch: db.NewWriteBatch(), pending: map[string][]byte{}, ttl: o.TTL,
		stop: make(chan struct{}), done: make(chan struct{}), failed: make(chan struct{})}
	if !o.InMemory {
		s.dir, _ = filepath.Abs(dir)
	}
	go s.flushLoop(o.FlushEvery)
	return s, nil
}

// oneLine is an error whose message is err's on one line: some of Badger's
// span two (a daemon that cannot start says why in one line).
type oneLine struct{ err error }

func (e oneLine) Error() string {
	return strings.ReplaceAll(strings.TrimSpace(e.err.Error()), "\n", "; ")
}

func (e oneLine) Unwrap() error { return e.err }

// releaseEvery is how often the pages of the store's mapped files are
// taken out of the process's resident memory (releaseMapped).
const releaseEvery = 2 * time.Second

func (s *DB) flushLoop(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	gc := time.NewTicker(gcEvery)
	defer gc.Stop()
	release := time.NewTicker(releaseEvery)
	defer release.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.Flush(); err != nil && !errors.Is(err, ErrDiskFull) && s.log != nil {
				s.log.Warn("flush cache writes", "err", err)
			}
		case <-gc.C:
			s.collectGarbage()
		case <-release.C:
			releaseMapped(s.dir)
		}
	}
}

// collectGarbage rewrites the value log files that are mostly expired or
// deleted values, one after the other, until none is.
func (s *DB) collectGarbage() {
	for {
		err := s.db.RunValueLogGC(0.5)
		if err == nil {
			continue
		}
		if !errors.Is(err, badger.ErrNoRewrite) && !errors.Is(err, badger.ErrGCInMemoryMode) && s.log != nil {
			s.log.Warn("value log garbage collection", "err", err)
		}
		return
	}
}

// Get returns the value stored under key.
func (s *DB) Get(key []byte) ([]byte, bool, error) {
	s.mu.Lock()
	v, ok := s.pending[string(key)]
	s.mu.Unlock()
	if ok {
		return v, true, nil
	}
	var val []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		val, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("badger get: %w", err)
	}
	return val, true, nil
}

// Has tells whether a value is stored under key, without reading it.
func (s *DB) Has(key []byte) (bool, error) { return s.lookup(key, false) }

// Fresh is Has for a value that must outlive the caller's use of it: a
// value that expires within half the store's TTL is written again, to last
// a whole TTL from now. (A job that takes a task's result from the cache
// reads it back for its report, hours or days later: a result cached 29
// days earlier could otherwise expire in between and fail the report.)
func (s *DB) Fresh(key []byte) (bool, error) { return s.lookup(key, true) }

// lookup is Has, and with renew Fresh.
func (s *DB) lookup(key []byte, renew bool) (bool, error) {
	s.mu.Lock()
	_, ok := s.pending[string(key)]
	s.mu.Unlock()
	if ok {
		return true, nil // just written
	}
	var stale []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		if at := item.ExpiresAt(); renew && at != 0 && (s.ttl == 0 || time.Until(time.Unix(int64(at), 0)) < s.ttl/2) {
			stale, err = item.ValueCopy(nil)
		}
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("badger get: %w", err)
	}
	if stale != nil {
		return true, s.PutOwned(key, stale)
	}
	return true, nil
}

// Put queues a write in the write-behind batch; it reaches disk within
// FlushEvery, or at Flush or Close, and expires after the store's TTL. Use
// it for caches, where losing the last writes in a crash or an expired
// value costs only recomputation.
func (s *DB) Put(key, value []byte) error { return s.put(key, bytes.Clone(value), s.ttl) }

// PutOwned is Put for a value the caller hands over: it is kept as it is
// until written, not copied, and must not change (a task result of 100 KB
// or more, which the coordinator receives in a buffer of its own).
func (s *DB) PutOwned(key, value []byte) error { return s.put(key, value, s.ttl) }

// Keep is Put for a value that never expires (a process's own identity).
func (s *DB) Keep(key, value []byte) error { return s.put(key, bytes.Clone(value), 0) }

// put queues a write of value, which the batch keeps until it is flushed.
func (s *DB) put(key, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	key = bytes.Clone(key) // kept by the batch too
	e := badger.NewEntry(key, value)
	if ttl > 0 {
		e = e.WithTTL(ttl)
	}
	if err := s.batch.SetEntry(e); err != nil {
		return fmt.Errorf("badger batch set: %w", err)
	}
	s.pending[string(key)] = value
	s.pendingBytes += uint64(len(key) + len(value))
	if len(s.pending) >= 10000 {
		return s.flushLocked()
	}
	return nil
}

// Flush writes the pending batch. Once the store's filesystem has less
// than MinFree free, and the batch's size, besides, the batch is dropped,
// the store writes no more, and Flush, Put and Err return a
// *DiskFullError (see Failed).
func (s *DB) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

func (s *DB) flushLocked() error {
	if s.err != nil {
		return s.err
	}
	if s.dir != "" {
		// Checked at every flush, with nothing pending too: Badger's
		// compactions write while the store's owner does not.
		if err := checkSpace(s.dir, MinFree+s.pendingBytes); err != nil {
			s.failLocked(err)
			return err
		}
	}
	if len(s.pending) == 0 {
		return nil
	}
	err := s.batch.Flush()
	s.batch = s.db.NewWriteBatch()
	clear(s.pending)
	s.pendingBytes = 0
	if errors.Is(err, syscall.ENOSPC) {
		s.failLocked(fmt.Errorf("data directory %s: %w: %w", s.dir, ErrDiskFull, oneLine{err}))
	}
	if err != nil {
		return fmt.Errorf("badger batch flush: %w", err)
	}
	return nil
}

// failLocked stops the store's writes with err: the pending batch is
// dropped (its writes are lost, as a crash would lose them), and Failed
// is closed.
func (s *DB) failLocked(err error) {
	if s.err != nil {
		return
	}
	s.err = err
	s.batch.Cancel()
	s.batch = s.db.NewWriteBatch()
	clear(s.pending)
	s.pendingBytes = 0
	close(s.failed)
	if s.log != nil {
		s.log.Error("store stops writing", "err", err)
	}
}

// Failed is closed once the store stops writing because its disk is full
// (Err says why). What it holds can still be read; what is put is lost.
func (s *DB) Failed() <-chan struct{} { return s.failed }

// Err is the error that stopped the store's writes (a *DiskFullError, or
// an error wrapping ErrDiskFull), or nil.
func (s *DB) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Scan calls f for every key with the given prefix, in key order. The slices
// are valid only during the call.
func (s *DB) Scan(prefix []byte, f func(key, value []byte) error) error {
	return s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			item := it.Item()
			err := item.Value(func(v []byte) error { return f(item.Key(), v) })
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Keys calls f for every key with the given prefix, in key order, values
// untouched (cheap: keys live in the LSM tree, values in the value log).
func (s *DB) Keys(prefix []byte, f func(key []byte) error) error {
	if err := s.Flush(); err != nil {
		return err
	}
	return s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if err := f(it.Item().Key()); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeletePrefix removes every key with the given prefix.
func (s *DB) DeletePrefix(prefix []byte) error {
	// Badger refuses every write while it drops a prefix, and a batch it
	// refuses is lost with its pending entries: mu keeps this store's
	// flushes (and so its writers) waiting until the drop is done.
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flushLocked(); err != nil {
		return err
	}
	if err := s.db.DropPrefix(prefix); err != nil {
		return fmt.Errorf("badger drop prefix: %w", err)
	}
	return nil
}

// Close flushes pending writes and closes the database. A store whose
// disk is full (Failed) is left as it is, and Close returns Err: closing
// Badger writes its memtable out as a table, which the disk might not
// back; the next Open reads the memtable back from its log instead.
func (s *DB) Close() error {
	close(s.stop)
	<-s.done
	ferr := s.Flush()
	s.mu.Lock()
	s.batch.Cancel()
	failed := s.err
	s.mu.Unlock()
	if failed != nil {
		return failed
	}
	cerr := s.db.Close()
	return errors.Join(ferr, cerr)
}

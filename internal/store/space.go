package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MinFree is the free space that Open wants on the filesystem of a store's
// directory, and that an open store keeps. Badger writes its files (the
// memtable's log, the value log, new tables) through memory maps of files
// made at their full size but not yet backed: a write to a page that a
// full disk cannot back kills the process with SIGBUS rather than
// returning an error. Badger has no option to write them otherwise, so the
// store refuses to start, or stops writing, before the disk is that full.
// 64 MiB holds a memtable flushed to a table (32 MiB) and a write batch
// with room to spare.
const MinFree = 64 << 20

// ErrDiskFull is the error of a store whose filesystem has less than
// MinFree free (see DiskFullError).
var ErrDiskFull = errors.New("disk full")

// A DiskFullError reports a store's filesystem with too little free space
// to open the store, or to write to it.
type DiskFullError struct {
	Dir  string // the store's directory
	Free uint64 // bytes free on its filesystem
	Want uint64 // bytes wanted
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("data directory %s: %s free on its filesystem, want at least %s (disk full)", e.Dir, mib(e.Free), mib(e.Want))
}

func (e *DiskFullError) Unwrap() error { return ErrDiskFull }

// mib writes n bytes in MiB, with one decimal below 10.
func mib(n uint64) string {
	if n < 10<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// checkSpace returns a *DiskFullError if the filesystem of dir, or of its
// nearest existing parent, has less than want bytes free, and nil if it
// has enough or cannot tell.
func checkSpace(dir string, want uint64) error {
	p := dir
	for {
		free, ok, err := freeSpace(p)
		if err == nil {
			if ok && free < want {
				return &DiskFullError{Dir: dir, Free: free, Want: want}
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

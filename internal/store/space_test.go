//go:build linux

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// smallDisk mounts a tmpfs of size bytes on a new directory and returns
// it. Mounting needs root, which the CI has; elsewhere the test says it
// cannot run, loudly.
func smallDisk(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		if os.Geteuid() != 0 {
			t.Skipf("mount a tmpfs of %d bytes: %v: this test needs root (the CI runs it as root)", size, err)
		}
		t.Fatalf("mount a tmpfs of %d bytes: %v", size, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill takes the free space of dir's filesystem but leave bytes.
func fill(t *testing.T, dir string, leave uint64) {
	t.Helper()
	free, _, err := freeSpace(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), 0, 0, int64(free-leave)); err != nil {
		t.Fatalf("fill %s: %v", dir, err)
	}
}

// A store does not open on a disk with less than MinFree free, and says
// where and how much; an open store whose disk fills stops writing, says
// so through Failed and Err, and is left as it is by Close (Badger would
// write its memtable out through a memory map the disk cannot back, and
// die of SIGBUS).
func TestDiskFull(t *testing.T) {
	t.Run("open", func(t *testing.T) {
		disk := smallDisk(t, 8<<20)
		dir := filepath.Join(disk, "data")
		_, err := Open(dir, Options{})
		var full *DiskFullError
		if !errors.As(err, &full) || !errors.Is(err, ErrDiskFull) || full.Dir != dir || full.Want != MinFree || full.Free > 8<<20 {
			t.Fatalf("Open on a disk of 8 MiB: %v; want a *DiskFullError for %s, under 8 MiB free, want %d", err, dir, MinFree)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "data directory "+dir+": ") || !strings.Contains(msg, "MiB free on its filesystem, want at least 64 MiB (disk full)") {
			t.Errorf("error %q: want it to name the directory, the free space and the 64 MiB wanted", msg)
		}
	})
	t.Run("running", func(t *testing.T) {
		disk := smallDisk(t, MinFree+32<<20)
		db, err := Open(disk, Options{FlushEvery: time.Hour})
		if err != nil {
			t.Fatalf("Open with %d MiB free: %v", (MinFree+32<<20)>>20, err)
		}
		if err := db.Put([]byte("a"), []byte("1")); err != nil {
			t.Fatal(err)
		}
		if err := db.Flush(); err != nil {
			t.Fatalf("Flush with room: %v", err)
		}
		fill(t, disk, MinFree-1<<20)
		db.Put([]byte("b"), []byte("2"))
		if err := db.Flush(); !errors.Is(err, ErrDiskFull) {
			t.Fatalf("Flush on a full disk: %v, want ErrDiskFull", err)
		}
		select {
		case <-db.Failed():
		default:
			t.Error("Failed is not closed after a flush on a full disk")
		}
		if err := db.Put([]byte("c"), []byte("3")); !errors.Is(err, ErrDiskFull) {
			t.Errorf("Put after the disk filled: %v, want ErrDiskFull", err)
		}
		if v, ok, err := db.Get([]byte("a")); err != nil || !ok || string(v) != "1" {
			t.Errorf("Get after the disk filled: %q %v %v, want what was written before", v, ok, err)
		}
		if err := db.Close(); !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), disk) {
			t.Errorf("Close: %v, want the disk full error naming %s", err, disk)
		}
	})
}

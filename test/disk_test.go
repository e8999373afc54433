//go:build linux

package test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/woprlabs/wopr/internal/store"
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

// fillDisk takes the free space of dir's filesystem but leave bytes.
func fillDisk(t *testing.T, dir string, leave int64) {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if free := int64(st.Bavail) * st.Bsize; free > leave {
		if err := unix.Fallocate(int(f.Fd()), 0, 0, free-leave); err != nil {
			t.Fatalf("fill %s: %v", dir, err)
		}
	}
}

// diskFull is the message of a worker whose --data is on a full disk.
func diskFull(dir string) *regexp.Regexp {
	return regexp.MustCompile(`worker: data directory ` + regexp.QuoteMeta(dir) + `: [0-9.]+ MiB free on its filesystem, want at least 64 MiB \(disk full\)`)
}

// A worker restarted on its --data on a full disk (a tmpfs, where Badger
// died of SIGBUS writing its memtable's log through a memory map, exit 2)
// refuses to start, and says where and how much is free, with exit 1.
func TestWorkerStartsOnFullDisk(t *testing.T) {
	runsBinaries(t)
	url := startNATS(t)
	disk := smallDisk(t, 96<<20)
	dir := filepath.Join(disk, "w")
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Put([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fillDisk(t, disk, 4<<10) // a page: for Badger's lock file
	_, err = run(t, "worker", "--nats", url, "--data", dir, "--name", "full")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !diskFull(dir).MatchString(err.Error()) {
		t.Errorf("worker on a full disk: %v; want exit 1 and %q", err, diskFull(dir))
	}
}

// A worker whose disk fills while it runs a job stops, with exit 1 and a
// message that names its directory, rather than die of SIGBUS in Badger's
// writer; the other worker finishes the job, exactly.
func TestWorkerDiskFillsMidJob(t *testing.T) {
	runsBinaries(t)
	want := reference(t)
	url := startNATS(t)
	c := &cluster{url: url, dir: t.TempDir()}
	c.coord = c.startCoordinator(t)
	disk := smallDisk(t, 96<<20) // 64 MiB (the store's margin) and 32
	dir := filepath.Join(disk, "w2")
	c.workers = []*proc{
		start(t, "worker w1", "--nats", url, "--data", filepath.Join(c.dir, "w1"), "--concurrency", "1", "--name", "w1"),
		start(t, "worker w2", "--nats", url, "--data", dir, "--concurrency", "1", "--name", "w2"),
	}
	id := c.submit(t)
	waitDone(t, url, id, 2)
	fillDisk(t, disk, 4<<20)
	w2 := c.workers[1]
	select {
	case <-w2.done:
	case <-time.After(time.Minute):
		t.Fatalf("worker w2 still runs a minute after its disk filled")
	}
	var exit *exec.ExitError
	if !errors.As(w2.err, &exit) || exit.ExitCode() != 1 || !diskFull(dir).MatchString(w2.out.String()) {
		t.Errorf("worker w2 on a full disk: %v; want exit 1 and %q", w2.err, diskFull(dir))
	}
	sameFigures(t, c.report(t, id), want)
}

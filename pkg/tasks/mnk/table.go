package mnk

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
	"github.com/woprlabs/wopr/pkg/engine/mnk/wide"
)

// A pns task of a large game (an 8,8,5 first move) runs for hours, and
// what it has done is in its proof-number table, not in anything
// smaller (pkg/engine/mnk/pns/persist.go). So when a pns task is
// interrupted (the worker stops: a restart, the command interrupted), its
// runner saves the worker process's table in the worker's directory
// (tasks.Env.Dir, under mnk.solve/), and the first task of the same game
// and table size that the worker runs next loads it and goes on from the
// same numbers. The file is removed once loaded: the table in memory is
// then the newer one. While a pns task runs, the table is also saved every
// tableSaveEvery, so that a worker killed without a stop (SIGKILL, a
// crash) loses at most that much. A file that does not load (another
// build's, cut short, or changed: its SHA-256) is removed and the task
// starts afresh, which is always right.

// tableSaveEvery is how often the table of a running pns task is saved,
// and minSaveGap the least time between two saves (the slots of a
// stopping worker are interrupted together: the first saves). Variables,
// for the tests.
var (
	tableSaveEvery = 30 * time.Minute
	minSaveGap     = time.Minute
)

// tablePath is where the table of game g of ttMB megabytes is saved in
// dir: "" without a directory, and the functions below then do nothing.
func tablePath(dir string, g *mnk.Game, ttMB int) string {
	return tableFileName(dir, "pns-%dx%dk%d-%dmb.table", g.Rows, g.Cols, g.K, ttMB)
}

// wideTablePath is tablePath for a board past 8x8 (solve_wide.go).
func wideTablePath(dir string, g *wide.Game, ttMB int) string {
	return tableFileName(dir, "pns-wide-%dx%dk%d-%dmb.table", g.Rows, g.Cols, g.K, ttMB)
}

// tableFileName is the file named by format and args in dir, or "".
func tableFileName(dir, format string, args ...any) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf(format, args...))
}

// tableFile is a proof-number table that saves and loads itself: package
// pns's, or package wide/pns's.
type tableFile interface {
	io.WriterTo
	io.ReaderFrom
}

// partTablePath is where the table of the certificate part from pos
// (certificate.go), of ttMB megabytes, is saved: each part has a table of
// its own.
func partTablePath(dir string, g *mnk.Game, ttMB int, pos mnk.Position) string {
	return tableFileName(dir, "pns-%dx%dk%d-%dmb-part-%x-%x.table", g.Rows, g.Cols, g.K, ttMB, pos.X, pos.O)
}

// loadTableFile loads into t, new, the table saved at path, if there is
// one, removes the file, and reports whether it loaded.
func loadTableFile(t tableFile, path string) bool {
	if path == "" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer os.Remove(path)
	defer f.Close()
	_, err = t.ReadFrom(f) // on an error the table is left empty
	return err == nil
}

// saveFileEvery saves t, the process's table, to path every
// tableSaveEvery until the returned function is called; with path "", it
// does nothing.
func (s *solveTables) saveFileEvery(t tableFile, path string) func() {
	if path == "" {
		return func() {}
	}
	return every(tableSaveEvery, func() { s.saveFile(t, path) })
}

// every calls f every period, on a goroutine of its own, until the
// returned function is first called, which waits for a call under way.
func every(period time.Duration, f func()) func() {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-exited }) }
}

// saveFile writes t, the process's table (package pns's or package
// wide/pns's), to path ("": nowhere), unless it is no longer the
// process's table or was saved or loaded within minSaveGap. Solvers of the
// table may still be searching (pns.Table.WriteTo). A table that cannot be
// written is left out: the task starts afresh next time.
func (s *solveTables) saveFile(t tableFile, path string) {
	if path == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	current := s.proof != nil && tableFile(s.proof) == t || s.wide != nil && tableFile(s.wide) == t
	if !current || time.Since(s.savedAt) < minSaveGap {
		return
	}
	s.savedAt = time.Now()
	saveTable(t, path)
}

// savePartEvery saves t, the table of a certificate part, to path every
// tableSaveEvery until the returned function is first called, which waits
// for a save under way; with path "", it does nothing.
func savePartEvery(t *pns.Table, path string) func() {
	if path == "" {
		return func() {}
	}
	return every(tableSaveEvery, func() {
		if saveTable(t, path) && partSaved != nil {
			partSaved(path)
		}
	})
}

// saveTable writes t to path, or, if it cannot, removes what is there (a
// task then starts afresh), and reports whether it wrote it.
func saveTable(t tableFile, path string) bool {
	if err := writeTable(t, path); err != nil {
		_ = os.Remove(path)
		return false
	}
	return true
}

// partSaved, if set, is called after each save of a part's table while
// the part runs: for the tests.
var partSaved func(path string)

// writeTable writes t to path through a temporary file, renamed into
// place once complete.
func writeTable(t tableFile, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = t.WriteTo(f)
	err = errors.Join(err, f.Sync(), f.Close())
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

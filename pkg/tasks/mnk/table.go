package mnk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/woprlabs/wopr/pkg/engine/mnk"
	"github.com/woprlabs/wopr/pkg/engine/mnk/pns"
)

// A pns task of a large game (an 8,8,5 first move) runs for hours, and
// what it has done is in its proof-number table, not in anything
// smaller (pkg/engine/mnk/pns/persist.go). So when a pns task is
// interrupted (the worker stops: a restart, the command interrupted), its
// runner saves the worker process's table in the worker's directory
// (tasks.Env.Dir, under mnk.solve/), and the first task of the same game
// and table size that the worker runs next loads it and goes on from the
// same numbers. The file is removed once loaded: the table in memory is
// then the newer one, and it is saved again at the next interruption. A
// file that does not load (another build's, cut short by a crash, or
// changed: its SHA-256) is removed and the task starts afresh, which is
// always right. A worker killed without a stop (SIGKILL, a crash) saves
// nothing: its tasks start again from their roots.

// tablePath is where the table of game g of ttMB megabytes is saved.
func tablePath(dir string, g *mnk.Game, ttMB int) string {
	return filepath.Join(dir, fmt.Sprintf("pns-%dx%dk%d-%dmb.table", g.Rows, g.Cols, g.K, ttMB))
}

// loadTable loads into t, new, the table saved in dir for its game and
// size, if there is one, and removes the file.
func loadTable(t *pns.Table, dir string, g *mnk.Game, ttMB int) {
	if dir == "" {
		return
	}
	path := tablePath(dir, g, ttMB)
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer os.Remove(path)
	defer f.Close()
	_, _ = t.ReadFrom(f) // on an error the table is left empty
}

// save writes proof, the process's table of g, to dir, if it changed
// since it was loaded or last saved (the slots of a stopping worker are
// interrupted together, and the first saves it). Solvers of the table may
// still be searching (pns.Table.WriteTo). A table that cannot be written
// is left out: the task starts afresh next time.
func (s *solveTables) save(proof *pns.Table, dir string, g *mnk.Game, ttMB int) {
	if dir == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proof != proof || !s.unsaved {
		return
	}
	s.unsaved = false
	if err := writeTable(proof, tablePath(dir, g, ttMB)); err != nil {
		_ = os.Remove(tablePath(dir, g, ttMB))
	}
}

// writeTable writes t to path through a temporary file, renamed into
// place once complete.
func writeTable(t *pns.Table, path string) error {
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

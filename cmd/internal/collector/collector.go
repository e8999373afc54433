// Package collector tunes Go's garbage collector for wopr's processes.
package collector

import (
	"os"
	"runtime/debug"
)

// Percent is the GOGC that wopr's processes run with: a collection when
// the heap has grown by a quarter since the last one, instead of doubling.
//
// A wopr process's heap is mostly large byte buffers that the collector
// does not scan (job inputs, task payloads and results, lines of outputs,
// Badger's memtable arenas), so a collection costs little: 17 of them took
// 24 ms of CPU in a job of a million Sudoku puzzles (5 took 4 ms at the
// default 100). Letting the heap double instead means that every page of
// the growth is a new one that the kernel must fault in and zero: that job
// peaked at 680 MB at GOGC 100 and 395 MB at 25, with about 0.15 s of
// system time less, and ran 5% faster (median of 4 runs each, alternated).
// An mnk count of 4x4 runs as fast either way.
const Percent = 25

// Tune sets the collector's percent to Percent, unless GOGC is set in the
// environment (the user's choice stands).
func Tune() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
}

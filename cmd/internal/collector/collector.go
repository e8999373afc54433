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
// Badger's memtable arenas), so a collection costs little, even three times
// as many of them. Letting the heap double instead means that every page
// of the growth is a new one that the kernel must fault in and zero, so a
// corpus job's peak memory and system time grow with it. The figures, and
// the command that takes them: docs/benchmarks.md, "GC tuning".
const Percent = 25

// Tune sets the collector's percent to Percent, unless GOGC is set in the
// environment (the user's choice stands).
func Tune() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
}

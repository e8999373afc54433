//go:build unix

// Package cputime measures the CPU time of this process, for benchmarks on
// a shared machine: it varies less than the wall clock with what other
// processes do, as long as the benchmark is what runs in the process.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user and system) this process has used.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build !unix

package infile_test

import "time"

// cpuTime is not measured here: the CPU figures are left out.
func cpuTime() time.Duration { return 0 }

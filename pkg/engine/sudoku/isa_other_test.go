//go:build !amd64 || purego

package sudoku

import (
	"fmt"
	"os"
	"testing"
)

// requireAsm skips t: this build has no assembly (amd64 builds without the
// purego tag have it).
func requireAsm(t testing.TB, path string) {
	t.Helper()
	t.Skipf("the %s assembly is built for amd64 without -tags purego only: nothing to compare with the Go", path)
}

// reportAsmPaths says, after the package's tests, that this build runs the
// Go alone.
func reportAsmPaths(code int) int {
	fmt.Fprintln(os.Stderr, "sudoku assembly paths: none in this build (not amd64, or -tags purego): the Go alone ran")
	return code
}

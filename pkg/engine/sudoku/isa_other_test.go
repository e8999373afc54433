//go:build !amd64 || purego

package sudoku

import "testing"

// requireAsm skips t: this build has no assembly (amd64 builds without the
// purego tag have it).
func requireAsm(t testing.TB, path string) {
	t.Helper()
	t.Skipf("the %s assembly is built for amd64 without -tags purego only: nothing to compare with the Go", path)
}

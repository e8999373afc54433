package sudoku

import (
	"os"
	"testing"
)

// TestMain runs the tests, then reports which assembly paths ran and were
// compared with the Go (reportAsmPaths), failing a whole run in which a
// path that production takes here was not.
func TestMain(m *testing.M) {
	os.Exit(reportAsmPaths(m.Run()))
}

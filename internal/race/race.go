// Package race says whether the binary was built with the race detector,
// for the tests that it changes.
package race

import "testing"

// Skip skips t, saying why, when the binary was built with -race.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip("-race: " + why)
	}
}

// SkipSerial skips t when the binary was built with -race. Call it at the
// start of a test that runs on one goroutine and shares nothing with
// another (an engine's agreement over many positions, say): the race
// detector has nothing to find there, and makes the test ten to thirty
// times slower. The same test runs in the build without -race, which CI
// runs first.
func SkipSerial(t testing.TB) {
	t.Helper()
	Skip(t, "this test runs on one goroutine, where the race detector has nothing to find; the build without -race runs it")
}

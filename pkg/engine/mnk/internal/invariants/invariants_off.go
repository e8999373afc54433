//go:build !invariants

// Package invariants turns the engines' self-checks on: Enabled is true
// under the invariants build tag (go test -tags invariants), so that the
// checks cost nothing otherwise.
package invariants

// Enabled turns on the self-checks of the solvers (go test -tags
// invariants).
const Enabled = false

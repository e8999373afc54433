// Package invariants turns the engines' self-checks on: Enabled is true
// under the invariants build tag (go test -tags invariants), so that the
// checks cost nothing otherwise.
package invariants

//go:build invariants

package mnk

// invariants turns on the solver's self-checks (go test -tags invariants).
const invariants = true

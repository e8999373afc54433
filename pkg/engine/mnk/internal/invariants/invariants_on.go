//go:build invariants

package invariants

// Enabled turns on the self-checks of the solvers (go test -tags
// invariants).
const Enabled = true

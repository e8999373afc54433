//go:build !invariants

package invariants

// Enabled says whether the engines' self-checks run: not without the
// invariants build tag.
const Enabled = false

//go:build invariants

package invariants

// Enabled says whether the engines' self-checks run: they do under the
// invariants build tag.
const Enabled = true

//go:build !invariants

package mnk

const invariants = false

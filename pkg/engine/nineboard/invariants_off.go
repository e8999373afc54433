//go:build !invariants

package nineboard

const invariants = false

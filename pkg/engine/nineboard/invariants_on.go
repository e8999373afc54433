//go:build invariants

package nineboard

// invariants turns on self-checks in Make and Unmake (go test -tags invariants).
const invariants = true

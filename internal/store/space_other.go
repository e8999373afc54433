//go:build !unix

package store

// freeSpace cannot tell the free space where the system is not Unix.
func freeSpace(string) (free uint64, ok bool, err error) { return 0, false, nil }

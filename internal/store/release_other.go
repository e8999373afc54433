//go:build !linux

package store

// releaseMapped does nothing where the kernel is not Linux (see
// release_linux.go).
func releaseMapped(string) {}

//go:build unix

package store

import "golang.org/x/sys/unix"

// freeSpace returns the bytes free to an unprivileged user on the
// filesystem of path.
func freeSpace(path string) (free uint64, ok bool, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, false, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true, nil
}

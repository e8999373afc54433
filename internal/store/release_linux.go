package store

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// releaseMapped takes the pages of the store's memory-mapped files out of
// this process's resident memory. Badger maps its value log and tables
// with MAP_SHARED and writes the value log through the map, so every page
// it ever wrote or read stays counted as the process's own until the
// kernel needs the memory: a coordinator's resident memory would grow with
// every result a corpus job caches, though nothing holds them. MADV_DONTNEED on a shared
// file mapping only unmaps the pages: they stay in the page cache, dirty
// ones are written back as before, and a later access maps them again
// with the file's contents. Private mappings, whose pages it would
// discard, are left alone.
func releaseMapped(dir string) {
	if dir == "" {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasSuffix(fields[1], "s") || !strings.HasPrefix(fields[5], prefix) {
			continue
		}
		if ext := filepath.Ext(fields[5]); ext != ".vlog" && ext != ".sst" {
			continue
		}
		start, end, ok := strings.Cut(fields[0], "-")
		lo, err1 := strconv.ParseUint(start, 16, 64)
		hi, err2 := strconv.ParseUint(end, 16, 64)
		if !ok || err1 != nil || err2 != nil || hi <= lo {
			continue
		}
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(lo), uintptr(hi-lo), syscall.MADV_DONTNEED)
	}
}

package forward

import (
	"syscall"
	"unsafe"
)

// newSlots returns n zeroed slots mapped from the kernel for the tables of
// more than 2 MiB, advised to use huge pages, else from the Go heap. The
// table is probed at random, one TLB miss a probe with 4 KiB pages: huge
// pages cut the CPU time of 4x4 k=4 (tables of 128 MiB) from 5.2 s to
// 4.1 s. Mapped slots are
// returned at once by freeSlots, where the collector would keep a dropped
// slice until the heap doubled, gigabytes on large boards.
func newSlots(n int) []slot {
	size := n * int(unsafe.Sizeof(slot{}))
	if size <= 2<<20 {
		return make([]slot, n)
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]slot, n)
	}
	// Only advice: without transparent huge pages the table works the
	// same, slower.
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return unsafe.Slice((*slot)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// freeSlots returns the slots of newSlots.
func freeSlots(s []slot) {
	size := len(s) * int(unsafe.Sizeof(slot{}))
	if size <= 2<<20 {
		return
	}
	_ = syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size))
}

//go:build unix

package check

import "syscall"

// mapBlock maps size bytes of zeroed memory, or returns nil (the caller
// then allocates on the heap). populate maps every page at once, for a
// block the caller writes all over (the lookup table): one system call
// instead of a fault per page.
func mapBlock(size int, populate bool) []byte {
	flags := syscall.MAP_ANON | syscall.MAP_PRIVATE
	if populate {
		flags |= mapPopulate
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		return nil
	}
	return b
}

func unmapBlock(b []byte) { _ = syscall.Munmap(b) }

//go:build unix

package check

import "syscall"

// mapBlock maps size bytes of zeroed memory, or returns nil (the caller
// then allocates on the heap).
func mapBlock(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

func unmapBlock(b []byte) { _ = syscall.Munmap(b) }

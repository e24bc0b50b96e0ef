//go:build unix

package fsx

import "syscall"

// openNonblock opens a FIFO without waiting for a writer.
const openNonblock = syscall.O_NONBLOCK

//go:build unix

package machine

import "syscall"

// openNonblock opens a FIFO without waiting for a writer.
const openNonblock = syscall.O_NONBLOCK

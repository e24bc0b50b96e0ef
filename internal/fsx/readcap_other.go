//go:build !unix

package fsx

// openNonblock: elsewhere a FIFO is refused once opened.
const openNonblock = 0

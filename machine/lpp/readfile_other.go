//go:build !unix

package lpp

// openNonblock: elsewhere a FIFO is refused once opened.
const openNonblock = 0

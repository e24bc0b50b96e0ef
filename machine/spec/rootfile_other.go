//go:build !unix

package spec

// openNonblock is 0 where there are no FIFOs to wait on.
const openNonblock = 0

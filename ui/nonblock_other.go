//go:build !unix

package ui

// openNonblock: no FIFOs to wait on here.
const openNonblock = 0

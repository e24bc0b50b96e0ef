package main

import "golang.org/x/sys/unix"

// exchange swaps two folders in one step (renameat2 RENAME_EXCHANGE): a
// reader sees the old one or the new one, never neither.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

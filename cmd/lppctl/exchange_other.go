//go:build !linux

package main

import "os"

// exchange swaps two folders: b is moved aside, a put in its place, and the
// old one ends at a. Not one step: a crash in between leaves b missing
// (its old content at a's path ending .old).
func exchange(a, b string) error {
	old := a + ".old"
	if err := os.Rename(b, old); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		_ = os.Rename(old, b)
		return err
	}
	return os.Rename(old, a)
}

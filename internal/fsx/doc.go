// Package fsx holds the file-system primitives that must exist once in the
// tree: an atomic file replacement (temporary file, fsync, rename, directory
// fsync) and advisory locks (flock). It is a leaf: it imports nothing of the
// project, so that machine/runstore and skills, which may not import each
// other, share it.
package fsx

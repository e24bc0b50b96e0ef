// Package fsx holds the file-system primitives that must exist once in the
// tree: an atomic file replacement (temporary file, fsync, rename, directory
// fsync), advisory locks (flock) and a read of a file of bounded size that
// refuses what is not a regular file (ReadFile: specs, blueprints, values
// given by file, with their --max-bytes), and the check of a relative path
// that stays inside its folder (CleanRel: spec.sandbox's paths, an
// example's input files). It is a leaf: it imports nothing of the
// project, so that machine/runstore and skills, which may not import each
// other, share it.
package fsx

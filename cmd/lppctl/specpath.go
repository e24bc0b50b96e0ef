package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// specRootHint adds to err, the error reading the spec at path, where the
// file is when path, read from the current folder as every command reads
// a spec, names nothing there but names a file of the project root (given
// with --root, or found above a subfolder): lppctl run --root DIR
// specs/x.yaml from outside DIR, lppctl validate specs/x.yaml from
// DIR/specs. Any other error is returned as it is.
func specRootHint(err error, path, root string) error {
	if err == nil || !errors.Is(err, fs.ErrNotExist) || filepath.IsAbs(path) {
		return err
	}
	if root == "" {
		root = findProjectRoot(".")
	}
	there := filepath.Join(root, path)
	if fi, serr := os.Stat(there); serr != nil || fi.IsDir() || sameFile(there, path) {
		return err
	}
	return fmt.Errorf("%w; a spec path is read from the current folder, not from the project root %s: give %s", err, root, there)
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// specProjectHint says, for a spec found invalid with root as its project
// root, which project the spec lies in when root is not a project (it
// holds no config/tools_config.yaml) and a folder above the spec is: a
// spec named by its path from outside its project, without --root, reads
// its scripts and policy from the wrong folder. "" otherwise.
func specProjectHint(path, root string) string {
	if root == "" {
		root = "."
	}
	if fi, err := os.Stat(filepath.Join(root, projectMarker)); err == nil && !fi.IsDir() {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	proj := findProjectRoot(filepath.Dir(abs))
	if fi, err := os.Stat(filepath.Join(proj, projectMarker)); err != nil || fi.IsDir() {
		return ""
	}
	shown, err := filepath.Abs(root)
	if err != nil {
		shown = root
	}
	return fmt.Sprintf("the project root is %s, which holds no %s; the spec lies in the project %s: run from there or give --root %s", shown, projectMarker, proj, proj)
}

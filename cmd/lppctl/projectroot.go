package main

import (
	"os"
	"path/filepath"
)

// projectMarker is the file that makes a folder an lppctl project root:
// the gateway policy every agent run needs.
var projectMarker = filepath.Join("config", "tools_config.yaml")

// findProjectRoot returns the project root for a run started in dir, as
// git finds its repository: dir or the nearest folder above it that holds
// config/tools_config.yaml. With none up to the file system's root, it is
// dir itself (and the run says that the policy is missing).
func findProjectRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; {
		if fi, err := os.Stat(filepath.Join(d, projectMarker)); err == nil && !fi.IsDir() {
			if d == abs {
				return dir
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

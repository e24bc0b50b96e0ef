package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/urfave/cli/v2"
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

// projectRootFlag is the project root of a command that reads a spec as
// run would (validate, ui): --root when given, else the root run finds
// (findProjectRoot of the current directory); "" when that is the current
// directory itself, which the commands take as their default.
func projectRootFlag(c *cli.Context) string {
	if root := c.String("root"); root != "" {
		return root
	}
	if root := findProjectRoot("."); root != "." {
		return root
	}
	return ""
}

// specShown is how run.json names a run's spec for runs and runs show: as
// given, or, for a run kept in the runs of a project (ROOT/.lppctl/runs)
// started elsewhere than ROOT (a subfolder, --root), relative to ROOT, so
// that the name reads right where the project's runs are listed
// (specs/wait.yaml, not ../wait.yaml nor wait.yaml). A spec outside ROOT,
// or named by an absolute path, keeps the name given.
func specShown(store *runstore.Store, path, abs string) string {
	dir := filepath.ToSlash(filepath.Clean(store.Dir))
	if filepath.IsAbs(path) || (dir != runstore.DefaultDir && !strings.HasSuffix(dir, "/"+runstore.DefaultDir)) {
		return path
	}
	root, err := filepath.Abs(filepath.Join(store.Dir, "..", ".."))
	if err != nil {
		return path
	}
	if cwd, err := os.Getwd(); err != nil || cwd == root {
		return path
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// resumedSpecPath is the path a resumed run reads its spec from, as its
// diagnostics and errors name it: abs relative to the current folder when
// the file is in it or below it (specs/job.yaml from the project root,
// job.yaml from specs/), as run names a spec given that way; abs itself
// when the run was started with an absolute path or the file lies
// elsewhere. Either reads the same file.
func resumedSpecPath(given, abs string) string {
	if abs == "" || filepath.IsAbs(given) {
		return abs
	}
	cwd, err := os.Getwd()
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(cwd, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return abs
	}
	return rel
}

// storeNotWritable adds to an error creating a run in store how to go on
// when the folder cannot be written (a read-only checkout or disk, a
// folder of another user): keep the runs elsewhere.
func storeNotWritable(store *runstore.Store, err error) error {
	if !errors.Is(err, syscall.EROFS) && !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return fmt.Errorf("%w: %s cannot be written; keep the runs in a folder that can with --run-dir DIR or LPPCTL_RUN_DIR=DIR", err, store.Dir)
}

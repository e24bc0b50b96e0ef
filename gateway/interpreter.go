package gateway

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// resolvedInterpreters caches, per process, the real executable behind an
// interpreter path as seen from a project root: every gateway of a run (and
// of the tests) resolves a wrapper once.
var resolvedInterpreters sync.Map // interpreterKey -> string

type interpreterKey struct{ python, root string }

// resolveInterpreter replaces the interpreter path with the real executable
// when it is a wrapper (a pyenv shim is a shell script), so scripts start
// without a shell in between. It reads the answer from the file system where
// it can (a binary reached through symbolic links; a pyenv shim and the
// version files pyenv itself reads) and only otherwise asks the interpreter
// (`python3 -c 'import sys; print(sys.executable)'`, ≈ 0.1–0.3 s through a
// shim). On any failure the looked-up path is kept.
func (g *Gateway) resolveInterpreter() {
	key := interpreterKey{g.python, g.rootPath}
	if real, ok := resolvedInterpreters.Load(key); ok {
		g.python = real.(string)
		return
	}
	real, ok := "", false
	if !g.pyenvConfigured() {
		real, ok = interpreterFromFiles(g.python, g.rootPath)
	}
	if !ok {
		real, ok = g.interpreterFromPython()
	}
	if ok {
		resolvedInterpreters.Store(key, real)
		g.python = real
	}
}

// pyenvConfigured reports whether scripts inherit a PYENV_* variable
// (PYENV_VERSION, PYENV_DIR ...), which the file-based resolution ignores.
func (g *Gateway) pyenvConfigured() bool {
	for _, k := range g.policy.Runner.Env.Inherit {
		if _, set := os.LookupEnv(k); set && strings.HasPrefix(k, "PYENV") {
			return true
		}
	}
	return false
}

// interpreterFromFiles resolves python without running anything: a binary
// (not a "#!" script) after following symbolic links is the interpreter
// itself; a pyenv shim runs $PYENV_ROOT/versions/<version>/bin/<name> for the
// first version named by root's .python-version (or a parent's) or by
// $PYENV_ROOT/version. The gateway's minimal environment carries no
// PYENV_VERSION, so the shim would not see one either.
func interpreterFromFiles(python, root string) (string, bool) {
	real, err := filepath.EvalSymlinks(python)
	if err != nil {
		return "", false
	}
	head, isScript := scriptHead(real)
	if head == nil {
		return "", false
	}
	if !isScript {
		return absRegular(real)
	}
	pyenvRoot, ok := pyenvShim(head, python)
	if !ok {
		return "", false
	}
	versions := pyenvVersions(root, pyenvRoot)
	for _, v := range versions {
		if v == "system" {
			return "", false // pyenv looks along PATH without its shims: leave it to pyenv
		}
		dir := filepath.Join(pyenvRoot, "versions", v)
		if !strings.HasPrefix(dir, filepath.Join(pyenvRoot, "versions")+string(filepath.Separator)) {
			continue // a version such as "../x" (pyenv ignores those too)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", false // not installed, or a prefix such as "3.12" pyenv resolves itself
		}
		cand := filepath.Join(dir, "bin", filepath.Base(python))
		r, err := filepath.EvalSymlinks(cand)
		if err != nil {
			continue // pyenv tries the next version that has this program
		}
		if _, script := scriptHead(r); script {
			return "", false
		}
		return absRegular(r)
	}
	return "", false
}

// scriptHead returns the first 4 KiB of the file at p and whether it starts
// with "#!"; head is nil when p cannot be read.
func scriptHead(p string) (head []byte, isScript bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	buf = buf[:n]
	return buf, bytes.HasPrefix(buf, []byte("#!"))
}

// absRegular returns p when it is an absolute path to a regular file.
func absRegular(p string) (string, bool) {
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && filepath.IsAbs(p) {
		return p, true
	}
	return "", false
}

var pyenvRootLine = regexp.MustCompile(`(?m)^export PYENV_ROOT="([^"$` + "`" + `\\]+)"$`)

// pyenvShim reports whether the script head is a pyenv shim and returns the
// PYENV_ROOT it exports (or, failing that, the directory above the shims).
func pyenvShim(head []byte, shim string) (string, bool) {
	if !bytes.Contains(head, []byte(`/libexec/pyenv" exec "$program"`)) {
		return "", false
	}
	if m := pyenvRootLine.FindSubmatch(head); m != nil {
		return string(m[1]), true
	}
	return filepath.Dir(filepath.Dir(shim)), true
}

// pyenvVersions returns the versions pyenv would try, in order: from the
// nearest .python-version at or above root, else from $PYENV_ROOT/version,
// else "system".
func pyenvVersions(root, pyenvRoot string) []string {
	for dir := root; ; dir = filepath.Dir(dir) {
		if vs := readVersionFile(filepath.Join(dir, ".python-version")); len(vs) > 0 {
			return vs
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if vs := readVersionFile(filepath.Join(pyenvRoot, "version")); len(vs) > 0 {
		return vs
	}
	return []string{"system"}
}

// readVersionFile reads a pyenv version file: the first word of each line,
// blank lines and # comments skipped.
func readVersionFile(p string) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < 16 {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		out = append(out, fields[0])
	}
	return out
}

// interpreterFromPython asks the interpreter for its real executable, in the
// environment and directory scripts get.
func (g *Gateway) interpreterFromPython() (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.python, "-c", "import sys; print(sys.executable)")
	cmd.Dir = g.rootPath
	cmd.Env = g.environ("", nil, false)
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	return absRegular(strings.TrimSpace(string(out)))
}

// noPython says why no script can run when the interpreter was not found
// at the start, and what to install.
func (g *Gateway) noPython() string {
	const install = "install Python 3 (Debian, Ubuntu: apt-get install python3; macOS: brew install python3; or python.org), or name another interpreter with safe_py_runner.python in the policy"
	if errors.Is(g.pythonErr, exec.ErrNotFound) && !strings.ContainsRune(g.python, filepath.Separator) && !strings.ContainsRune(g.python, '/') {
		return fmt.Sprintf("the Python interpreter %q is not on PATH: %s", g.python, install)
	}
	return fmt.Sprintf("the Python interpreter %q cannot be run (%v): %s", g.python, g.pythonErr, install)
}

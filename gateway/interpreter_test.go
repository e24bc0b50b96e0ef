package gateway

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakePyenv builds a pyenv tree whose versions link to the real python3, and
// a shim like pyenv's that leaves a marker file behind whenever it runs.
// It returns the shim's path, PYENV_ROOT and the real interpreter.
func fakePyenv(t *testing.T, versions ...string) (shim, pyenvRoot, real, marker string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not available")
	}
	// The real binary behind whatever python3 is here (maybe itself a shim).
	g := &Gateway{python: py, rootPath: t.TempDir(), policy: &Policy{}}
	real, ok := g.interpreterFromPython()
	if !ok {
		t.Skip("cannot find the real python3")
	}
	pyenvRoot = filepath.Join(t.TempDir(), "pyenv")
	marker = filepath.Join(t.TempDir(), "shim-ran")
	for _, v := range versions {
		bin := filepath.Join(pyenvRoot, "versions", v, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(bin, "python3")); err != nil {
			t.Fatal(err)
		}
	}
	shim = filepath.Join(pyenvRoot, "shims", "python3")
	os.MkdirAll(filepath.Dir(shim), 0o755)
	text := `#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="${0##*/}"

export PYENV_ROOT="` + pyenvRoot + `"
: > "` + marker + `"
exec "` + real + `" "$@"
exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"
`
	if err := os.WriteFile(shim, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	if real, err = filepath.EvalSymlinks(real); err != nil {
		t.Fatal(err)
	}
	return shim, pyenvRoot, real, marker
}

func TestInterpreterFromFilesFollowsPyenvWithoutRunningIt(t *testing.T) {
	shim, pyenvRoot, real, _ := fakePyenv(t, "3.99.0", "2.7.1")
	os.Remove(filepath.Join(pyenvRoot, "versions", "2.7.1", "bin", "python3")) // like python 2: no python3
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name         string
		projectFile  string // .python-version in the project root ("" for none)
		parentFile   string // .python-version one directory up
		globalFile   string // $PYENV_ROOT/version
		want         string // "" when the files cannot tell
		wantResolved bool
	}{
		{"the project's .python-version", "3.99.0\n", "", "", real, true},
		{"comments and blank lines are skipped", "# pinned\n\n3.99.0\n", "", "", real, true},
		{"the next version that has the program", "2.7.1\n3.99.0\n", "", "", real, true},
		{"a parent directory's .python-version", "", "3.99.0", "", real, true},
		{"pyenv's global version file", "", "", "3.99.0\n", real, true},
		{"system is left to pyenv", "system\n", "", "", "", false},
		{"a version that is not installed is left to pyenv", "3.12\n", "", "3.99.0", "", false},
		{"a version climbing out is ignored", "../../x\n", "", "", "", false},
		{"no version file at all means system", "", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			root := filepath.Join(parent, "project")
			os.Mkdir(root, 0o755)
			os.Remove(filepath.Join(pyenvRoot, "version"))
			if tt.projectFile != "" {
				write(filepath.Join(root, ".python-version"), tt.projectFile)
			}
			if tt.parentFile != "" {
				write(filepath.Join(parent, ".python-version"), tt.parentFile)
			}
			if tt.globalFile != "" {
				write(filepath.Join(pyenvRoot, "version"), tt.globalFile)
			}
			got, ok := interpreterFromFiles(shim, root)
			if ok != tt.wantResolved || got != tt.want {
				t.Errorf("interpreterFromFiles = %q, %v; want %q, %v", got, ok, tt.want, tt.wantResolved)
			}
		})
	}
}

func TestInterpreterFromFilesFollowsLinksToABinary(t *testing.T) {
	_, _, real, _ := fakePyenv(t)
	link := filepath.Join(t.TempDir(), "python3")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if got, ok := interpreterFromFiles(link, t.TempDir()); !ok || got != real {
		t.Errorf("interpreterFromFiles = %q, %v; want %q", got, ok, real)
	}
	// A script that is no pyenv shim is not guessed at.
	other := filepath.Join(t.TempDir(), "python3")
	os.WriteFile(other, []byte("#!/bin/sh\nexec python3 \"$@\"\n"), 0o755)
	if got, ok := interpreterFromFiles(other, t.TempDir()); ok {
		t.Errorf("a wrapper script resolved to %q", got)
	}
}

// The gateway runs scripts with the interpreter behind a pyenv shim without
// starting the shim (nor Python) to find it, and resolves it once per process.
func TestRunnerResolvesAPyenvShimWithoutStartingIt(t *testing.T) {
	shim, _, real, marker := fakePyenv(t, "3.99.0")
	sb := newSandbox(t)
	sb.write(t, ".python-version", "3.99.0\n")
	sb.write(t, "scripts/which.py", "import sys\nprint(sys.executable)\n")
	for i := range 2 {
		g, err := New(sb.root, sb.g.policy, WithPython(shim))
		if err != nil {
			t.Fatal(err)
		}
		res := g.Call(t.Context(), ToolRunner, map[string]any{"script_name": "scripts/which.py"})
		g.Close()
		if res.Decision != DecisionAllow || g.python != real {
			t.Fatalf("call %d: %+v; interpreter %q, want %q", i, res, g.python, real)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("call %d: the shim ran to find the interpreter", i)
		}
	}
	if v, ok := resolvedInterpreters.Load(interpreterKey{shim, sb.root}); !ok || v != real {
		t.Errorf("cache holds %v, %v", v, ok)
	}
}

// Without the interpreter, a script call says in one line what is missing
// and what to install (before: "the Python interpreter "python3" is not
// available: exec: "python3": executable file not found in $PATH").
func TestAMissingPythonSaysWhatToInstall(t *testing.T) {
	const install = "install Python 3 (Debian, Ubuntu: apt-get install python3; macOS: brew install python3; or python.org), or name another interpreter with safe_py_runner.python in the policy"
	tests := []struct {
		name, python, want string
	}{
		{name: "not on PATH", python: "python3",
			want: `[ERROR] safe_py_runner: cannot run scripts/echo.py: the Python interpreter "python3" is not on PATH: ` + install},
		{name: "a path that does not exist", python: "/nonexistent/python3",
			want: `[ERROR] safe_py_runner: cannot run scripts/echo.py: the Python interpreter "/nonexistent/python3" cannot be run (exec: "/nonexistent/python3": stat /nonexistent/python3: no such file or directory): ` + install},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			sb := newSandbox(t, WithPython(tt.python))
			res := sb.run(map[string]any{"script_name": "scripts/echo.py"})
			assert.Equal(t, DecisionError, res.Decision)
			assert.Equal(t, tt.want, res.Text)
		})
	}
}

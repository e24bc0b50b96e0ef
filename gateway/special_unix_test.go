//go:build unix

package gateway

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Opening a FIFO for reading blocks until a writer comes; no call may hang on
// one (the model cannot create FIFOs, but a project or a script can).
func TestFIFOsNeverHang(t *testing.T) {
	sb := newSandbox(t)
	for _, p := range []string{"docs/fifo", "scripts/fifo.py"} {
		if err := syscall.Mkfifo(filepath.Join(sb.root, filepath.FromSlash(p)), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	tests := []struct {
		name string
		call func() Result
		want string
	}{
		{"list_files", func() Result { return sb.cli("list_files", map[string]any{"path": "docs/fifo"}) },
			`[ERROR] list_files: "docs/fifo" is not a directory (use read_file for files)`},
		{"read_file", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/fifo"}) },
			`[ERROR] read_file: "docs/fifo" is not a regular file`},
		{"tree", func() Result { return sb.cli("tree", map[string]any{"path": "docs/fifo"}) },
			`[ERROR] tree: "docs/fifo" is not a directory`},
		{"copy_file", func() Result { return sb.cli("copy_file", map[string]any{"src": "docs/fifo", "dst": "out/x"}) },
			`[ERROR] copy_file: "docs/fifo" is not a regular file (copy_file copies single files)`},
		{"a FIFO as script", func() Result { return sb.run(map[string]any{"script_name": "scripts/fifo.py"}) },
			`[ERROR] safe_py_runner: script "scripts/fifo.py" is not a regular file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan Result, 1)
			go func() { done <- tt.call() }()
			select {
			case res := <-done:
				if res.Text != tt.want {
					t.Fatalf("got  %q\nwant %q", res.Text, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call hangs on a FIFO")
			}
		})
	}
	// Listings show a FIFO as a plain entry and never open it.
	if res := sb.cli("list_files", map[string]any{"path": "docs"}); res.Text != "fifo\nreadme.md" {
		t.Errorf("list_files docs: %q", res.Text)
	}
}

// A script given a FIFO, a socket or a device inside the root as an argument
// would block on it until the timeout (project scripts open their args): the
// runner refuses such arguments before anything starts.
func TestRunnerRefusesArgsNamingSpecialFiles(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, "scripts/cat.py", "import sys\nfor a in sys.argv[1:]:\n    print(open(a.split('=')[-1]).read())\n")
	if err := syscall.Mkfifo(filepath.Join(sb.root, "docs", "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ln, err := net.Listen("unix", filepath.Join(sb.root, "docs", "sock"))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer ln.Close()
	sb.symlink(t, "docs/fifo", "fifolink")
	tests := []struct {
		name, arg, want string
	}{
		{"a FIFO", "docs/fifo",
			`[SECURITY BLOCKED] arg-special-file: args[0] "docs/fifo" names a named pipe (FIFO) inside the project; scripts are given regular files and directories only (a script opening it could wait until the timeout)`},
		{"a FIFO inside an option", "--in=docs/fifo",
			`[SECURITY BLOCKED] arg-special-file: args[0] "--in=docs/fifo" names a named pipe (FIFO) inside the project; scripts are given regular files and directories only (a script opening it could wait until the timeout)`},
		{"a link to a FIFO", "fifolink",
			`[SECURITY BLOCKED] arg-special-file: args[0] "fifolink" names a named pipe (FIFO) inside the project; scripts are given regular files and directories only (a script opening it could wait until the timeout)`},
		{"a socket", "docs/sock",
			`[SECURITY BLOCKED] arg-special-file: args[0] "docs/sock" names a socket inside the project; scripts are given regular files and directories only (a script opening it could wait until the timeout)`},
		{"a regular file still runs", "docs/readme.md", "# Readme\nhello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan Result, 1)
			go func() { done <- sb.run(map[string]any{"script_name": "scripts/cat.py", "args": []any{tt.arg}}) }()
			select {
			case res := <-done:
				if strings.TrimSpace(res.Text) != tt.want {
					t.Fatalf("got  %q\nwant %q", res.Text, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the script hangs on the argument")
			}
		})
	}
}

// copy_file replaces its destination instead of writing into it: a hard link
// from a writable path to a protected file (which the model cannot create,
// but a project may hold) does not let it change the protected file, and an
// executable destination does not pass its mode on to the model's content.
func TestCopyFileReplacesTheDestination(t *testing.T) {
	sb := newSandbox(t)
	sb.write(t, "docs/evil.txt", "print('evil')\n")
	if err := os.Link(filepath.Join(sb.root, "scripts", "echo.py"), filepath.Join(sb.root, "docs", "hl.py")); err != nil {
		t.Skipf("link: %v", err)
	}
	sb.write(t, "docs/run.sh", "#!/bin/sh\necho hi\n")
	os.Chmod(filepath.Join(sb.root, "docs", "run.sh"), 0o755)
	before, _ := os.ReadFile(filepath.Join(sb.root, "scripts", "echo.py"))
	for _, dst := range []string{"docs/hl.py", "docs/run.sh"} {
		if res := sb.cli("copy_file", map[string]any{"src": "docs/evil.txt", "dst": dst}); res.Decision != DecisionAllow {
			t.Fatalf("copy to %s: %+v", dst, res)
		}
		if b, _ := os.ReadFile(filepath.Join(sb.root, filepath.FromSlash(dst))); string(b) != "print('evil')\n" {
			t.Errorf("%s = %q", dst, b)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(sb.root, "scripts", "echo.py")); string(after) != string(before) {
		t.Errorf("scripts/echo.py changed through a hard link: %q", after)
	}
	if fi, _ := os.Stat(filepath.Join(sb.root, "docs", "run.sh")); fi.Mode().Perm()&0o111 != 0 {
		t.Errorf("docs/run.sh kept its executable bits: %v", fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Join(sb.root, "docs"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".lpp-copy-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// A socket cannot be opened as a file (ENXIO): read_file and copy_file say
// it is not a regular file, as they do for a FIFO or a device.
func TestASocketIsNotARegularFile(t *testing.T) {
	sb := newSandbox(t)
	ln, err := net.Listen("unix", filepath.Join(sb.root, "docs", "sock"))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer ln.Close()
	tests := []struct {
		sub    string
		params map[string]any
		want   string
	}{
		{"read_file", map[string]any{"path": "docs/sock"}, `[ERROR] read_file: "docs/sock" is not a regular file`},
		{"copy_file", map[string]any{"src": "docs/sock", "dst": "docs/copy"}, `[ERROR] copy_file: "docs/sock" is not a regular file (copy_file copies single files)`},
	}
	for _, tt := range tests {
		t.Run(tt.sub, func(t *testing.T) {
			res := sb.cli(tt.sub, tt.params)
			if res.Text != tt.want {
				t.Fatalf("got  %q\nwant %q", res.Text, tt.want)
			}
		})
	}
}

// A hard link inside the root to a file outside it, or to a hidden file,
// looks like any file: a file with more than one name is not read, copied
// or handed to a script unless all its names are found inside the root and
// none is hidden, and nothing of it is shown.
func TestAFileWithSeveralNamesIsNotReadNorGivenToScripts(t *testing.T) {
	needPython(t)
	sb := newSandbox(t)
	sb.write(t, ".env", "KEY=sk-HIDDEN\n")
	for target, name := range map[string]string{filepath.Join(sb.outside, "canary.txt"): "docs/canary", filepath.Join(sb.root, ".env"): "docs/notes"} {
		if err := os.Link(target, filepath.Join(sb.root, filepath.FromSlash(name))); err != nil {
			t.Skipf("link: %v", err)
		}
	}
	const outside = " names a file with 2 names (hard links), of which 1 was found inside the project; another may lie outside it, so it is not read; a person can replace it with a copy (cp --remove-destination)"
	const hidden = ` names a file with 2 names (hard links), and one of them matches the hidden path pattern ".env" (hidden_paths in the policy); hidden paths are never shown to the model`
	for _, tc := range []struct {
		name string
		res  func() Result
		want string
	}{
		{"read_file of a link to a file outside", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/canary"}) },
			`[SECURITY BLOCKED] hard-link: read_file.path "docs/canary"` + outside},
		{"copy_file of a link to .env", func() Result { return sb.cli("copy_file", map[string]any{"src": "docs/notes", "dst": "docs/out.txt"}) },
			`[SECURITY BLOCKED] hard-link: copy_file.src "docs/notes"` + hidden},
		{"read_file of a link to .env", func() Result { return sb.cli("read_file", map[string]any{"path": "docs/notes"}) },
			`[SECURITY BLOCKED] hard-link: read_file.path "docs/notes"` + hidden},
		{"a script arg naming one", func() Result {
			return sb.run(map[string]any{"script_name": "scripts/echo.py", "args": []any{"--in=docs/canary"}})
		}, `[SECURITY BLOCKED] hard-link: args[0] "--in=docs/canary"` + outside},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.res()
			if res.Text != tc.want || res.Rule != ruleHardLink {
				t.Fatalf("got  %q (%s)\nwant %q", res.Text, res.Rule, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(sb.root, "docs", "out.txt")); err == nil {
		t.Error("copy_file copied a file with two names")
	}
	if res := sb.cli("read_file", map[string]any{"path": "docs/readme.md"}); res.Decision != DecisionAllow {
		t.Errorf("a file with one name: %+v", res)
	}
}

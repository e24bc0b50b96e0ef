//go:build unix

package gateway

import (
	"path/filepath"
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

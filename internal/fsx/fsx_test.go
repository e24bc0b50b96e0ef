package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name     string
		existing bool
		opts     []Option
		wantMode os.FileMode
		want     string
		wantErr  string
	}{
		{name: "creates a file with perm", wantMode: 0o600, want: "new"},
		{name: "replaces a file with perm", existing: true, wantMode: 0o600, want: "new"},
		{name: "KeepMode keeps the replaced file's mode", existing: true, opts: []Option{KeepMode()}, wantMode: 0o640, want: "new"},
		{name: "an error before the rename leaves the file untouched", existing: true,
			opts:     []Option{BeforeRename(func(string) error { return errors.New("disk on fire") })},
			wantMode: 0o640, want: "old", wantErr: "disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if tt.existing {
				if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
					t.Fatal(err)
				}
				os.Chmod(path, 0o640)
			}
			err := WriteFileAtomic(path, []byte("new"), 0o600, tt.opts...)
			if got := errString(err); got != tt.wantErr {
				t.Fatalf("error = %q, want %q", got, tt.wantErr)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != tt.want {
				t.Fatalf("content = %q, %v; want %q", b, err, tt.want)
			}
			if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != tt.wantMode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.wantMode)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, TempPattern(path))); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestLocksExcludeEachOther(t *testing.T) {
	if !HaveLocks {
		t.Skip("no advisory locks here")
	}
	dir := t.TempDir()
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if busy, err := TryLock(f, false); err != nil || !busy {
		t.Fatalf("TryLock shared while LockDir holds it = %v, %v; want busy", busy, err)
	}
	unlock()
	if busy, err := TryLock(f, true); err != nil || busy {
		t.Fatalf("TryLock after unlock = %v, %v; want free", busy, err)
	}
	Unlock(f)

	path := filepath.Join(dir, "lock")
	unlock, err = LockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := os.Open(path)
	defer g.Close()
	if busy, _ := TryLock(g, true); !busy {
		t.Error("TryLock while LockFile holds it: not busy")
	}
	unlock()
	if busy, _ := TryLock(g, true); busy {
		t.Error("TryLock after LockFile's unlock: busy")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

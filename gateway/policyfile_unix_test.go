//go:build unix

package gateway

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A policy file is opened without blocking and must be a regular file: a
// FIFO named as --policy is refused at once instead of waiting for a writer.
func TestAPolicyThatIsNotARegularFileIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	tests := []struct {
		name, path, want string
	}{
		{"a FIFO", fifo, "cannot load policy " + fifo + ": invalid policy: it is a named pipe (FIFO); a policy is a regular file"},
		{"a device", "/dev/null", "cannot load policy /dev/null: invalid policy: it is a device; a policy is a regular file"},
		{"a directory", dir, "cannot load policy " + dir + ": invalid policy: it is a directory; a policy is a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := LoadPolicy(tt.path)
				done <- err
			}()
			select {
			case err := <-done:
				require.EqualError(t, err, tt.want)
				require.ErrorIs(t, err, ErrInvalidPolicy)
			case <-time.After(5 * time.Second):
				t.Fatal("LoadPolicy is still waiting after 5s")
			}
		})
	}
}

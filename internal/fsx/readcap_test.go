//go:build unix

package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadFileRefusesWhatItMustNotRead: a file over the cap is refused
// from its size, one whose size says nothing (a /proc file says 0) through
// the limited read, and a FIFO or a folder without waiting or reading.
func TestReadFileRefusesWhatItMustNotRead(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, 101), 0o644))
	huge := filepath.Join(dir, "huge.json")
	require.NoError(t, os.WriteFile(huge, make([]byte, 1025), 0o644))
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	tests := []struct {
		name, path string
		limit      int64
		want       string
		tooLarge   bool
	}{
		{"a file over the cap, by its size", big, 100, big + " is 101 bytes, over the limit of 100 bytes", true},
		{"a cap of one byte is said once, in the singular", big, 1, big + " is 101 bytes, over the limit of 1 byte", true},
		{"a cap in KiB is said in both units", huge, 1024, huge + " is 1025 bytes, over the limit of 1024 bytes (1 KiB)", true},
		{"a file whose size is 0 but whose content is over the cap", "/proc/self/maps", 16, "/proc/self/maps is over the limit of 16 bytes", true},
		{"a FIFO, without blocking", fifo, 100, fifo + " is not a regular file", false},
		{"a folder", dir, 100, dir + " is a directory", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFile(tt.path, tt.limit)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, tt.tooLarge, errors.Is(err, ErrTooLarge))
		})
	}
}

func TestReadFileReadsUpToTheCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bp.json")
	require.NoError(t, os.WriteFile(path, []byte("0123456789"), 0o644))
	b, err := ReadFile(path, 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b))
	b, err = ReadFile("/proc/self/stat", 1<<20) // size 0, content read whole
	require.NoError(t, err)
	assert.NotEmpty(t, b)
}

func TestParseBytesReadsSizes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"100", 100, false}, {"16MiB", 16 << 20, false}, {"2 GiB", 2 << 30, false}, {"64K", 64 << 10, false},
		{"0", 0, true}, {"-1", 0, true}, {"lots", 0, true}, {"1.5MiB", 0, true}, {"99999999999GiB", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if tt.err {
			assert.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// DefaultMaxBytes is the largest file `lppctl import lpp` and `lppctl
// validate` read unless told otherwise (MaxBytesEnv, or the commands'
// --max-bytes): 16 MiB. The largest blueprint of lpp's own repository is
// 42 KB.
const DefaultMaxBytes int64 = 16 << 20

// MaxBytesEnv names the environment variable that sets the cap instead of
// DefaultMaxBytes (a number of bytes, or with a KiB, MiB or GiB suffix).
const MaxBytesEnv = "LPPCTL_MAX_BYTES"

// ErrTooLarge is wrapped by the error of a file larger than the cap.
var ErrTooLarge = errors.New("file too large")

// TooLargeError is a file ReadFile refused for its size. Size is the
// file's size when known (0: it grew past the cap while being read).
type TooLargeError struct {
	Path        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size > e.Limit {
		return fmt.Sprintf("%s is %d bytes, over the limit of %s", e.Path, e.Size, limitText(e.Limit))
	}
	return fmt.Sprintf("%s is over the limit of %s", e.Path, limitText(e.Limit))
}

// limitText is a limit in bytes, and in the unit HumanBytes finds when it
// is not bytes already: "16777216 bytes (16 MiB)", "100 bytes", "1 byte".
func limitText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	if human := HumanBytes(n); !strings.HasSuffix(human, " bytes") {
		return fmt.Sprintf("%d bytes (%s)", n, human)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// ReadFile reads the file at path, a regular file (opened without
// blocking, so a FIFO never hangs) of at most limit bytes: a larger one is
// a *TooLargeError, refused from its size before anything is read, and,
// since a size can change, read through an io.LimitReader all the same.
// The buffer is allocated once, at the file's size.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		what := "not a regular file"
		if info.IsDir() {
			what = "a directory"
		}
		return nil, fmt.Errorf("%s is %s", path, what)
	}
	if info.Size() > limit {
		return nil, &TooLargeError{Path: path, Size: info.Size(), Limit: limit}
	}
	buf := make([]byte, 0, info.Size()+1) // +1: the read that finds the end
	for {
		n, err := io.LimitReader(f, limit+1-int64(len(buf))).Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Path: path, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew: let append size it
		}
	}
}

// ParseBytes reads a size: a number of bytes, or one with a KiB, MiB or
// GiB suffix (K, M, G for short), at least 1.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suf  []string
		mult int64
	}{{[]string{"GiB", "G"}, 1 << 30}, {[]string{"MiB", "M"}, 1 << 20}, {[]string{"KiB", "K"}, 1 << 10}} {
		for _, suf := range u.suf {
			if strings.HasSuffix(t, suf) {
				t, mult = strings.TrimSpace(strings.TrimSuffix(t, suf)), u.mult
				goto parsed
			}
		}
	}
parsed:
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > (1<<62)/mult {
		return 0, fmt.Errorf("cannot read size %q: write a number of bytes, or one with a KiB, MiB or GiB suffix (16MiB)", s)
	}
	return n * mult, nil
}

// MaxBytes returns the cap: flag when set (""), else MaxBytesEnv when
// set, else DefaultMaxBytes.
func MaxBytes(flag string) (int64, error) {
	if flag != "" {
		return ParseBytes(flag)
	}
	if env := os.Getenv(MaxBytesEnv); env != "" {
		n, err := ParseBytes(env)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", MaxBytesEnv, err)
		}
		return n, nil
	}
	return DefaultMaxBytes, nil
}

// HumanBytes writes n in the largest binary unit it reaches, to one
// decimal (16 MiB, 95.4 MiB).
func HumanBytes(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return strings.TrimSuffix(strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64), ".0") + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

package ui

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Long values go to the lppctl processes the UI starts as files, not as
// arguments: Linux caps one argument at 128 KiB (MAX_ARG_STRLEN) and all of
// them at about 2 MiB, and a form posts up to 10 MB. A value longer than
// inlineMax, or one that would take the command's inline values past
// inlineTotal, is written to a file of the store's .ui-values folder and
// given as --var-file NAME=FILE, --answer-file FILE or --payload-file FILE.
// A value that holds a NUL byte goes as a file too, whatever its length: no
// argument can hold one. The files stay a day, so that the command the page
// shows can be run again.
const (
	inlineMax   = 8 << 10
	inlineTotal = 64 << 10
	valuesDir   = ".ui-values" // hidden: the store lists no run there
	valuesKept  = 24 * time.Hour
)

// valueArgs builds the arguments of long values: inline ones while they
// stay short, files for the others.
type valueArgs struct {
	runDir string
	inline int // the bytes of the values given inline so far
}

// inlines reports whether value may be given inline, and counts it.
func (va *valueArgs) inlines(value string) bool {
	if !fitsArgument(value) || va.inline+len(value) > inlineTotal {
		return false
	}
	va.inline += len(value)
	return true
}

// ValueFlag is the argument that gives a decision's value to lppctl resume:
// --flag=VALUE, or --flag-file=FILE with the value written in runDir's
// .ui-values folder when it is too long for a command line.
func ValueFlag(runDir, flag, value string) (string, error) {
	if fitsArgument(value) {
		return "--" + flag + "=" + value, nil
	}
	path, err := writeValue(runDir, flag, value)
	if err != nil {
		return "", err
	}
	return "--" + flag + "-file=" + path, nil
}

// fitsArgument reports whether value may be given as (part of) one
// argument: short enough, and without a NUL byte (which ends a C string:
// exec refuses it).
func fitsArgument(value string) bool {
	return len(value) <= inlineMax && !strings.ContainsRune(value, 0)
}

// writeValue writes value to a new file of runDir's .ui-values folder (what
// names it) and returns its path; it removes the files older than a day.
func writeValue(runDir, what, value string) (string, error) {
	dir := filepath.Join(runDir, valuesDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot write the %s value to a file: %w", what, err)
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > valuesKept {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:]) + "-" + safeName(what)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(value), 0o600); err != nil {
		return "", fmt.Errorf("cannot write the %s value to a file: %w", what, err)
	}
	return path, nil
}

// safeName keeps the letters, digits, - and _ of a variable's name for a
// file name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
	return s[:min(len(s), 64)]
}

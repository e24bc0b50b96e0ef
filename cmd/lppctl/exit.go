package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lppctl/lppctl/machine/runstore"
)

// Exit codes. They are part of lppctl's interface and documented in the README.
const (
	exitOK          = 0   // success
	exitFailed      = 1   // the run (or the command) failed
	exitUsage       = 2   // bad flags or arguments
	exitInvalidSpec = 3   // the spec (or another input file) is invalid
	exitPaused      = 4   // the run paused and waits for a person: see `lppctl resume`
	exitInterrupted = 130 // stopped by Ctrl-C (SIGINT) at a clean point
)

// exitError carries an exit code through urfave/cli back to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that lppctl exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// orCode is withCode for an err that may carry its own code already (a
// usage error found while reading a file, such as an LPPCTL_MAX_BYTES that
// cannot be read): that one is kept.
func orCode(code int, err error) error {
	if _, ok := errors.AsType[*exitError](err); ok {
		return err
	}
	return withCode(code, err)
}

// usageErrorf returns a usage error (exit code 2).
func usageErrorf(format string, args ...any) error {
	return withCode(exitUsage, fmt.Errorf(format, args...))
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailed
}

// unknownRun makes an error that says a run does not exist
// (runstore.ErrNotFound), or that a prefix names several, a usage error (exit 2), as a spec file that does
// not exist is; other errors are returned as they are.
func unknownRun(err error) error {
	if errors.Is(err, runstore.ErrNotFound) || errors.Is(err, runstore.ErrAmbiguous) {
		return withCode(exitUsage, err)
	}
	return err
}

// unknownRunArg is unknownRun for the run a command's argument names: when
// the argument is a file (a spec given where a run ID goes: lppctl resume
// specs/x.yaml), the error says so and how to start a run of it, rather
// than that no run is named "specs" or that a child run cannot be resumed.
func unknownRunArg(arg string, err error) error {
	if errors.Is(err, runstore.ErrNotFound) {
		if fi, serr := os.Stat(arg); serr == nil && !fi.IsDir() {
			switch strings.ToLower(filepath.Ext(arg)) {
			case ".yaml", ".yml", ".json":
				return usageErrorf("cannot open run %q: %s is a file, not a run: give a run's ID (lppctl runs lists them), or start a run of it with lppctl run %s", arg, arg, shellQuote(arg))
			}
			return usageErrorf("cannot open run %q: %s is a file, not a run: give a run's ID (lppctl runs lists them)", arg, arg)
		}
	}
	return unknownRun(err)
}

package main

import (
	"os"
	"testing"
)

// EnvFullTests names the environment variable that runs the heavy scenarios
// at full size (CI sets it: .ci/run). Without it `go test ./...` runs them
// reduced, still meaningful: fewer steps (with smaller Temporal segments, so
// runs still continue as new), a shorter outage, fewer runs and crash points.
// docs/testing.md lists them.
const EnvFullTests = "LPPCTL_FULL_TESTS"

// fullTests reports whether LPPCTL_FULL_TESTS=1 asks for the full scenarios.
func fullTests() bool { return os.Getenv(EnvFullTests) == "1" }

// sized returns full under LPPCTL_FULL_TESTS=1 and reduced otherwise, and
// logs which when they differ, so that a reader of -v output knows.
func sized[T comparable](t testing.TB, what string, reduced, full T) T {
	t.Helper()
	if fullTests() || reduced == full {
		return full
	}
	t.Logf("%s: %v (%v with %s=1)", what, reduced, full, EnvFullTests)
	return reduced
}

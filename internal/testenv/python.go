package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequirePythonEnv makes a missing python3 fail the tests that need it
// instead of skipping them: CI sets it (.ci/run), as it installs python3.
const RequirePythonEnv = "LPPCTL_REQUIRE_PYTHON"

// Python returns the python3 the gateway's runner would use (the one on
// PATH). Without one, the test is skipped with what to install, or fails
// when RequirePythonEnv is set.
func Python(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err == nil {
		return p
	}
	if os.Getenv(RequirePythonEnv) != "" {
		t.Fatalf("python3 is not on PATH (%s is set): install Python 3: %v", RequirePythonEnv, err)
	}
	t.Skip("python3 is not on PATH: this test runs Python scripts; install Python 3 to run it (" + RequirePythonEnv + "=1 makes this a failure)")
	return ""
}

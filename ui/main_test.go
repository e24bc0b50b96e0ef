package ui

import (
	"os"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
)

// TestMain runs the tests without the lppctl configuration of the shell
// (LPPCTL_MAX_BYTES set to what cannot be read refused every spec page).
func TestMain(m *testing.M) {
	testenv.Scrub()
	os.Exit(m.Run())
}

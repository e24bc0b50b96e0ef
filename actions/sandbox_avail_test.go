package actions

import (
	"os"

	osbox "github.com/lppctl/lppctl/gateway/sandbox"
)

// sandboxAvailableForTest is nil where the OS sandbox works; with
// LPPCTL_REQUIRE_SANDBOX set, a missing sandbox panics the test run
// instead of skipping.
func sandboxAvailableForTest() error {
	err := osbox.Available()
	if err != nil && os.Getenv("LPPCTL_REQUIRE_SANDBOX") != "" {
		panic(err)
	}
	return err
}

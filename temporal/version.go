package temporal

import (
	"fmt"
	"os"
)

// Version is the lppctl version of this process (set by the program at
// start): it names workers and clients on the server (Identity).
var Version = "dev"

// Identity names this process on the Temporal server: pid, host and lppctl
// version, as the server's task-queue and history views show it.
func Identity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%d@%s@lppctl-%s", os.Getpid(), host, Version)
}

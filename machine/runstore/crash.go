package runstore

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// EnvCrashPoint names the environment variable that arms crash points, for
// crash-safety tests: a comma-separated list of NAME:N (NAME alone: N=1),
// each killing the process (SIGKILL, no cleanup) the N-th time it reaches
// point NAME; NAME:N:INT sends SIGINT instead (as a Ctrl-C at that moment
// would) and lets the process go on. Points:
//
//	journal-before-write  a line is about to be written to the journal
//	journal-mid-write     half of a journal line is written and synced (a torn line)
//	journal-after-write   a journal line is written and synced, the next action not started
//	runjson-write         run.json is about to be rewritten
//	runjson-rename        run.json's temporary file is written, not yet renamed
//	run-loaded            lppctl run loaded the spec, no run directory made yet
//	run-created           lppctl run made the run directory, the run not started
//	resume-started        lppctl resume marked the run running, it has not continued
//
// Other packages may define their own points with CrashPoint.
const EnvCrashPoint = "LPPCTL_CRASHPOINT"

var crash struct {
	once  sync.Once
	mu    sync.Mutex
	armed map[string]int // point → the hit that kills
	sig   map[string]string
	hits  map[string]int
}

func armCrashPoints() {
	crash.armed = map[string]int{}
	crash.sig = map[string]string{}
	crash.hits = map[string]int{}
	for _, p := range strings.Split(os.Getenv(EnvCrashPoint), ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(p), ":")
		if name == "" {
			continue
		}
		n, sig, _ := strings.Cut(n, ":")
		crash.sig[name] = sig
		k := 1 // NAME alone: the first hit
		if ok {
			if v, err := strconv.Atoi(n); err == nil && v > 0 {
				k = v
			}
		}
		crash.armed[name] = k
	}
}

// CrashPoint kills the process with SIGKILL when point name is armed by
// $LPPCTL_CRASHPOINT and this is its N-th hit (or, armed NAME:N:INT, sends it
// SIGINT and returns). It does nothing otherwise.
func CrashPoint(name string) {
	if crashArmed(name) {
		crash.mu.Lock()
		sig := crash.sig[name]
		crash.mu.Unlock()
		if sig == "INT" {
			interruptSelf()
			return
		}
		killSelf()
	}
}

// crashArmed counts a hit of point name and reports whether it must crash now.
func crashArmed(name string) bool {
	crash.once.Do(armCrashPoints)
	if len(crash.armed) == 0 {
		return false
	}
	crash.mu.Lock()
	defer crash.mu.Unlock()
	k, ok := crash.armed[name]
	if !ok {
		return false
	}
	crash.hits[name]++
	return crash.hits[name] == k
}

package actions

import (
	"regexp"

	"github.com/lppctl/lppctl/gateway"
)

// An error example passes only when the skill refuses its input the way the
// contractor asks a script to (executing.md): it exits non-zero with a
// message saying why (sys.exit("why")), or the spec itself aborts. A run
// that fails otherwise fails for any input the script cannot handle, so it
// proves nothing about this one: a crash (pythonCrash), a script that ends
// with exit code 0 without printing its answer, one that exits non-zero
// with no message at all, or one killed for taking too long.

// silentExit matches script.run's error for a script that exited non-zero
// and wrote nothing on stdout or stderr: the gateway's runner writes
// "SCRIPT failed (exit code N)" and then gateway.NoOutput.
var silentExit = regexp.MustCompile(`failed \(exit code (-?\d+)\)\n` + regexp.QuoteMeta(gateway.NoOutput) + `(\n|$)`)

// noAnswer matches script.run's error for a script that exited 0 without
// printing one JSON object on stdout (runScript).
var noAnswer = regexp.MustCompile(`script \S+ printed (no JSON object|.+ instead of a JSON object) on stdout`)

// timedOut matches the gateway runner's error for a script it killed after
// its timeout.
var timedOut = regexp.MustCompile(`timed out after \S+: \S+ was killed`)

// notARefusal says why a failed run's errors (its failure, and the errors it
// routed through on_error) are not a refusal of the input by a message, or
// "" when they are: a crash is reported by pythonCrash first.
func notARefusal(text string) string {
	switch {
	case noAnswer.MatchString(text):
		return "a script ended with exit code 0 without printing its JSON answer (a return where it should refuse, or an answer never printed)"
	case silentExit.MatchString(text):
		return "a script exited with code " + silentExit.FindStringSubmatch(text)[1] + " without a message (nothing on stderr or stdout)"
	case timedOut.MatchString(text):
		return "a script was killed after its timeout (a loop, or a wait for input)"
	}
	return ""
}

// refusalHint says how a script refuses an input, after a failure that was
// not a refusal.
const refusalHint = `a failure without a message is a bug, not a refusal, and passes for any input the script cannot handle; check the input and refuse it with a message saying why (sys.exit("why"), or print it to stderr and exit 1)`

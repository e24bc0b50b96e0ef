package actions

import (
	"regexp"
	"strings"

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

// noAnswerKeys matches script.run's error for a script that exited 0 and
// printed a JSON object without a key the spec reads. When it also printed
// an "error" saying why (errorKeyNote's text follows), or a message on
// stderr, it refused its input with a message; else it gave a partial
// answer, no refusal (silentAnswer).
var noAnswerKeys = regexp.MustCompile(`its output has no key "[^"\n]*" for \S+ \((?:it has no keys|it has keys [^\n]*?)\)`)

// silentAnswer reports whether text holds noAnswerKeys' error without a
// message after it.
func silentAnswer(text string) bool {
	for _, at := range noAnswerKeys.FindAllStringIndex(text, -1) {
		rest := text[at[1]:]
		if !strings.HasPrefix(rest, errorKeyLead) && !strings.HasPrefix(rest, "; stderr: ") {
			return true
		}
	}
	return false
}

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
	case silentAnswer(text):
		return `a script ended with exit code 0 printing a JSON object without the keys the spec reads and without an "error" saying why (a return of a partial answer where it should refuse)`
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

package check_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/spec"
)

// A string an action writes and a guard tests with `matches` takes a
// string the pattern matches: the branch is explored and the defect behind
// it found, with a counterexample that replays. Before, the string took
// the pattern itself ("^[0-9]+$", which does not match), and the state
// behind was reported unreachable.
func TestAStringTestedWithMatchesTakesAStringThePatternMatches(t *testing.T) {
	for _, pattern := range []string{`^[0-9]+$`, `^(yes|no)$`, `ERROR: \w+`, `^[A-Z]{3}-\d{2}$`, `(?i)^done\.?$`, `^\s*\{.*\}\s*$`} {
		t.Run(pattern, func(t *testing.T) {
			src := `lpp: 1
name: matching
context:
  reply: {type: string, default: ""}
initial: ask
states:
  ask:
    do: answer
    next:
      - {to: hit, when: 'reply matches "` + escapeYAML(pattern) + `"'}
      - {to: done}
  hit:
    do: noop
    next:
      - {to: done, when: 'reply == ""'}
  done: {final: true}
`
			var write string
			reg := spectest.Registry()
			reg.MustRegister(machine.Action{Name: "answer",
				Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("reply", write) },
				Writes: []machine.VarSpec{{Name: "reply", Type: spec.TypeString}}})
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict)
			require.Len(t, dl.Trace.Steps, 2)
			write = dl.Trace.Steps[0].Wrote["reply"].(string)
			require.Regexp(t, pattern, write)

			run, err := m.NewRun(nil)
			require.NoError(t, err)
			require.ErrorContains(t, run.Run(context.Background()), `no transition holds in state "hit"`)
		})
	}
}

// A string read through indexOf, lastIndexOf, trimPrefix, trimSuffix,
// len(split(...)) or split(...)[i] takes a value where the guard holds: the
// branch is explored and the defect behind it found, and the
// counterexample replays. Before, only "", the default, the literals it is
// compared with and "other" were tried: the branch was reported
// unreachable (and, where the other branch asks the model again, a trap).
func TestAStringReadThroughAStringFunctionTakesAValueWhereTheGuardHolds(t *testing.T) {
	for _, guard := range []string{
		`indexOf(reply, "OK") == 2`,
		`lastIndexOf(reply, "!") == 0`,
		`trimPrefix(reply, "ANSWER: ") == "yes"`,
		`trimSuffix(reply, ".") == "done"`,
		`len(split(reply, ",")) == 3`,
		`len(splitAfter(reply, ";")) > 1`,
		`len(split(reply, "|")) > 1 && split(reply, "|")[1] == "b"`,
	} {
		t.Run(guard, func(t *testing.T) {
			src := `lpp: 1
name: strfuncs
context:
  reply: {type: string, default: ""}
initial: ask
states:
  ask:
    do: answer
    next:
      - {to: hit, when: '` + guard + `'}
      - {to: done}
  hit:
    do: noop
    next:
      - {to: done, when: 'reply == ""'}
  done: {final: true}
`
			var write string
			reg := spectest.Registry()
			reg.MustRegister(machine.Action{Name: "answer",
				Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("reply", write) },
				Writes: []machine.VarSpec{{Name: "reply", Type: spec.TypeString}}})
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict)
			require.Len(t, dl.Trace.Steps, 2)
			write = dl.Trace.Steps[0].Wrote["reply"].(string)

			run, err := m.NewRun(nil)
			require.NoError(t, err)
			require.ErrorContains(t, run.Run(context.Background()), `no transition holds in state "hit"`)
		})
	}
}

// The string functions check7 left out: a guard that reads the reply
// through fromJSON (a key compared, or read as a condition), replace,
// fromBase64 or a slice held for no value the check gave it, and its
// branch was reported unreachable.
func TestAStringReadThroughFromJSONReplaceBase64OrASliceTakesAValueWhereTheGuardHolds(t *testing.T) {
	for _, guard := range []string{
		`fromJSON(reply).verdict == "pass"`,
		`fromJSON(reply)?.score > 7`,
		`fromJSON(reply)["ok"] == true && fromJSON(reply).n == 2`,
		`let v = fromJSON(reply)?.done; v != nil && v != false`,
		`replace(reply, "-", "_") == "a_b"`,
		`replace(reply, " ", "") == "yes"`,
		`fromBase64(reply) == "hi"`,
		`reply[2:4] == "ab"`,
		`reply[:3] == "OK:"`,
		`len(reply) in [3, 4]`,
		`fromJSON(reply).kind in ["x", "y"]`,
		`"a" in fromJSON(reply).tags`,
		`fromJSON(fromJSON(reply).inner).ok == true`,
		`fromJSON(reply).a.b == 3`,
		`fromJSON(reply)?.a?.b == "q"`,
		`repeat(reply, 2) == "abab"`,
	} {
		t.Run(guard, func(t *testing.T) {
			src := `lpp: 1
name: strfuncs
context:
  reply: {type: string, default: ""}
initial: ask
states:
  ask:
    do: answer
    next:
      - {to: hit, when: '` + guard + `'}
      - {to: done}
  hit:
    do: noop
    next:
      - {to: done, when: 'reply == ""'}
  done: {final: true}
`
			var write string
			reg := spectest.Registry()
			reg.MustRegister(machine.Action{Name: "answer",
				Run:    func(_ context.Context, c *machine.Call) error { return c.SetVar("reply", write) },
				Writes: []machine.VarSpec{{Name: "reply", Type: spec.TypeString}}})
			m := spectest.Compile(t, src, reg)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			require.Equal(t, check.Pass, r.Property(check.PropReachable).Verdict, r.Property(check.PropReachable).Message)
			dl := r.Property(check.PropDeadlock)
			require.Equal(t, check.Fail, dl.Verdict)
			require.Len(t, dl.Trace.Steps, 2)
			write = dl.Trace.Steps[0].Wrote["reply"].(string)

			run, err := m.NewRun(nil)
			require.NoError(t, err)
			require.ErrorContains(t, run.Run(context.Background()), `no transition holds in state "hit"`)
		})
	}
}

// escapeYAML escapes a pattern for an expr string literal in double quotes.
func escapeYAML(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\\' || r == '"' {
			out = append(out, '\\')
		}
		out = append(out, r)
	}
	return string(out)
}

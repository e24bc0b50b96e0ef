package export_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/export"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/spec"
)

// TestExportTLAGolden exports specs of the seeded-defect corpus (a deadlock,
// invariants, an event with a payload, an on_error route, final_requires)
// and compares the module and its TLC configuration with golden files.
func TestExportTLAGolden(t *testing.T) {
	for _, name := range []string{
		"deadlock_counter_value",
		"invariant_replan_rounds",
		"wait_payload_invariant",
		"invariant_after_error",
		"final_requires_map",
		"trap_after_event",
		"emit_payload_first",
	} {
		t.Run(name, func(t *testing.T) {
			m := spectest.SpecFile(t, filepath.Join("testdata", "check", name+".yaml"))
			mod, err := export.ExportTLA(m)
			if err != nil {
				t.Fatal(err)
			}
			if mod.Name != name {
				t.Errorf("module name %q, want %q", mod.Name, name)
			}
			checkTLAShape(t, mod)
			spectest.Golden(t, filepath.Join("testdata", "tla", name+".tla"), mod.Module)
			spectest.Golden(t, filepath.Join("testdata", "tla", name+".cfg"), mod.Config)
		})
	}
}

// TestExportTLARefusesWhatTLCCannotEvaluate: an expression or a value with no
// TLA+ equivalent is an error that says where it is (file:line:col, the
// state and transition) and what.
func TestExportTLARefusesWhatTLCCannotEvaluate(t *testing.T) {
	const head = "lpp: 1\nname: t\ncontext:\n  s: {type: string, default: \"\"}\n  n: {type: int, default: 0}\ninitial: a\nstates:\n  a:\n"
	tests := []struct {
		name, body, want string
	}{
		{"matches in a guard",
			"    next:\n      - {to: done, when: s matches \"^a\"}\n  done: {final: true}\n",
			"test.yaml:10:26: cannot export to TLA+: guard of next[0] of state \"a\": `s matches \"^a\"`: the operator matches has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\""},
		{"division in a set, deep in the expression",
			"    next:\n      - {to: done, set: {n: 'n + int(n / 2)'}}\n  done: {final: true}\n",
			"test.yaml:10:38: cannot export to TLA+: set of next[0] of state \"a\": n: `n / 2`: the operator / (its value is a float; TLC has no floats) has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\""},
		{"nil coalescing in a state's set",
			"    set: {s: 's ?? \"x\"'}\n    next: done\n  done: {final: true}\n",
			"test.yaml:9:15: cannot export to TLA+: set of state \"a\": s: `s ?? \"x\"`: the operator ?? has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\""},
		{"string order",
			"    next:\n      - {to: done, when: s < \"m\"}\n  done: {final: true}\n",
			"test.yaml:10:26: cannot export to TLA+: guard of next[0] of state \"a\": `s < \"m\"`: the operator < on string (TLA+ applies it to ints only) has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\""},
		{"a function TLA+ lacks",
			"    next:\n      - {to: done, when: upper(s) == \"A\"}\n  done: {final: true}\n",
			"test.yaml:10:26: cannot export to TLA+: guard of next[0] of state \"a\": `upper(s)`: the function upper has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\""},
		{"a float in an invariant",
			"    next: done\n  done: {final: true}\ninvariants:\n  short: 'len(s) < 2.5'\n",
			"test.yaml:12:20: cannot export to TLA+: invariant \"short\": `2.5`: a float (TLC has no floats) has no TLA+ equivalent; rewrite it with the operators docs/check.md lists under \"TLA+ export\""},
		{"a payload field of type any",
			"    on: {GO: done}\n  done: {final: true}\nevents:\n  GO:\n    payload:\n      x: {type: any}\n",
			"test.yaml:14:7: cannot export to TLA+: payload field \"x\" of event \"GO\" is of type any: a TLA+ module gives a field values of one kind (TLC stops when it compares a string with a number); give the field a type (string, int, float, bool, list, map) to export the spec, `lppctl check` checks it as it is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := spectest.Compile(t, head+tt.body, nil)
			_, err := export.ExportTLA(m)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
		})
	}
}

// TestExportTLARefusesFloats: TLC has no floats, so a float variable is an
// error at its type.
func TestExportTLARefusesFloats(t *testing.T) {
	m := spectest.Compile(t, "lpp: 1\nname: t\ncontext:\n  score: {type: float, default: 0.5}\ninitial: a\nstates:\n  a: {final: true}\n", nil)
	_, err := export.ExportTLA(m)
	want := `test.yaml:4:17: cannot export to TLA+: context variable "score" is a float, and TLC has no floats; make it an int (e.g. hundredths)`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

// checkTLAShape is a parser-level check of a module (no TLA+ toolchain
// here): its header and end line, balanced brackets outside strings and
// comments, and every action of Next and invariant of the config defined.
func checkTLAShape(t *testing.T, mod *export.TLAModule) {
	t.Helper()
	text := string(mod.Module)
	if want := "---- MODULE " + mod.Name + " ----\n"; !strings.HasPrefix(text, want) {
		t.Errorf("module does not start with %q", want)
	}
	if !strings.HasSuffix(text, "\n"+strings.Repeat("=", 77)+"\n") {
		t.Errorf("module does not end with its ==== line")
	}
	defined := map[string]bool{}
	var stack []string
	closers := map[string]string{")": "(", "]": "[", "}": "{", ">>": "<<"}
	for i, line := range strings.Split(text, "\n") {
		if name, _, ok := strings.Cut(line, " =="); ok && !strings.ContainsAny(name, " (") {
			defined[name] = true
		}
		for j := 0; j < len(line); j++ {
			switch c := line[j]; {
			case strings.HasPrefix(line[j:], `\*`):
				j = len(line)
			case c == '"':
				for j++; j < len(line) && line[j] != '"'; j++ {
					if line[j] == '\\' {
						j++
					}
				}
			case strings.HasPrefix(line[j:], "<<"):
				stack = append(stack, "<<")
				j++
			case strings.HasPrefix(line[j:], ">>"):
				if len(stack) == 0 || stack[len(stack)-1] != "<<" {
					t.Fatalf("line %d: unbalanced >>: %s", i+1, line)
				}
				stack = stack[:len(stack)-1]
				j++
			case strings.ContainsRune("([{", rune(c)):
				stack = append(stack, string(c))
			case strings.ContainsRune(")]}", rune(c)):
				if len(stack) == 0 || stack[len(stack)-1] != closers[string(c)] {
					t.Fatalf("line %d: unbalanced %c: %s", i+1, c, line)
				}
				stack = stack[:len(stack)-1]
			}
		}
	}
	if len(stack) > 0 {
		t.Errorf("unclosed brackets %v", stack)
	}
	_, next, _ := strings.Cut(text, "\nNext ==\n")
	next, _, _ = strings.Cut(next, "\n\n")
	for line := range strings.Lines(next) {
		if name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), `\/`)); !defined[name] {
			t.Errorf("Next names %q, which the module does not define", name)
		}
	}
	_, invs, _ := strings.Cut(string(mod.Config), "INVARIANTS\n")
	invs, _, _ = strings.Cut(invs, "CHECK_DEADLOCK")
	for _, name := range strings.Fields(invs) {
		if !defined[name] {
			t.Errorf("the config names invariant %q, which the module does not define", name)
		}
	}
}

// TestExportTLAContextNamesNeverClashWithTheModulesOwn: a context variable
// named as a helper's parameter (s, t, i), a binder (err, payload), an
// operator of the module or a TLA+ keyword is renamed (ctx_), everywhere it
// is used: TLA+ refuses a parameter or a bound name that redeclares a
// symbol in scope.
func TestExportTLAContextNamesNeverClashWithTheModulesOwn(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: clash
context:
  s: {type: string, default: ""}
  t: {type: list, default: []}
  i: {type: int, default: 0}
  err: {type: int, default: 0}
  LAMBDA: {type: int, default: 0}
  STATE: {type: bool, default: false}
  Len: {type: int, default: 0}
initial: a
states:
  a:
    next:
      - {to: done, when: 's contains "a" && hasPrefix(s, "b") && hasSuffix(s, "c") && 1 in t && i == err && LAMBDA == Len && STATE'}
      - {to: done, set: {i: i + 1}}
  done: {final: true}
`, nil)
	mod, err := export.ExportTLA(m)
	if err != nil {
		t.Fatal(err)
	}
	text := string(mod.Module)
	checkTLAShape(t, mod)
	vars := regexp.MustCompile(`(?m)^VARIABLES (.*)$`).FindStringSubmatch(text)
	if vars == nil {
		t.Fatalf("no VARIABLES line:\n%s", text)
	}
	want := "state, phase, steps, last_error, ctx_s, ctx_t, ctx_i, ctx_err, ctx_LAMBDA, ctx_STATE, ctx_Len"
	if vars[1] != want {
		t.Errorf("VARIABLES %s, want %s", vars[1], want)
	}
	// Every name the module defines or binds, and TLA+'s keywords.
	own := map[string]bool{"LAMBDA": true, "STATE": true, "Len": true}
	for _, d := range regexp.MustCompile(`(?m)^(\w+)(?:\(([^)]*)\))? ==`).FindAllStringSubmatch(text, -1) {
		own[d[1]] = true
		for p := range strings.SplitSeq(d[2], ",") {
			own[strings.TrimSpace(p)] = true
		}
	}
	for _, b := range regexp.MustCompile(`(?:\\E|\\A|: |\[)\s*(\w+) \\in`).FindAllStringSubmatch(text, -1) {
		own[b[1]] = true
	}
	for _, v := range strings.Split(vars[1], ", ") {
		if own[v] {
			t.Errorf("variable %s clashes with a name the module defines or binds:\n%s", v, text)
		}
	}
	wantGuard := `Contains(ctx_s, "a") /\ HasPrefix(ctx_s, "b") /\ HasSuffix(ctx_s, "c") /\ (1 \in SetOf(ctx_t)) /\ ctx_i = ctx_err /\ ctx_LAMBDA = ctx_Len /\ ctx_STATE`
	if !strings.Contains(strings.NewReplacer("(", "", ")", "").Replace(text), strings.NewReplacer("(", "", ")", "").Replace(wantGuard)) {
		t.Errorf("the guard does not read the renamed variables (%s):\n%s", wantGuard, text)
	}
}

// TestTheTLAModuleReportsAStateWithNextStuckWhereOnlyAnOutsideEventApplies:
// a state with next does not wait for events, so where none of its guards
// holds a run with no event pending fails, even if an event from "*" could
// fire; lppctl check reports a deadlock there, and the module's NotStuck
// invariant (in the config) does too, where TLC's deadlock check sees the
// event's step enabled. A state with a fallback is never stuck.
func TestTheTLAModuleReportsAStateWithNextStuckWhereOnlyAnOutsideEventApplies(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: pending
context:
  n: {type: int, default: 0, range: [0, 2]}
initial: work
states:
  work:
    do: count
    next:
      - {to: done, when: n < 2}
  other:
    next:
      - {to: done, when: n > 0}
      - work
  done: {final: true}
events:
  RESET: {from: "*", to: work}
  GO: {from: work, to: other}
`, spectest.Registry())
	mod, err := export.ExportTLA(m)
	require.NoError(t, err)
	require.Contains(t, string(mod.Module), "\nNotStuck ==\n    /\\ ~(state = \"work\" /\\ phase = \"act\" /\\ ~(n < 2))\n\n")
	require.NotContains(t, string(mod.Module), `state = "other" /\ phase = "act" /\ ~`)
	require.Contains(t, string(mod.Config), "\n    NotStuck\n")
	require.Contains(t, string(mod.Module), "work_RESET_0 ==") // the runs that had the event pending
}

// The values an action declares it writes (tools.call's status) are the
// module's domain for the variable, and its comment says where they come
// from, as the check's report does.
func TestTheTLADomainOfADeclaredWriteIsItsValues(t *testing.T) {
	reg := spectest.Registry()
	reg.MustRegister(machine.Action{Name: "probe", Run: func(context.Context, *machine.Call) error { return nil },
		Writes: []machine.VarSpec{{Name: "status", Type: spec.TypeString, Values: []any{"ok", "error", "blocked"}}}})
	m := spectest.Compile(t, `lpp: 1
name: declared
context:
  status: {type: string, default: ""}
initial: call
states:
  call:
    do: probe
    next:
      - {to: done, when: 'status == "ok"'}
      - {to: call}
  done: {final: true}
`, reg)
	mod, err := export.ExportTLA(m)
	require.NoError(t, err)
	require.Contains(t, string(mod.Module), "Dom_status == {\"ok\", \"error\", \"blocked\"}  \\* declared\n")
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestCheckShippedSpecsHaveNoFalseAlarms checks every spec shipped in specs/
// at the default bounds: all pass, nothing is left UNKNOWN.
func TestCheckShippedSpecsHaveNoFalseAlarms(t *testing.T) {
	code, out, errOut := runCLI(t, "check", "--strict", "../../specs")
	if code != 0 {
		t.Fatalf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, spec := range []string{"../../specs/skills_agent.yaml", "../../specs/examples/retry_loop.yaml"} {
		if !strings.Contains(out, spec+": ") {
			t.Errorf("no report for %s:\n%s", spec, out)
		}
	}
	if strings.Contains(out, "FAIL") || strings.Contains(out, "UNKNOWN") {
		t.Errorf("a shipped spec does not check clean:\n%s", out)
	}
}

const checkDeadlockSpec = `lpp: 1
name: stuck
context:
  ok: {type: bool, default: false}
initial: gate
states:
  gate:
    do: noop
    next:
      - {to: done, when: ok}
  done: {final: true}
`

const checkDeadGuardSpec = `lpp: 1
name: dead_guard
context:
  n: {type: int, default: 0, range: [0, 3]}
initial: a
states:
  a:
    next:
      - {to: b, when: n > 5}
      - {to: b}
  b:
    next: [done]
  done: {final: true}
`

const checkLoopSpec = `lpp: 1
name: loop
limits: {max_transitions: 1000}
context:
  i: {type: int, default: 0}
initial: a
states:
  a:
    set: {i: i + 1}
    next:
      - {to: done, when: i >= 500}
      - {to: a}
  done: {final: true}
`

func TestCheckCommand(t *testing.T) {
	stuck := writeSpec(t, checkDeadlockSpec)
	dead := writeSpec(t, checkDeadGuardSpec)
	loop := writeSpec(t, checkLoopSpec)
	broken := writeSpec(t, "lpp: 1\nname: b\ninitial: a\nstates:\n  a:\n    next: dne\n  done: {final: true}\n")
	// Invalid for what the general actions' checks see (actions.CheckSpec),
	// and naming a prompt and a script that exist in no project: the check
	// refuses the first, and leaves the files a run needs to validate.
	noOutput := writeSpec(t, "lpp: 1\nname: b\ncontext:\n  n: {type: int, default: 0}\ninitial: a\nstates:\n  a:\n    do: llm.generate\n    with: {prompt: nowhere.md}\n    next: [b]\n  b:\n    do: script.run\n    with: {script: scripts/nowhere.py, input: {x: nn}}\n    next: [done]\n  done: {final: true}\n")
	elsewhere := writeSpec(t, "lpp: 1\nname: b\ncontext:\n  n: {type: int, default: 0}\n  s: {type: string, default: \"\"}\ninitial: a\nstates:\n  a:\n    do: llm.generate\n    with: {prompt: nowhere.md, output: s}\n    next: [b]\n  b:\n    do: script.run\n    with: {script: scripts/nowhere.py, input: {x: n}}\n    next: [done]\n  done: {final: true}\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr string   // exact
	}{
		{"a deadlock fails with its counterexample", []string{"check", stuck}, 1, []string{
			"  FAIL    no deadlock\n          " + stuck + ":7:3: state \"gate\" is stuck: every guard is false: ok (ok=false), and no event applies\n",
			"           1. gate  stops here\n",
		}, "lppctl: " + stuck + ": a property fails (see the counterexample above)\n"},
		{"an invalid spec exits 3", []string{"check", broken}, 3, []string{"transition to unknown state \"dne\""},
			"lppctl: " + broken + " is invalid: 1 error\n"},
		{"a spec the general actions' checks refuse exits 3, as in validate", []string{"check", noOutput}, 3, []string{
			noOutput + ":8:9: error: action \"llm.generate\" needs output: or map:, or the reply goes nowhere\n",
			noOutput + ":13:51: error: input.x of action \"script.run\": unknown name nn\n",
		}, "lppctl: " + noOutput + " is invalid: 2 errors\n"},
		{"files only a run reads are left to validate", []string{"check", elsewhere}, 0, []string{"  PASS    no deadlock\n"}, ""},
		{"a file that does not exist exits 2, as in validate", []string{"check", "nope.yaml", broken}, 2, nil,
			"lppctl: cannot read spec: open nope.yaml: no such file or directory (and 1 more invalid specs)\n"},
		{"a dead guard only warns", []string{"check", dead}, 0, []string{
			"  1 transition no explored path took:\n          " + dead + ":9:9: state \"a\" next[0] → b, when n > 5\n",
		}, ""},
		{"a dead guard fails with --strict", []string{"check", "--strict", dead}, 1, []string{"no explored path took"},
			"lppctl: " + dead + ": warnings fail with --strict (UNKNOWN verdicts, transitions no path takes, validation warnings)\n"},
		{"max-states stops with UNKNOWN and a warning", []string{"check", "--max-states", "10", loop}, 0, []string{
			"  stopped early: max-states: 10 distinct (state, context) pairs explored; raise --max-states\n",
			"  UNKNOWN no deadlock\n",
		}, ""},
		{"max-states UNKNOWN fails with --strict", []string{"check", "--strict", "--max-states", "10", loop}, 1, []string{"UNKNOWN"},
			"lppctl: " + loop + ": warnings fail with --strict (UNKNOWN verdicts, transitions no path takes, validation warnings)\n"},
		{"the bound is enough at its default", []string{"check", "--strict", loop}, 0, []string{"  PASS    termination (no trap)\n"}, ""},
		{"mermaid draws the counterexample", []string{"check", "--counterexample-format", "mermaid", stuck}, 1, []string{"%% counterexample of deadlock\n", "stateDiagram-v2"},
			"lppctl: " + stuck + ": a property fails (see the counterexample above)\n"},
		{"unknown counterexample format", []string{"check", "--counterexample-format", "dot", stuck}, 2, nil,
			"lppctl: unknown counterexample format \"dot\" (formats: text, mermaid)\n"},
		{"max-states must be positive", []string{"check", "--max-states", "0", stuck}, 2, nil, "lppctl: --max-states must be positive, not 0\n"},
		{"no arguments is a usage error", []string{"check"}, 2, nil, "lppctl: check needs at least one spec file: lppctl check SPEC...\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.HasPrefix(errOut, tt.stderr) || (tt.stderr == "" && errOut != "") {
				t.Errorf("stderr = %q, want %q", errOut, tt.stderr)
			}
		})
	}
}

// TestCheckCommandStartsFromVarsAndInputs: --var fixes a variable's first
// value, --inputs starts it from every value of its domain; a mistake is a
// usage error naming the spec.
func TestCheckCommandStartsFromVarsAndInputs(t *testing.T) {
	stuck := writeSpec(t, checkDeadlockSpec)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr string   // exact prefix
	}{
		{"a given value that opens the gate passes", []string{"check", "--var", "ok=true", stuck}, 0,
			[]string{"  starts from: ok=true (given)\n", "  PASS    no deadlock\n"}, ""},
		{"a free input finds the value that shuts it", []string{"check", "--inputs", "ok", stuck}, 1,
			[]string{"  starts from: ok ∈ {false, true} (input)\n", "              inputs: ok=false\n           1. gate  stops here\n"},
			"lppctl: " + stuck + ": a property fails (see the counterexample above)\n"},
		{"an unknown variable", []string{"check", "--var", "okk=true", stuck}, 2, nil,
			"lppctl: " + stuck + ": --var okk=true: the spec has no context variable \"okk\"; did you mean \"ok\"?\n"},
		{"an unknown input", []string{"check", "--inputs", "ko", stuck}, 2, nil,
			"lppctl: " + stuck + ": cannot make ko an input: the spec has no context variable \"ko\"; did you mean \"ok\"?\n"},
		{"an input also given", []string{"check", "--inputs", "ok", "--var", "ok=true", stuck}, 2, nil,
			"lppctl: " + stuck + ": cannot make ok an input: it is also given a value; drop one of the two\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.HasPrefix(errOut, tt.stderr) || (tt.stderr == "" && errOut != "") {
				t.Errorf("stderr = %q, want %q", errOut, tt.stderr)
			}
		})
	}
}

func TestCheckCommandJSON(t *testing.T) {
	stuck := writeSpec(t, checkDeadlockSpec)
	code, out, _ := runCLI(t, "check", "--json", stuck)
	if code != 1 {
		t.Fatalf("exit code %d, want 1\n%s", code, out)
	}
	var reports []jsonCheckReport
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if len(reports) != 1 || reports[0].OK || reports[0].Report == nil {
		t.Fatalf("reports = %+v", reports)
	}
	p := reports[0].Report.Property(check.PropDeadlock)
	if p == nil || p.Verdict != check.Fail || p.Trace == nil || len(p.Trace.Steps) != 1 || p.Pos.Line != 7 {
		t.Fatalf("deadlock = %+v", p)
	}
	if got := p.Trace.Steps[0]; got.From != "gate" || got.To != "" {
		t.Errorf("step = %+v, want a stop in gate", got)
	}
}

// BenchmarkCheckSkillsAgent measures the full exploration of the Skills
// Agent spec at the default bounds:
//
//	go test ./cmd/lppctl -run '^$' -bench BenchmarkCheckSkillsAgent -benchtime 5x
func BenchmarkCheckSkillsAgent(b *testing.B) {
	reg, err := buildRegistry(agentConfig{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	spec, diags, err := mspec.Load("../../specs/skills_agent.yaml")
	if err != nil || diags.HasErrors() {
		b.Fatalf("load: %v %v", err, diags.Err())
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var states int
	for range b.N {
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
		if !r.Passed() || r.Unknowns() > 0 {
			b.Fatalf("the Skills Agent does not check clean:\n%s", report.Text(r, report.Options{}))
		}
		states = r.Stats.States
	}
	b.ReportMetric(float64(states), "states")
}

// checkSlowSpec has about a million pairs: long enough to interrupt.
const checkSlowSpec = `lpp: 1
name: slow
limits: {max_transitions: 100000000}
context:
  approval: {type: string, enum: ["", approved, rejected, replan], default: ""}
  step_count: {type: int, default: 0, range: [0, 999]}
  a: {type: int, default: 0, range: [0, 999]}
  b: {type: int, default: 0, range: [0, 999]}
initial: s
states:
  s:
    do: llm.generate
    with: {prompt: p.md, map: {step_count: /n}}
    set: {a: (a + step_count) % 1000}
    next:
      - {to: done, when: a == 999 && b == 7}
      - {to: s, set: {b: (b + a) % 1000}}
  done: {final: true}
`

// TestCheckCtrlCPrintsPartialStatistics interrupts a long check: it prints
// what it explored so far, the undecided properties UNKNOWN, and exits 130.
func TestCheckCtrlCPrintsPartialStatistics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := buildLppctl(t)
	spec := writeSpec(t, checkSlowSpec)
	cmd := exec.Command(bin, "check", "--max-states", "100000000", spec)
	// The Ctrl-C comes at a fixed point: the check's first progress report,
	// a second into the exploration, its signal handler in place (a real
	// SIGINT the process sends itself), so that nothing depends on timing.
	cmd.Env = childEnv("check-progress:1:INT")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee) && ee.ExitCode() == exitInterrupted, "exit = %v, want %d\nstdout:\n%s\nstderr:\n%s", err, exitInterrupted, out.String(), errOut.String())
	for _, want := range []string{spec + ": ", "  stopped early: interrupted\n", "  UNKNOWN no deadlock\n"} {
		assert.Contains(t, out.String(), want)
	}
	assert.Equal(t, "lppctl: check interrupted: the statistics above are partial\n", errOut.String())
}

// TestCheckDocsWorkedCounterexampleIsCurrent runs the worked example of
// docs/check.md and finds every line of the output the doc shows (the first
// line's timing and the elided steps aside).
func TestCheckDocsWorkedCounterexampleIsCurrent(t *testing.T) {
	doc, err := os.ReadFile("../../docs/check.md")
	if err != nil {
		t.Fatal(err)
	}
	section, ok := strings.CutPrefix(string(doc)[strings.Index(string(doc), "## A worked counterexample"):], "## A worked counterexample")
	if !ok {
		t.Fatal("docs/check.md has no worked counterexample")
	}
	block := func(lang string) string {
		_, rest, ok := strings.Cut(section, "```"+lang+"\n")
		if !ok {
			t.Fatalf("the worked counterexample has no %s block", lang)
		}
		body, _, _ := strings.Cut(rest, "```")
		return body
	}
	spec := filepath.Join(t.TempDir(), "review.yaml")
	if err := os.WriteFile(spec, []byte(block("yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "check", spec)
	if code != exitFailed {
		t.Fatalf("exit code %d, want %d\n%s", code, exitFailed, out)
	}
	out = strings.ReplaceAll(out, spec, "review.yaml")
	for i, line := range strings.Split(strings.TrimSpace(block("text")), "\n") {
		if i < 2 || strings.TrimSpace(line) == "..." || strings.HasPrefix(line, "lppctl: ") {
			continue // the command, the timing line, elided steps, stderr
		}
		if !strings.Contains(out, line+"\n") {
			t.Errorf("docs/check.md shows a line the check no longer prints:\n%s\noutput:\n%s", line, out)
		}
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "review.yaml: 16 (state, context) pairs, 34 transitions, depth 5, ") {
		t.Errorf("first line = %q, docs/check.md says 16 (state, context) pairs, 34 transitions, depth 5", first)
	}
}

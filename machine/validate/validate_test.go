package validate

import (
	"flag"
	"github.com/stretchr/testify/assert"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

var update = flag.Bool("update", false, "rewrite golden files (and docs/spec.schema.json) with the actual output")

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read golden file (run with -update to create it): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestBrokenSpecsReportGoldenDiagnostics checks the whole report for every spec of the broken corpus.
func TestBrokenSpecsReportGoldenDiagnostics(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.yaml")
	if err != nil || len(files) < 100 {
		t.Fatalf("want at least 100 broken specs, got %d (%v)", len(files), err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			spec, diags := Check(filepath.ToSlash(file), src, machine.NewBuiltinRegistry())
			if len(diags) == 0 {
				t.Fatal("a broken spec produced no diagnostics")
			}
			if name != "unbounded_cycle_warning" && !diags.HasErrors() {
				t.Errorf("want at least one error, got only warnings:\n%s", diags.PrettyAll(src))
			}
			checkGolden(t, strings.TrimSuffix(file, ".yaml")+".golden", []byte(diags.PrettyAll(src)+"\n"))
			if spec != nil && !diags.HasErrors() {
				if _, err := machine.Compile(spec, machine.NewBuiltinRegistry()); err != nil {
					t.Errorf("the spec validates but does not compile: %v", err)
				}
			}
		})
	}
}

// TestValidSpecsValidateAndCompile checks that the example specs are clean and compile.
func TestValidSpecsValidateAndCompile(t *testing.T) {
	files, _ := filepath.Glob("testdata/specs/*.yaml")
	if len(files) == 0 {
		t.Fatal("no specs under testdata/specs")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			spec, diags := Check(file, src, machine.NewBuiltinRegistry())
			if len(diags) > 0 {
				t.Fatalf("want no diagnostics, got:\n%s", diags.PrettyAll(src))
			}
			if _, err := machine.Compile(spec, machine.NewBuiltinRegistry()); err != nil {
				t.Fatalf("validates but does not compile: %v", err)
			}
		})
	}
}

const validBase = `lpp: 1
name: t
context:
  retries: {type: int, default: 0}
  max_retries: {type: int, default: 3}
  verdict: {type: string, enum: ["", PASS, FAIL], default: ""}
  reply: string
initial: a
states:
  a:
    do: noop
    next:
      - {to: b, when: retries < max_retries, set: {retries: retries + 1}}
      - done
  b:
    do: noop
    next: a
  done: {final: true}
`

const cycleWarning = `t.yaml:10:3: warning: cycle a → b → a is not bounded: no guard on it compares a counter that the cycle steps, and no action on it writes a variable its guards read; count its rounds (e.g. set: {rounds: rounds + 1}) and leave it with a guard such as when: rounds >= max_rounds; until then only limits.max_transitions stops it`

func TestAMisspeltStatesKeyIsReportedOnce(t *testing.T) {
	src := `lpp: 1
name: t
initial: a
stats:
  a: {do: noop, next: done}
  done: {final: true}
events:
  RESET: {from: [a], to: a}
`
	_, diags := Check("t.yaml", []byte(src), machine.NewBuiltinRegistry())
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	assert.Equal(t, []string{
		`t.yaml:1:1: error: missing key "states"; a spec needs at least one state and one final state`,
		`t.yaml:4:1: error: unknown key "stats" in the spec; did you mean "states"?`,
	}, got, "no event goes to an unknown state when no states are defined at all")
}

func TestValidateReportsExactMessages(t *testing.T) {
	tests := []struct {
		name    string
		replace [2]string // applied to validBase
		append  string
		want    []string // Diagnostic.String() of every diagnostic, in order
	}{
		{
			name:    "misspelt variable in a guard suggests the variable",
			replace: [2]string{"when: retries < max_retries", "when: retires < max_retries"},
			want:    []string{`t.yaml:13:23: error: guard: unknown name retires; did you mean "retries"?`},
		},
		{
			name:    "an unknown name next to % in a guard",
			replace: [2]string{"when: retries < max_retries", "when: retires % 2 > 0"},
			want:    []string{`t.yaml:13:23: error: guard: unknown name retires; did you mean "retries"?`},
		},
		{
			name:    "an unknown name next to % in a set",
			replace: [2]string{"set: {retries: retries + 1}", "set: {retries: retires % 2}"},
			want:    []string{`t.yaml:13:61: error: set retries: unknown name retires; did you mean "retries"?`},
		},
		{
			name:    "comparing an int with a string is a type error",
			replace: [2]string{"when: retries < max_retries", `when: retries < "3"`},
			want:    []string{`t.yaml:13:31: error: guard: invalid operation: < (mismatched types int and string); both sides must have compatible types: numbers are written without quotes, strings with them`},
		},
		{
			name:    "adding two lists says to concat them",
			replace: [2]string{"set: {retries: retries + 1}", `set: {retries: 'len([1] + [2])'}`},
			want:    []string{`t.yaml:13:70: error: set retries: invalid operation: + (mismatched types list and list); + does not join lists: write concat(a, b) (concat(l, [x]) appends one item)`},
		},
		{
			name:    "an expression for a duration that reads an unknown name says so (not: is not a duration)",
			replace: [2]string{"  b:\n    do: noop", "  b:\n    do: wait\n    with: {duration: 'string(retires) + \"s\"'}"},
			want:    []string{`t.yaml:17:30: error: parameter "duration": unknown name retires; did you mean "retries"?`},
		},
		{
			name:    "a word for a duration is not a duration",
			replace: [2]string{"  b:\n    do: noop", "  b:\n    do: wait\n    with: {duration: soon}"},
			want:    []string{`t.yaml:17:22: error: parameter "duration" of action "wait": "soon" is not a duration like 500ms, 2s or 1m30s, nor an expression that gives one; a duration is not negative and has a unit: ns, us, ms, s, m or h (e.g. 1m30s); an expression gives such a text or a duration, e.g. 'string(2 * retries) + "s"' or 'duration("1s") * retries'`},
		},
		{
			name:    "unknown target suggests the closest state",
			replace: [2]string{"next: a", "next: aa"},
			want:    []string{`t.yaml:17:11: error: transition to unknown state "aa"; did you mean "a"?`},
		},
		{
			name:    "unknown action suggests a registered one",
			replace: [2]string{"  b:\n    do: noop", "  b:\n    do: nop"},
			want:    []string{`t.yaml:16:9: error: unknown action "nop"; did you mean "noop"?`},
		},
		{
			name:    "unknown parameter lists the signature",
			replace: [2]string{"  b:\n    do: noop", "  b:\n    do: log\n    with: {mesage: hi}"},
			want: []string{
				`t.yaml:16:9: error: action "log" needs parameter "message"; add it under with:; log takes message: string (required), value: expr, level: string = info`,
				`t.yaml:17:12: error: action "log" has no parameter "mesage"; did you mean "message"? log takes message: string (required), value: expr, level: string = info`,
			},
		},
		{
			name:    "dead transition after an unguarded one",
			replace: [2]string{"      - done\n", "      - done\n      - b\n"},
			want:    []string{`t.yaml:15:9: error: transition to "b" can never fire: the unguarded transition to "done" above always fires first; give the transition to "done" a when:, or move it to the end of next`},
		},
		{
			name:    "enum literal in a guard",
			replace: [2]string{"when: retries < max_retries", `when: verdict != "PAS"`},
			want:    []string{`t.yaml:13:34: error: guard: "PAS" is not one of the values of verdict ["", "PASS", "FAIL"]; did you mean "PASS"?`},
		},
		{
			name:    "enum literal in a set",
			replace: [2]string{"set: {retries: retries + 1}", `set: {verdict: '"FAILED"'}`},
			want: []string{
				`t.yaml:13:62: error: set verdict: "FAILED" is not one of ["", "PASS", "FAIL"]; did you mean "FAIL"?`,
			},
		},
		{
			name:   "unreachable state",
			append: "  lost: {final: true}\n",
			want:   []string{`t.yaml:19:3: error: state "lost" is unreachable from the initial state "a"; no transition, on_error route or event goes to it: add one, or remove the state`},
		},
		{
			name:    "cycle without a counter is a warning",
			replace: [2]string{"when: retries < max_retries, set: {retries: retries + 1}", `when: reply == ""`},
			want:    []string{cycleWarning},
		},
		{
			name:   "event from a final state and to an unknown state",
			append: "events:\n  STOP: {from: [a, done], to: dne}\n",
			want: []string{
				`t.yaml:20:20: error: event "STOP" can never fire from final state "done"; a final state ends the run before events are considered; remove it from from:`,
				`t.yaml:20:31: error: event "STOP" goes to unknown state "dne"; did you mean "done"?`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := validBase
			if tt.replace[0] != "" {
				if !strings.Contains(src, tt.replace[0]) {
					t.Fatalf("base spec has no %q", tt.replace[0])
				}
				src = strings.Replace(src, tt.replace[0], tt.replace[1], 1)
			}
			src += tt.append
			_, diags := Check("t.yaml", []byte(src), machine.NewBuiltinRegistry())
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidatePrettyPointsAtTheMistake(t *testing.T) {
	src := strings.Replace(validBase, "next: a", "next: aa", 1)
	_, diags := Check("t.yaml", []byte(src), machine.NewBuiltinRegistry())
	want := "t.yaml:17:11: error: transition to unknown state \"aa\"\n" +
		" 17 |     next: aa\n" +
		"    |           ^^\n" +
		"    = did you mean \"a\"?"
	if len(diags) != 1 {
		t.Fatalf("want 1 diagnostic, got %v", diags)
	}
	if got := diags[0].Pretty([]byte(src)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestValidateChecksActionWrites(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "judge", Run: machine.BuiltinActions()[0].Run, Writes: []machine.VarSpec{
		{Name: "verdict", Type: mspec.TypeString}, {Name: "score", Type: mspec.TypeFloat}, {Name: "retries", Type: mspec.TypeString},
		{Name: "label", Type: mspec.TypeAny},
	}})
	src := strings.Replace(validBase, "  b:\n    do: noop", "  b:\n    do: judge", 1)
	_, diags := Check("t.yaml", []byte(src), reg)
	want := []string{
		"t.yaml:16:9: error: action \"judge\" writes context variable \"score\", which the spec does not declare; declare it under context: `score: float`",
		"t.yaml:16:9: error: action \"judge\" writes \"retries\" as string, but the spec declares it as int; declare it as `retries: string`",
		"t.yaml:16:9: error: action \"judge\" writes context variable \"label\", which the spec does not declare; declare it under context with the type of its values: `label: string` (or int, float, bool, list, map)",
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestActionWritesBoundACycle(t *testing.T) {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "judge", Run: machine.BuiltinActions()[0].Run, Writes: []machine.VarSpec{{Name: "verdict", Type: mspec.TypeString}}})
	src := strings.Replace(validBase, "when: retries < max_retries, set: {retries: retries + 1}", `when: verdict != "PASS"`, 1)
	src = strings.Replace(src, "  b:\n    do: noop", "  b:\n    do: judge", 1)
	if _, diags := Check("t.yaml", []byte(src), reg); len(diags) != 0 {
		t.Errorf("want no warning for a cycle bounded by an action's writes, got:\n%s", diags.PrettyAll([]byte(src)))
	}
}

func TestValidateNilSpec(t *testing.T) {
	if diags := Validate(nil, machine.NewBuiltinRegistry()); diags != nil {
		t.Errorf("got %v", diags)
	}
}

// TestGraphChecksRunOnPartialSpecs checks that decode errors and undefined
// targets no longer hold back the graph checks, and that the graph checks
// report only what the errors cannot change (no cascades).
func TestGraphChecksRunOnPartialSpecs(t *testing.T) {
	tests := []struct {
		file string
		want []string // substrings of Diagnostic.String(), each reported exactly once
		not  []string // substrings that must not be reported
	}{
		{
			file: "mixed_key_to_unreachable",
			want: []string{
				`3:1: error: unknown key "descripton" in the spec`,
				`10:11: error: transition to unknown state "reveiw"`,
				`16:3: error: state "archive" is unreachable`,
				`19:3: error: state "stuck" is unreachable`,
				`19:3: error: state "stuck" has no way out`,
			},
			// review is reached through the misspelt target that means it
			not: []string{`error: state "review"`, `error: state "draft"`, "no final state"},
		},
		{
			file: "mixed_state_errors",
			want: []string{
				`9:5: error: unknown key "nxt" in state "work"`,
				`16:3: error: no final state can be reached from state "spin"`,
				`19:36: error: guard: unexpected end of the expression`,
				`21:3: error: no final state can be reached from state "spin2"`,
				`23:21: error: parameter "message" of action "log"`,
				`25:3: error: state "orphan" is unreachable`,
				`28:17: error: final must be true or false`,
				`29:3: error: state "failed" is unreachable`,
			},
			// work lost its next to a decode error; done may be final
			not: []string{`state "work" has no way out`, `error: state "check"`, `error: state "done"`, `from state "work"`, `from state "check"`, "the spec has no final state"},
		},
		{
			file: "mixed_dropped_and_events",
			want: []string{
				`10:14: error: transition to unknown state "middle-step"`,
				`12:3: error: state name "middle-step" is not an identifier`,
				`20:14: error: transition to unknown state "nowhere"`,
				`21:3: error: state "island" is unreachable`,
				`28:5: error: unknown key "nte" in event "RESET"`,
			},
			// finish is named by the dropped state; loop may leave through its undefined target
			not: []string{`error: state "finish"`, `error: state "loop"`, `from state "loop"`, `from state "island"`},
		},
		{
			file: "mixed_no_final",
			want: []string{
				`5:3: error: duplicate context variable "retries"`,
				`8:3: error: the spec has no final state`,
				`11:31: error: guard: invalid operation`,
				`16:3: error: state "c" has no way out`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/broken/" + tt.file + ".yaml"
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, diags := Check(path, src, machine.NewBuiltinRegistry())
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if n := strings.Count(all, w); n != 1 {
					t.Errorf("want %q reported once, got %d times in:\n%s", w, n, all)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(all, n) {
					t.Errorf("want nothing about %q (a cascade), got:\n%s", n, all)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("want %d diagnostics, got %d:\n%s", len(tt.want), len(got), all)
			}
		})
	}
}

func TestEmptyTargetIsAnError(t *testing.T) {
	src := strings.Replace(validBase, "next: a", `next: [{to: ""}]`, 1)
	_, diags := Check("t.yaml", []byte(src), machine.NewBuiltinRegistry())
	if len(diags) == 0 || diags[0].String() != `t.yaml:17:17: error: transition to an empty state name; states are: a, b, done` {
		t.Errorf("got %v", diags)
	}
}

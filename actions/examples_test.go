package actions

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/internal/testenv"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const examplesSpec = `lpp: 1
name: demo
context:
  value:  {type: float, default: 0}
  path:   {type: string, default: ""}
  result: {type: float, default: 0}
  lines:  {type: int, default: 0}
  report: {type: string, default: ""}
initial: convert
states:
  convert:
    do: script.run
    with: {script: skills/demo/scripts/convert.py, input: {value: value, path: path}, output: {result: result, lines: lines, report: report}}
    next: [done]
  done: {final: true}
`

const examplesScript = `import json, sys
d = json.load(sys.stdin)
lines = 0
if d["path"]:
    with open(d["path"]) as f:
        lines = len(f.read().splitlines())
r = d["value"] * FACTOR
print(json.dumps({"result": r, "lines": lines, "report": "%g ft = %g m" % (d["value"], r)}))
`

func TestRunExample(t *testing.T) {
	testenv.Python(t)
	script := func(factor string) map[string]string {
		return map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "FACTOR = " + factor + "\n" + examplesScript}
	}
	tests := []struct {
		name    string
		files   map[string]string
		example map[string]any
		pass    bool
		text    string
	}{
		{
			name:    "a right answer passes, numbers within the tolerance",
			files:   script("0.3048"),
			example: map[string]any{"name": "12 ft", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 3.6576}},
			pass:    true, text: `example 1 "12 ft" (vars {"value":12}): result: expected 3.6576, got 3.6576`,
		},
		{
			name:    "a wrong answer says expected and got",
			files:   script("0.3"),
			example: map[string]any{"name": "12 ft", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 3.6576}},
			text:    `example 1 "12 ft" (vars {"value":12}): result: expected 3.6576, got 3.6`,
		},
		{
			name:    "an absolute tolerance is the example's",
			files:   script("0.3049"),
			example: map[string]any{"name": "rough", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 3.6576}, "tolerance": 0.002},
			pass:    true, text: `example 1 "rough" (vars {"value":12}): result: expected 3.6576, got 3.6588`,
		},
		{
			name:    "without a tolerance a number is compared within 0.01 % of the expected value, however small",
			files:   script("0"),
			example: map[string]any{"name": "5 mm in km", "vars": map[string]any{"value": 5}, "expect": map[string]any{"result": 0.000005}},
			text:    `example 1 "5 mm in km" (vars {"value":5}): result: expected 0.000005, got 0`,
		},
		{
			name:    "a whole number off by one fails, however large (0.01 % of 19723 is more than 1)",
			files:   script("1"),
			example: map[string]any{"name": "a day number", "vars": map[string]any{"value": 19724}, "expect": map[string]any{"result": 19723}},
			text:    `example 1 "a day number" (vars {"value":19724}): result: expected 19723, got 19724`,
		},
		{
			name:    "a whole number matches a float a rounding away from it",
			files:   script("(1 / 3)"),
			example: map[string]any{"name": "a third of 30000", "vars": map[string]any{"value": 30000}, "expect": map[string]any{"result": 10000}},
			pass:    true, text: `example 1 "a third of 30000" (vars {"value":30000}): result: expected 10000, got 10000`,
		},
		{
			name:    "a tolerance that is not small next to the expected value is refused",
			files:   script("0"),
			example: map[string]any{"name": "loose", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 7}, "tolerance": 100},
			text:    `example 1 "loose" (vars {"value":12}): tolerance 100 is not small next to the values it expects (at most 0.07 here, 1 % of the smallest): leave it out (numbers are compared within 0.01 %) or make it smaller`,
		},
		{
			name:    "an empty contains text is refused",
			files:   script("1"),
			example: map[string]any{"name": "any", "vars": map[string]any{"value": 1}, "contains": map[string]any{"report": ""}},
			text:    `example 1 "any" (vars {"value":1}): contains report is an empty text, which every text holds: give the text report must hold, or leave it out`,
		},
		{
			name:    "a string expected where the run gives a number says both types",
			files:   script("1.609344"),
			example: map[string]any{"name": "1 mi", "vars": map[string]any{"value": 1}, "expect": map[string]any{"result": "1.609344"}},
			text:    `example 1 "1 mi" (vars {"value":1}): result: expected the string "1.609344", got the number 1.609344`,
		},
		{
			name:    "an example's file never replaces the skill's script",
			files:   script("0"),
			example: map[string]any{"name": "shadow", "vars": map[string]any{"value": 12}, "files": map[string]any{"scripts/convert.py": "print('{\"result\": 3.6576}')\n"}, "expect": map[string]any{"result": 3.6576}},
			text:    `example 1 "shadow" (vars {"value":12}): file scripts/convert.py is not an input file: an example's files go under reference/ (e.g. reference/convert.py), never over the skill's own files (its spec, scripts, skills.md)`,
		},
		{
			name:    "an example's file never replaces a reference file the skill holds",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "FACTOR = 1\n" + examplesScript, "reference/in.txt": "x\n"},
			example: map[string]any{"name": "over", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/in.txt"}, "files": map[string]any{"reference/in.txt": "a\nb\nc\n"}, "expect": map[string]any{"lines": 3}},
			text:    `example 1 "over" (vars {"path":"skills/demo/reference/in.txt","value":1}): file reference/in.txt is one of the skill's own files; an example's input file never replaces one (name it otherwise under reference/, and leave it out of the skill)`,
		},
		{
			name:    "an error example passes when a script refuses its input, and says how the run failed",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import sys\nsys.exit('no such file: missing.txt')\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			pass:    true, text: `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): the run failed, as expected: no such file: missing.txt`,
		},
		{
			name:    "an error example whose run fails by a crash fails: an uncaught exception is not a refusal",
			files:   script("1"),
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to refuse its input (an error example), but a script crashed (FileNotFoundError: [Errno 2] No such file or directory: 'skills/demo/reference/missing.txt'): an uncaught exception is a bug, not a refusal, and passes for any input it cannot handle; check the input and refuse it with a message saying why (sys.exit("why"), or print it to stderr and exit 1)`,
		},
		{
			name:    "an error example whose script returns without printing its answer fails: it is no refusal",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import sys\nsys.exit(0)\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to refuse its input (an error example), but a script ended with exit code 0 without printing its JSON answer (a return where it should refuse, or an answer never printed): a failure without a message is a bug, not a refusal, and passes for any input the script cannot handle; check the input and refuse it with a message saying why (sys.exit("why"), or print it to stderr and exit 1)`,
		},
		{
			name:    "an error example whose script prints an error instead of its answer (exit code 0) passes, and says the error",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import json\nprint(json.dumps({'error': 'no such file: missing.txt'}))\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			pass:    true, text: `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): the run failed, as expected: no such file: missing.txt`,
		},
		{
			name:    "an error example whose script prints an object without its answer or an error (exit code 0) fails: it is no refusal",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import json\nprint(json.dumps({'status': 'failed'}))\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to refuse its input (an error example), but a script ended with exit code 0 printing a JSON object without the keys the spec reads and without an "error" saying why (a return of a partial answer where it should refuse): a failure without a message is a bug`,
		},
		{
			name:    "an example that expects a value fails when its script prints an error instead (exit code 0), and says the error",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import json\nprint(json.dumps({'error': 'unknown unit'}))\n"},
			example: map[string]any{"name": "12 ft", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 3.6576}},
			text:    `example 1 "12 ft" (vars {"value":12}): `,
		},
		{
			name:    "an error example whose script exits non-zero without a message fails: it is no refusal",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import sys\nsys.exit(2)\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to refuse its input (an error example), but a script exited with code 2 without a message (nothing on stderr or stdout): a failure without a message is a bug`,
		},
		{
			name:    "an error example whose silent failure is routed to a final state of its own fails",
			files:   map[string]string{"demo.yaml": strings.Replace(examplesSpec, "    next: [done]\n  done: {final: true}\n", "    next: [done]\n    on_error: failed\n  done: {final: true}\n  failed: {final: true, do: log, with: {message: cannot convert, value: last_error}}\n", 1), "scripts/convert.py": "import sys\nsys.exit(1)\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to refuse its input (an error example), but a script exited with code 1 without a message (nothing on stderr or stdout) before the run ended in state failed: a failure without a message is a bug`,
		},
		{
			name:    "an error example refused by a message on stdout and a non-zero exit passes",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import sys\nprint('no such file: missing.txt')\nsys.exit(1)\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			pass:    true, text: `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): the run failed, as expected: no such file: missing.txt`,
		},
		{
			name:    "an error example whose run completes where the others succeed fails",
			files:   map[string]string{"demo.yaml": strings.Replace(examplesSpec, "    next: [done]\n", "    next: [done]\n    on_error: done\n", 1), "scripts/convert.py": "FACTOR = 1\n" + examplesScript},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to fail (an error example), but it completed in state done, where the examples that succeed end`,
		},
		{
			name:    "an error example whose crash is routed to a final state of its own fails",
			files:   map[string]string{"demo.yaml": strings.Replace(examplesSpec, "    next: [done]\n  done: {final: true}\n", "    next: [done]\n    on_error: failed\n  done: {final: true}\n  failed: {final: true, do: log, with: {message: cannot convert, value: last_error}}\n", 1), "scripts/convert.py": "FACTOR = 1\n" + examplesScript},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			text:    `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): expected the run to refuse its input (an error example), but a script crashed (FileNotFoundError: [Errno 2] No such file or directory: 'skills/demo/reference/missing.txt') before the run ended in state failed: an uncaught exception is a bug`,
		},
		{
			name:    "an error example refused by a script and routed to a final state of its own passes",
			files:   map[string]string{"demo.yaml": strings.Replace(examplesSpec, "    next: [done]\n  done: {final: true}\n", "    next: [done]\n    on_error: failed\n  done: {final: true}\n  failed: {final: true, do: log, with: {message: cannot convert, value: last_error}}\n", 1), "scripts/convert.py": "import sys\nsys.exit('no such file: missing.txt')\n"},
			example: map[string]any{"name": "no file", "kind": "error", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/missing.txt"}, "expect": map[string]any{}},
			pass:    true, text: `example 1 "no file" (vars {"path":"skills/demo/reference/missing.txt","value":1}): the run ended in state failed, not where the examples that succeed end, as expected`,
		},
		{
			name:    "input files are written into the copy and contains checks a text",
			files:   script("1"),
			example: map[string]any{"name": "a file", "vars": map[string]any{"value": 1, "path": "skills/demo/reference/in.txt"}, "files": map[string]any{"reference/in.txt": "a\nb\nc\n"}, "expect": map[string]any{"lines": 3}, "contains": map[string]any{"report": "1 ft = 1 m"}},
			pass:    true, text: `example 1 "a file" (vars {"path":"skills/demo/reference/in.txt","value":1}): lines: expected 3, got 3, report holds "1 ft = 1 m"`,
		},
		{
			name:    "a variable the spec does not have is named",
			files:   script("1"),
			example: map[string]any{"name": "x", "vars": map[string]any{"value": 1}, "expect": map[string]any{"metres": 1}},
			text:    `example 1 "x" (vars {"value":1}): metres: expected 1, but the spec has no variable metres`,
		},
		{
			name:    "a script that fails fails the example with its stderr",
			files:   map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import sys\nsys.exit('no factor table')\n"},
			example: map[string]any{"name": "x", "vars": map[string]any{"value": 1}, "expect": map[string]any{"result": 1}},
			text:    "no factor table",
		},
		{
			name:    "an example that expects nothing is refused",
			files:   script("1"),
			example: map[string]any{"name": "x", "vars": map[string]any{"value": 1}},
			text:    `example 1 "x" (vars {"value":1}): it expects nothing; give expect {variable: value} or contains {variable: text}`,
		},
		{
			name:    "a file outside the skill folder is refused",
			files:   script("1"),
			example: map[string]any{"name": "x", "vars": map[string]any{}, "files": map[string]any{"../../etc/x": "y"}, "expect": map[string]any{"result": 0}},
			text:    `example 1 "x" (vars {}): file "../../etc/x" must be a path inside the skill folder, relative to it`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := sandboxProject(t, tt.files)
			d := &Deps{Root: root}
			line, err := d.runExample(context.Background(), 1, tt.example, sandboxJob{dir: "gen/demo", spec: "demo.yaml", as: "skills/demo", run: true}, map[string]bool{"done": true})
			require.NoError(t, err)
			assert.Equal(t, tt.pass, line.pass, line.text)
			assert.Contains(t, line.text, tt.text)
			assert.NoDirExists(t, root+"/skills", "the examples ran in a copy")
		})
	}
}

const promisesChecker = `
lpp: 1
name: checker
context:
  target:   {type: string, default: ""}
  examples: {type: list}
  scripts:  {type: bool, default: false}
  ok:       {type: bool, default: false}
  report:   {type: string, default: ""}
  blame:    {type: string, default: ""}
  examples_bad: {type: bool, default: false}
  held_out: {type: list, default: []}
  spec_report: {type: string, default: ""}
initial: check
states:
  check:
    do: spec.promises
    with: {path: target, skill_path: '"skills/demo"', dir: '"gen/demo"', scripts: scripts, examples: examples, held_out: held_out, ok: ok, report: report, blame: blame, examples_bad: examples_bad, spec_report: spec_report}
    next: [done]
  done: {final: true}
`

// runChecker runs a one-state spec around an action and returns its context.
func runChecker(t *testing.T, root, src string, vars map[string]any) map[string]any {
	t.Helper()
	d := &Deps{Root: root}
	reg := machine.NewBuiltinRegistry()
	require.NoError(t, Register(reg, d))
	spec, diags := validate.Check("checker.yaml", []byte(src), reg)
	require.False(t, diags.HasErrors(), diags.PrettyAll([]byte(src)))
	m, err := machine.Compile(spec, reg)
	require.NoError(t, err)
	r, err := m.NewRun(vars)
	require.NoError(t, err)
	require.NoError(t, r.Run(context.Background()))
	return r.Vars()
}

func TestSpecPromises(t *testing.T) {
	ex := []any{map[string]any{"name": "12 ft", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 3.6576}}}
	tests := []struct {
		name     string
		files    map[string]string
		scripts  bool
		examples []any
		heldOut  []any
		ok       bool
		blame    string
		bad      bool
		report   string
		exact    bool   // report is the whole report
		specOnly string // the problems that name no example
	}{
		{name: "a blueprint whose scripts are the skill's and whose examples fit", files: map[string]string{"demo.yaml": examplesSpec}, examples: ex, ok: true, report: "gen/demo/demo.yaml: its scripts and the examples' variables are where the spec says"},
		{
			name:  "a script named outside the skill folder, with the path to use",
			files: map[string]string{"demo.yaml": strings.ReplaceAll(examplesSpec, "skills/demo/scripts/convert.py", "scripts/convert.py")},
			blame: "blueprint", report: `gen/demo/demo.yaml:13:20: state "convert" runs scripts/convert.py, which is not a script of the skill: name it skills/demo/scripts/convert.py (the skill is installed as skills/demo/; each script the spec runs is written in its scripts/ folder)`,
		},
		{
			name: "an example's variable the spec does not declare", files: map[string]string{"demo.yaml": examplesSpec},
			examples: []any{map[string]any{"name": "m", "vars": map[string]any{"feet": 12}, "expect": map[string]any{"result": 1}}},
			blame:    "blueprint", report: `gen/demo/demo.yaml: example 1 "m" gives "feet", which is not a context variable of the spec: declare it`,
		},
		{
			name: "an expected variable no state writes", files: map[string]string{"demo.yaml": strings.ReplaceAll(examplesSpec, "lines: lines, ", "")},
			examples: []any{map[string]any{"name": "n", "vars": map[string]any{}, "expect": map[string]any{"lines": 1}}},
			blame:    "blueprint", report: `gen/demo/demo.yaml: example 1 "n" checks "lines", but no state writes it`,
		},
		{
			name: "an example's value of the wrong type says both and how to write it", files: map[string]string{"demo.yaml": examplesSpec},
			examples: []any{map[string]any{"name": "1 mi", "vars": map[string]any{"value": "12"}, "expect": map[string]any{"result": "1.609344"}}},
			blame:    "blueprint", bad: true, report: `gen/demo/demo.yaml: example 1 "1 mi" gives value as the string "12", but value is a float in the spec: write the number 12, without quotes (or change the variable's type)
gen/demo/demo.yaml: example 1 "1 mi" expects result as the string "1.609344", but result is a float in the spec: write the number 1.609344, without quotes (or change the variable's type)`,
		},
		{
			name: "a held-out example's value of the wrong type is reported without its name or values", files: map[string]string{"demo.yaml": examplesSpec},
			examples: []any{
				map[string]any{"name": "1 mi", "kind": "typical", "vars": map[string]any{"value": 1}, "expect": map[string]any{"result": "1.609344"}},
				map[string]any{"name": "5 km in mi", "kind": "typical", "vars": map[string]any{"value": "5"}, "expect": map[string]any{"result": "3.10686", "report": 3.1}},
			},
			heldOut: []any{2}, blame: "blueprint", bad: true, exact: true,
			report: `gen/demo/demo.yaml: example 1 "1 mi" expects result as the string "1.609344", but result is a float in the spec: write the number 1.609344, without quotes (or change the variable's type)
gen/demo/demo.yaml: example 2 (typical; held out from the writer: its name, inputs and values are not shown) gives value as a string, but value is a float in the spec: write it as a number, without quotes (or change the variable's type)
gen/demo/demo.yaml: example 2 (typical; held out from the writer: its name, inputs and values are not shown) expects report as a number, but report is a string in the spec: write it as a string (or change the variable's type)
gen/demo/demo.yaml: example 2 (typical; held out from the writer: its name, inputs and values are not shown) expects result as a string, but result is a float in the spec: write it as a number, without quotes (or change the variable's type)`,
		},
		{
			name: "a held-out example's undeclared variable is named, the example is not", files: map[string]string{"demo.yaml": strings.ReplaceAll(examplesSpec, "skills/demo/scripts/convert.py", "scripts/convert.py")},
			examples: []any{map[string]any{"name": "5 km in mi", "kind": "edge", "vars": map[string]any{"miles": 5}, "expect": map[string]any{"result": 8.04672}}},
			heldOut:  []any{1}, blame: "blueprint", exact: true,
			report: `gen/demo/demo.yaml:13:20: state "convert" runs scripts/convert.py, which is not a script of the skill: name it skills/demo/scripts/convert.py (the skill is installed as skills/demo/; each script the spec runs is written in its scripts/ folder)
gen/demo/demo.yaml: example 1 (edge; held out from the writer: its name, inputs and values are not shown) gives "miles", which is not a context variable of the spec: declare it (the examples were written from the target; the spec must take their inputs and give their outputs)`,
			specOnly: `gen/demo/demo.yaml:13:20: state "convert" runs scripts/convert.py, which is not a script of the skill: name it skills/demo/scripts/convert.py (the skill is installed as skills/demo/; each script the spec runs is written in its scripts/ folder)`,
		},
		{
			name: "in phase 2 a script not written is named", files: map[string]string{"demo.yaml": examplesSpec}, scripts: true,
			blame: "implementation", report: `gen/demo/demo.yaml:13:20: state "convert" runs skills/demo/scripts/convert.py, but no step wrote scripts/convert.py in gen/demo; plan and write it`,
		},
		{
			name: "in phase 2 a script that never reads a key the spec sends", scripts: true,
			files: map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": strings.ReplaceAll("FACTOR = 1\n"+examplesScript, `d["value"]`, `d["amount"]`)},
			blame: "implementation", report: `gen/demo/demo.yaml:13:59: scripts/convert.py never names "value", the key state "convert" sends it (its input map); make the script use the keys the spec's input map names, or change the map`,
		},
		{
			name: "in phase 2 keys named as parameters count", scripts: true, ok: true, report: "its scripts and the examples' variables are where the spec says",
			files: map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "import json, sys\n\ndef main(value, path):\n    print(json.dumps(dict(result=value, lines=0, report=path)))\n\nmain(**json.load(sys.stdin))\n"},
		},
		{name: "in phase 2 a script that fits", scripts: true, files: map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": "FACTOR = 1\n" + examplesScript}, ok: true, report: "its scripts and the examples' variables are where the spec says"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := sandboxProject(t, tt.files)
			heldOut := tt.heldOut
			if heldOut == nil {
				heldOut = []any{}
			}
			vars := runChecker(t, root, promisesChecker, map[string]any{"target": "gen/demo/demo.yaml", "scripts": tt.scripts, "examples": tt.examples, "held_out": heldOut})
			assert.Equal(t, tt.ok, vars["ok"], vars["report"])
			assert.Equal(t, tt.blame, vars["blame"])
			assert.Equal(t, tt.bad, vars["examples_bad"])
			assert.Contains(t, vars["report"], tt.report)
			if tt.exact {
				assert.Equal(t, tt.report, vars["report"])
				assert.Equal(t, tt.specOnly, vars["spec_report"])
			}
		})
	}
}

const envChecker = `
lpp: 1
name: checker
context:
  threshold: {type: int, default: -1}
  model:     {type: string, default: "", enum: ["", m-1, m-2]}
  ratio:     {type: float, default: -1}
initial: read
states:
  read:
    do: env.read
    with: {vars: {threshold: EVAL_THRESHOLD, model: OPENAI_MODEL, ratio: EVAL_RATIO}}
    next: [done]
  done: {final: true}
`

func TestEnvRead(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		given map[string]any
		want  map[string]any
		err   string
	}{
		{name: "unset variables write nothing", want: map[string]any{"threshold": -1, "model": ""}},
		{name: "set variables are parsed as the variable's type", env: map[string]string{"EVAL_THRESHOLD": " 75 ", "OPENAI_MODEL": "m-1"}, want: map[string]any{"threshold": 75, "model": "m-1"}},
		{name: "a value given at start wins", env: map[string]string{"EVAL_THRESHOLD": "75"}, given: map[string]any{"threshold": 90}, want: map[string]any{"threshold": 90, "model": ""}},
		{name: "a value that does not parse fails, naming both", env: map[string]string{"EVAL_THRESHOLD": "high"}, err: `action failed: env.read in state "read": cannot read EVAL_THRESHOLD into threshold: not an integer`},
		{name: "a value outside the enum fails without quoting it", env: map[string]string{"OPENAI_MODEL": "sk-not-a-model"}, err: `action failed: env.read in state "read": cannot read OPENAI_MODEL into model: not one of ["", "m-1", "m-2"]`},
		{name: "an infinite float fails", env: map[string]string{"EVAL_RATIO": "inf"}, err: `action failed: env.read in state "read": cannot read EVAL_RATIO into ratio: not a finite number`},
		{name: "a value holding a URL with a password fails without quoting it", env: map[string]string{"OPENAI_MODEL": "postgres://u:pw@h/db"}, err: `action failed: env.read in state "read": env.read of state "read": OPENAI_MODEL holds a URL with a user name or password (scheme://user:password@host); specs do not read credentials (take the password out of the value, or give the value with --var)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Deps{Root: t.TempDir(), Getenv: func(k string) string { return tt.env[k] }}
			reg := machine.NewBuiltinRegistry()
			require.NoError(t, Register(reg, d))
			spec, diags := validate.Check("checker.yaml", []byte(envChecker), reg)
			require.False(t, diags.HasErrors(), diags.PrettyAll([]byte(envChecker)))
			m, err := machine.Compile(spec, reg)
			require.NoError(t, err)
			r, err := m.NewRun(tt.given)
			require.NoError(t, err)
			err = r.Run(context.Background())
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				for _, v := range tt.env {
					require.NotContains(t, err.Error(), v, "the error quotes the value")
				}
				return
			}
			require.NoError(t, err)
			for k, v := range tt.want {
				assert.Equal(t, v, r.Var(k), k)
			}
		})
	}
}

func TestEnvReadRefusesNamesThatLookLikeCredentials(t *testing.T) {
	for _, name := range []string{"OPENAI_API_KEY", "PGPASSWORD", "GITHUB_PAT", "MYTOKEN", "SECRETKEY", "OTEL_EXPORTER_OTLP_HEADERS", "OPENAI_API_KEY_2"} {
		t.Run(name, func(t *testing.T) {
			src := strings.ReplaceAll(envChecker, "OPENAI_MODEL", name)
			d := &Deps{Root: t.TempDir(), Getenv: func(string) string { return "sk-x" }}
			reg := machine.NewBuiltinRegistry()
			require.NoError(t, Register(reg, d))
			spec, diags := validate.Check("checker.yaml", []byte(src), reg)
			require.False(t, diags.HasErrors())
			m, err := machine.Compile(spec, reg)
			require.NoError(t, err)
			r, err := m.NewRun(nil)
			require.NoError(t, err)
			require.ErrorContains(t, r.Run(context.Background()), `env.read of state "read": `+name+` looks like a secret (a key, token or password); specs do not read those`)
		})
	}
}

const heldOutChecker = `
lpp: 1
name: checker
context:
  examples: {type: list}
  held_out: {type: list}
  ok:       {type: bool, default: false}
  report:   {type: string, default: ""}
initial: check
states:
  check:
    do: spec.examples
    with: {dir: '"gen/demo"', spec: '"demo.yaml"', as: '"skills/demo"', examples: examples, held_out: held_out, ok: ok, report: report}
    next: [done]
  done: {final: true}
`

func TestAHeldOutExampleIsReportedWithoutItsInputsOrValues(t *testing.T) {
	testenv.Python(t)
	examples := []any{
		map[string]any{"name": "12 ft", "kind": "typical", "vars": map[string]any{"value": 12}, "expect": map[string]any{"result": 3.6576}},
		map[string]any{"name": "7 ft", "kind": "typical", "vars": map[string]any{"value": 7}, "expect": map[string]any{"result": 2.1336}},
	}
	// A lookup of the example the writer was shown: right on 12, wrong on 7.
	lookup := "import json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({'result': {12: 3.6576}.get(d['value'], 1.0), 'lines': 0, 'report': ''}))\n"
	root := sandboxProject(t, map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": lookup})
	vars := runChecker(t, root, heldOutChecker, map[string]any{"examples": examples, "held_out": []any{2}})
	assert.Equal(t, false, vars["ok"])
	assert.Equal(t, `examples: 1 of 2 passed
FAIL example 2 (typical; held out from the writer: its name, inputs and values are not shown): the run did not give what it expects (it checks result): the code is right on the examples it was shown but not on this one; fix the logic for every input of the target, never for particular inputs
pass example 1 "12 ft" (vars {"value":12}): result: expected 3.6576, got 3.6576`, vars["report"])

	right := "import json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({'result': d['value'] * 0.3048, 'lines': 0, 'report': ''}))\n"
	root = sandboxProject(t, map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": right})
	vars = runChecker(t, root, heldOutChecker, map[string]any{"examples": examples, "held_out": []any{2}})
	assert.Equal(t, true, vars["ok"])
	assert.Equal(t, `examples: 2 of 2 passed
pass example 1 "12 ft" (vars {"value":12}): result: expected 3.6576, got 3.6576
pass example 2 (typical; held out from the writer: its name, inputs and values are not shown): the run gave what it expects`, vars["report"])

	// A lookup that crashes on the input it was not shown: the traceback
	// (KeyError: 7) would tell the input; the line says what kind of failure.
	crash := "import json, sys\nd = json.load(sys.stdin)\nprint(json.dumps({'result': {12: 3.6576}[d['value']], 'lines': 0, 'report': ''}))\n"
	root = sandboxProject(t, map[string]string{"demo.yaml": examplesSpec, "scripts/convert.py": crash})
	vars = runChecker(t, root, heldOutChecker, map[string]any{"examples": examples, "held_out": []any{2}})
	assert.Equal(t, false, vars["ok"])
	assert.Equal(t, `examples: 1 of 2 passed
FAIL example 2 (typical; held out from the writer: its name, inputs and values are not shown): its run failed (a script's error, a refusal or a limit) where it must complete and give what it expects (it checks result): the code is right on the examples it was shown but not on this one; fix the logic for every input of the target, never for particular inputs
pass example 1 "12 ft" (vars {"value":12}): result: expected 3.6576, got 3.6576`, vars["report"])
}

package actions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const childSpec = `
lpp: 1
name: child
context:
  n:       {type: int, default: 0}
  doubled: {type: int, default: 0}
initial: calc
states:
  calc:
    do: noop
    next: [{to: done, set: {doubled: n * 2}}]
  done: {final: true}
`

const parentSpec = `
lpp: 1
name: parent
context:
  x:      {type: int, default: 20}
  result: {type: int, default: 0}
  failed: {type: string, default: ""}
initial: sub
states:
  sub:
    do: spec.run
    with: {spec: child.yaml, input: {n: x + 1}, output: {result: doubled}}
    next: [{to: done}]
    on_error: {to: broken, set: {failed: last_error}}
  done: {final: true}
  broken: {final: true}
`

func TestSpecRunCopiesTheChildsOutput(t *testing.T) {
	p := newProject(t, map[string]string{"a/parent.yaml": parentSpec, "a/child.yaml": childSpec})
	d := p.deps("a", "")
	d.RunDir = filepath.Join(p.root, "runs", "run1")
	if err := os.MkdirAll(d.RunDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := p.run("a/parent.yaml", d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.State() != "done" || r.Var("result") != 42 {
		t.Fatalf("state %s vars %v", r.State(), r.Vars())
	}
	// The child's journal lives inside the parent's run directory.
	if _, err := os.Stat(filepath.Join(d.RunDir, "children", "sub-1", "journal.jsonl")); err != nil {
		t.Errorf("no child journal: %v", err)
	}
}

func TestSpecRunFailsWhenTheChildEndsInAFailingFinal(t *testing.T) {
	child := strings.Replace(childSpec, "done: {final: true}", "done: {final: true, do: fail, with: {message: too big}}", 1)
	p := newProject(t, map[string]string{"a/parent.yaml": parentSpec, "a/child.yaml": child})
	r, err := p.run("a/parent.yaml", p.deps("a", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `child spec child.yaml failed in state done after 1 step(s): action failed: fail in state "done": too big`
	if r.State() != "broken" || r.Var("failed") != want {
		t.Fatalf("state %s, failed %q\nwant %q", r.State(), r.Var("failed"), want)
	}
}

func TestSpecRunDepthIsBounded(t *testing.T) {
	// b runs c with max_depth 1: nested two deep below the top run.
	// b has no on_error: its failure is a's.
	b := strings.Replace(parentSpec, "{spec: child.yaml,", "{spec: child.yaml, max_depth: 1,", 1)
	b = strings.Replace(b, "    on_error: {to: broken, set: {failed: last_error}}\n", "", 1)
	b = strings.Replace(b, "  broken: {final: true}\n", "", 1)
	a := strings.Replace(parentSpec, "child.yaml", "b.yaml", 1)
	a = strings.Replace(a, "input: {n: x + 1}, output: {result: doubled}", "output: {result: result}", 1)
	p := newProject(t, map[string]string{"a/a.yaml": a, "a/b.yaml": b, "a/child.yaml": childSpec})
	r, err := p.run("a/a.yaml", p.deps("a", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.State() != "broken" || !strings.Contains(r.Var("failed").(string), "cannot run child spec child.yaml: it would be nested 2 deep, and max_depth is 1 (b.yaml runs child.yaml)") {
		t.Fatalf("state %s, failed %q", r.State(), r.Var("failed"))
	}
}

// diagText renders the errors of a check, one per line.
func diagText(t *testing.T, p *project, name string) string {
	t.Helper()
	_, _, diags := p.check(name, p.deps(filepath.Dir(name), ""))
	var b strings.Builder
	for _, d := range diags.Errors() {
		b.WriteString(strings.TrimPrefix(d.String(), p.root+string(filepath.Separator)) + "\n")
	}
	return b.String()
}

func TestCheckSpecReportsBadParameters(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"a spec.run cycle", map[string]string{
			"a/parent.yaml": parentSpec,
			"a/child.yaml":  strings.Replace(parentSpec, "child.yaml", "parent.yaml", 1),
		}, `parameter "spec" of action "spec.run": spec.run cycle: parent.yaml runs child.yaml runs parent.yaml`},
		{"a child variable that does not exist", map[string]string{
			"a/parent.yaml": strings.Replace(parentSpec, "input: {n: x + 1}", "input: {m: x + 1}", 1),
			"a/child.yaml":  childSpec,
		}, `input.m of action "spec.run": child spec child.yaml has no context variable "m"`},
		{"a child output of another type", map[string]string{
			"a/parent.yaml": strings.Replace(parentSpec, "result: {type: int", "result: {type: string", 1),
			"a/child.yaml":  childSpec,
		}, `output.result of action "spec.run": child variable "doubled" is int, but context variable "result" is string`},
		{"a schema that is not JSON Schema", map[string]string{
			"a/spec.yaml": strings.Replace(generateSpec, "schema: {type: object,", "schema: {type: thing,", 1),
			"a/sys.md":    "x", "a/ask.md": "y",
		}, `a/spec.yaml:18:22: error: parameter "schema" of action "llm.generate": not a JSON Schema: type "thing" at the top is not a JSON Schema type; did you mean "string"?`},
		{"a keyword's value of the wrong kind", map[string]string{
			"a/spec.yaml": strings.Replace(generateSpec, "schema: {type: object,", "schema: {type: object, minProperties: \"1\",", 1),
			"a/sys.md":    "x", "a/ask.md": "y",
		}, `a/spec.yaml:18:45: error: parameter "schema" of action "llm.generate": not a JSON Schema: minProperties at the top must be a whole number, 0 or more, not the string "1"`},
		{"the spec's type name in a nested schema", map[string]string{
			"a/spec.yaml": strings.Replace(generateSpec, "schema: {type: object,", "schema: {type: object, items: [{type: int}],", 1),
			"a/sys.md":    "x", "a/ask.md": "y",
		}, `a/spec.yaml:18:45: error: parameter "schema" of action "llm.generate": not a JSON Schema: type "int" at /items/0 is not a JSON Schema type; did you mean "integer"? (JSON Schema's name for the spec's int)`},
		{"an integer mapped to a string variable", map[string]string{
			"a/spec.yaml": strings.Replace(generateSpec, "words:  {type: int", "words:  {type: string", 1),
			"a/sys.md":    "x", "a/ask.md": "y",
		}, `map.words of action "llm.generate": the schema gives /words a JSON integer, but context variable "words" is string`},
		{"a pointer the schema does not allow", map[string]string{
			"a/spec.yaml": strings.Replace(strings.Replace(generateSpec, "words: /words}", "words: /count}", 1), "required: [title, words]}", "required: [title, words], additionalProperties: false}", 1),
			"a/sys.md":    "x", "a/ask.md": "y",
		}, `a/spec.yaml:19:35: error: map.words of action "llm.generate": the schema allows no /count: the value at / has properties title, words`},
		{"a template reading an unknown variable", map[string]string{
			"a/spec.yaml": generateSpec,
			"a/sys.md":    "x", "a/ask.md": "About {{.topik}}",
		}, `parameter "prompt" of action "llm.generate": template ask.md reads .topik, which is not a context variable`},
		{"a script outside the project", map[string]string{
			"a/spec.yaml": strings.Replace(scriptSpec, "scripts/count.py", "../count.py", 1),
		}, `parameter "script" of action "script.run": "../count.py" is not a path inside the project`},
		{"a script outside the policy's script directories", map[string]string{
			"a/spec.yaml":    strings.Replace(scriptSpec, "scripts/count.py", "tools/count.py", 1),
			"tools/count.py": "print('{}')\n",
		}, `parameter "script" of action "script.run": script "tools/count.py" is outside the script directories of the policy config/tools_config.yaml (scripts, skills/*): the run would refuse it ([SECURITY BLOCKED] script-location)`},
		{"a tools.call arg that does not compile", map[string]string{
			"a/spec.yaml": toolsCallSpec(`{tool: safe_cli_executor, command: read_file, args: {path: 'out_dir +'}}`),
		}, `args.path of action "tools.call": `},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, c.files)
			name := "a/parent.yaml"
			if _, ok := c.files["a/spec.yaml"]; ok {
				name = "a/spec.yaml"
			}
			got := diagText(t, p, name)
			if !strings.Contains(got, c.want) {
				t.Fatalf("errors:\n%s\nwant one with %q", got, c.want)
			}
			if !strings.HasPrefix(got, name+":") {
				t.Errorf("errors are not positioned in %s:\n%s", name, got)
			}
		})
	}
}

func TestSpecValidateWritesVerdict(t *testing.T) {
	const validator = `
lpp: 1
name: validator
context:
  target: {type: string, default: ""}
  ok:     {type: bool, default: false}
  count:  {type: int, default: -1}
  report: {type: string, default: ""}
initial: check
states:
  check:
    do: spec.validate
    with: {path: target, ok: ok, errors: count, report: report}
    next: [{to: done}]
  done: {final: true}
`
	for _, c := range []struct {
		name, target string
		ok           bool
		count        int
		report       string
	}{
		{"a valid spec", "a/child.yaml", true, 0, "a/child.yaml: ok"},
		{"an invalid spec", "a/broken.yaml", false, 2, `unknown state "nowhere"`},
		{"a path outside the root", "../x.yaml", false, 1, "[SECURITY BLOCKED] "},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/v.yaml":      validator,
				"a/child.yaml":  childSpec,
				"a/broken.yaml": strings.Replace(childSpec, "to: done", "to: nowhere", 1),
			})
			r, err := p.run("a/v.yaml", p.deps("a", ""), map[string]any{"target": c.target})
			if err != nil {
				t.Fatal(err)
			}
			if r.Var("ok") != c.ok || r.Var("count") != c.count || !strings.Contains(r.Var("report").(string), c.report) {
				t.Fatalf("ok %v count %v report:\n%s", r.Var("ok"), r.Var("count"), r.Var("report"))
			}
		})
	}
}

func TestSpecValidateCheckModelChecksAValidSpec(t *testing.T) {
	const validator = `
lpp: 1
name: validator
context:
  target: {type: string, default: ""}
  ok:     {type: bool, default: false}
  count:  {type: int, default: -1}
  report: {type: string, default: ""}
initial: check
states:
  check:
    do: spec.validate
    with: {path: target, ok: ok, errors: count, report: report, check: true}
    next: [{to: done}]
  done: {final: true}
`
	// Valid, but stuck in wait when n is 1: only the model check sees it.
	const deadlock = `
lpp: 1
name: stuck
context:
  n: {type: int, default: 0, range: [0, 1]}
initial: start
states:
  start:
    do: llm.generate
    with: {prompt: p.md, map: {n: /n}}
    next: [{to: wait}]
  wait:
    next:
      - {to: done, when: n == 0}
  done: {final: true}
`
	for _, c := range []struct {
		name, target string
		ok           bool
		count        int
		report       []string
	}{
		{"a spec that checks clean", "a/child.yaml", true, 0, []string{"a/child.yaml: ok\n", "PASS    no deadlock"}},
		{"a valid spec that deadlocks", "a/stuck.yaml", false, 1, []string{"FAIL    no deadlock", `state "wait" is stuck`, "shortest counterexample"}},
		{"an invalid spec is not checked", "a/broken.yaml", false, 2, []string{`unknown state "nowhere"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t, map[string]string{
				"a/v.yaml":      validator,
				"a/child.yaml":  childSpec,
				"a/stuck.yaml":  deadlock,
				"a/p.md":        "give n\n",
				"a/broken.yaml": strings.Replace(childSpec, "to: done", "to: nowhere", 1),
			})
			r, err := p.run("a/v.yaml", p.deps("a", ""), map[string]any{"target": c.target})
			if err != nil {
				t.Fatal(err)
			}
			report := r.Var("report").(string)
			if r.Var("ok") != c.ok || r.Var("count") != c.count {
				t.Fatalf("ok %v count %v report:\n%s", r.Var("ok"), r.Var("count"), report)
			}
			for _, want := range c.report {
				if !strings.Contains(report, want) {
					t.Errorf("report lacks %q:\n%s", want, report)
				}
			}
			if c.count == 0 && strings.Contains(report, "FAIL") {
				t.Errorf("a clean spec's report shows a FAIL:\n%s", report)
			}
		})
	}
}

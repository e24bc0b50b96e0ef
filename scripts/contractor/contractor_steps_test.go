package contractor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/gateway"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runStep runs one of the contractor's step scripts with cwd as the working
// directory (the project root) and returns its exit code, stdout and stderr.
func runStep(t *testing.T, cwd, script string, in any) (int, string, string) {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python(t), abs)
	cmd.Dir = cwd
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// The gateway's early filter scans a script's source for blocked patterns
// (subprocess, eval(, ...): every contractor script must pass it, or the
// contractor could not run it.
func TestContractorScriptsPassTheGatewaysFilter(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	p, err := gateway.LoadPolicy(filepath.Join(root, "config", "tools_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(root, p)
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob("*.py")
	if len(scripts) < 5 {
		t.Fatalf("found only %q", scripts)
	}
	for _, s := range scripts {
		res := g.Call(context.Background(), gateway.ToolRunner, map[string]any{"script_name": "scripts/contractor/" + s, "stdin_text": "[]"})
		if strings.Contains(res.Text, "blocked-pattern") {
			t.Errorf("%s: %s", s, res.Text)
		}
	}
}

type written struct {
	Written   []string `json:"written"`
	Artifacts []string `json:"artifacts"`
	Scripts   []string `json:"scripts"`
	Approved  bool     `json:"approved"`
	Log       string   `json:"log"`
}

func TestWriteSkillWritesOnlyUnderOutputContractor(t *testing.T) {
	const dir = "output/contractor/demo"
	tests := []struct {
		name   string
		in     map[string]any
		code   int
		stderr string // the first stderr line
	}{
		{"a path climbing out", map[string]any{"skill_dir": dir, "files": map[string]string{"ok.txt": "a", "../../../scripts/evil.py": "x"}}, 77,
			"[SECURITY BLOCKED] outside-output: '../../../scripts/evil.py' is not a path inside output/contractor/demo/; give paths relative to the skill folder, e.g. scripts/count.py"},
		{"an absolute path", map[string]any{"skill_dir": dir, "files": map[string]string{"/tmp/evil.py": "x"}}, 77,
			"[SECURITY BLOCKED] outside-output: '/tmp/evil.py' is not a path inside output/contractor/demo/; give paths relative to the skill folder, e.g. scripts/count.py"},
		{"a Windows path", map[string]any{"skill_dir": dir, "files": map[string]string{`C:\evil.py`: "x"}}, 77,
			`[SECURITY BLOCKED] outside-output: 'C:\\evil.py' is not a path inside output/contractor/demo/; give paths relative to the skill folder, e.g. scripts/count.py`},
		{"a skill folder elsewhere", map[string]any{"skill_dir": "scripts/x", "files": map[string]string{"a.py": "x"}}, 77,
			"[SECURITY BLOCKED] outside-output: skill_dir 'scripts/x' is not output/contractor/<skill>; the contractor writes only there"},
		{"a skill folder climbing out", map[string]any{"skill_dir": "output/contractor/..", "files": map[string]string{"a.py": "x"}}, 77,
			"[SECURITY BLOCKED] outside-output: skill_dir 'output/contractor/..' is not output/contractor/<skill>; the contractor writes only there"},
		{"a link out of the folder", map[string]any{"skill_dir": dir, "files": map[string]string{"link/evil.py": "x"}}, 77,
			"[SECURITY BLOCKED] outside-output: 'link/evil.py' resolves outside output/contractor/demo/; the contractor writes only under output/contractor/<skill>/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, "scripts"), filepath.Join(root, dir, "link")); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runStep(t, root, "write_skill.py", tt.in)
			if code != tt.code || strings.SplitN(stderr, "\n", 2)[0] != tt.stderr {
				t.Fatalf("exit %d, stderr %q, stdout %q\nwant exit %d, %q", code, stderr, stdout, tt.code, tt.stderr)
			}
			// Nothing of a refused step is written.
			var found []string
			filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.Type().IsRegular() {
					found = append(found, p)
				}
				return nil
			})
			if len(found) > 0 {
				t.Errorf("a refused step wrote %q", found)
			}
		})
	}
}

func TestWriteSkillWritesLogsAndApproves(t *testing.T) {
	root := t.TempDir()
	literal := map[string]any{"path": "scripts/a.py", "line": 2, "kind": "newline_in_string", "scope": "literal", "detail": "a line break became \\n", "before": `print("a`}
	code := map[string]any{"path": "scripts/a.py", "line": 1, "kind": "smart_quote", "scope": "code", "detail": "“ became \"", "before": "print(“a”)"}
	var got written
	c, stdout, stderr := runStep(t, root, "write_skill.py", map[string]any{
		"skill_dir": "output/contractor/demo", "step": 1, "artifacts": []string{"output/contractor/demo/demo.yaml"},
		"files":       map[string]string{"scripts/a.py": "print('a')", "README.md": "# demo\n"},
		"corrections": []any{literal},
	})
	if c != 0 {
		t.Fatalf("exit %d: %s", c, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := written{
		Written:   []string{"output/contractor/demo/README.md", "output/contractor/demo/scripts/a.py"},
		Artifacts: []string{"output/contractor/demo/demo.yaml", "output/contractor/demo/README.md", "output/contractor/demo/scripts/a.py"},
		Scripts:   []string{"output/contractor/demo/scripts/a.py"},
		Approved:  true,
		Log:       "step 1: wrote output/contractor/demo/README.md, output/contractor/demo/scripts/a.py; 1 correction(s) approved",
	}
	if !slices.Equal(got.Written, want.Written) || !slices.Equal(got.Artifacts, want.Artifacts) || !slices.Equal(got.Scripts, want.Scripts) || got.Approved != want.Approved || got.Log != want.Log {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "output/contractor/demo/scripts/a.py")); string(b) != "print('a')\n" {
		t.Errorf("a.py = %q", b)
	}
	// A correction that changed code is not approved; both are logged.
	c, stdout, stderr = runStep(t, root, "write_skill.py", map[string]any{
		"skill_dir": "output/contractor/demo", "step": 2, "files": map[string]string{"scripts/a.py": "print(\"a\")\n"}, "corrections": []any{code},
	})
	if c != 0 || !strings.Contains(stdout, `"approved": false`) {
		t.Fatalf("exit %d: %s %s", c, stdout, stderr)
	}
	log, _ := os.ReadFile(filepath.Join(root, "output/contractor/demo/corrections.md"))
	wantLog := "# Corrections made by the sanitiser\n" +
		"\n## Step 1: 1 correction(s), auto-approved\n- scripts/a.py:2: newline_in_string (literal): a line break became \\n; was: `print(\"a`\n" +
		"\n## Step 2: 1 correction(s), NEEDS REVIEW (a fix changed code)\n- scripts/a.py:1: smart_quote (code): “ became \"; was: `print(“a”)`\n"
	if string(log) != wantLog {
		t.Errorf("corrections.md:\n%s\nwant:\n%s", log, wantLog)
	}
}

type parsed struct {
	Files       map[string]string `json:"files"`
	ParseError  string            `json:"parse_error"`
	Corrections []struct {
		Kind  string `json:"kind"`
		Scope string `json:"scope"`
	} `json:"corrections"`
	Review    bool   `json:"review"`
	Blueprint string `json:"blueprint"`
}

func TestParseReply(t *testing.T) {
	spec := "lpp: 1\nname: demo\ninitial: a\nstates:\n  a: {final: true}\n"
	files := func(f map[string]string) string {
		b, _ := json.Marshal(map[string]any{"files": f})
		return string(b)
	}
	bp := `{"$schema": "lpp/v0.2.0", "id": "demo", "states": {"a": {}}, "entry_state": "a", "terminal_states": ["a"], "transitions": [], "name": "x", "version": "1"}`
	mapping := "units:\n  words:count: skills/demo/scripts/count.py\n"
	lpp := func(f map[string]string) map[string]any {
		return map[string]any{"phase": "blueprint", "spec_file": "demo.json", "reply": files(f)}
	}
	tests := []struct {
		name      string
		in        map[string]any
		err       string
		files     []string
		kinds     []string
		blueprint string
	}{
		{"a blueprint in a fence", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": "Here:\n```json\n" + files(map[string]string{"demo.yaml": spec}) + "\n```"}, "", []string{"demo.yaml"}, nil, spec},
		{"prose only", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": "I cannot do that."}, `the reply holds no JSON object; answer with one JSON object {"files": {"PATH": "TEXT"}}`, nil, nil, ""},
		{"cut-off JSON", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": `{"files": {"demo.yaml": "lpp`}, `the reply is not valid JSON: line 1, column 25: a string is not closed (a missing " or the reply was cut); answer with one JSON object {"files": {"PATH": "TEXT"}}`, nil, nil, ""},
		{"a trailing comma and a raw line break are forgiven", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": "{\"files\": {\"demo.yaml\": \"" + strings.ReplaceAll(strings.ReplaceAll(spec, `\`, `\\`), `"`, `\"`) + "\",},}"}, "", []string{"demo.yaml"}, nil, spec},
		{"a missing comma is named with its line and column", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": "Here it is:\n{\"files\": {\"demo.yaml\": \"lpp: 1\"\n \"x.yaml\": \"\"}}"}, `the reply is not valid JSON: line 3, column 2: a comma is missing between two items (or a quote inside a string is not escaped as \"); answer`, nil, nil, ""},
		{"files not a map", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": `{"files": ["demo.yaml"]}`}, `the reply's "files" must map file paths (relative to the skill folder) to their text, e.g. {"files": {"scripts/count.py": "..."}}`, nil, nil, ""},
		{"a blueprint with scripts", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": files(map[string]string{"demo.yaml": spec, "scripts/a.py": "x"})}, "in the blueprint phase write only the spec file 'demo.yaml' (got demo.yaml, scripts/a.py); scripts come in the implementation phase", nil, nil, ""},
		{"a blueprint that is not YAML", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": files(map[string]string{"demo.yaml": "lpp: 1\nstates:\n  a: [\n"})}, "demo.yaml:4:1: the blueprint is not valid YAML: ", nil, nil, ""},
		{"a blueprint that is not a spec", map[string]any{"phase": "blueprint", "spec_file": "demo.yaml", "reply": files(map[string]string{"demo.yaml": "- a\n- b\n"})}, "demo.yaml:1:1: the blueprint must be a YAML mapping with lpp, name, initial and states", nil, nil, ""},
		{"a file at its installed path is refused with the path to use", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "reply": files(map[string]string{"skills/demo/scripts/a.py": "x = 1\n"})}, "skills/demo/scripts/a.py is where the file will be once the skill is installed; the paths of files are relative to the skill folder: write it as 'scripts/a.py'", nil, nil, ""},
		{"the validated blueprint is never regenerated", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "blueprint_validated": true, "blueprint": spec, "reply": files(map[string]string{"demo.yaml": spec})}, "demo.yaml passed its checks in the blueprint phase and is never regenerated; leave it out of files", nil, nil, spec},
		{"an L++ blueprint with its compute mapping", lpp(map[string]string{"demo.json": bp, "demo.lppctl.yaml": mapping}), "", []string{"demo.json", "demo.lppctl.yaml"}, nil, bp + "\n\nIts compute mapping, demo.lppctl.yaml:\n" + mapping},
		{"an L++ blueprint alone", lpp(map[string]string{"demo.json": bp}), "", []string{"demo.json"}, nil, bp},
		{"an L++ blueprint that is not JSON", lpp(map[string]string{"demo.json": "{\n  states: {}\n}"}), "demo.json:2:3: the L++ blueprint is not valid JSON: Expecting property name enclosed in double quotes; fix the JSON (double quotes, no trailing commas, no comments)", nil, nil, ""},
		{"JSON that is not an L++ blueprint", lpp(map[string]string{"demo.json": `{"states": {"a": {}}}`}), `demo.json:1:1: the L++ blueprint must be a JSON object with "$schema": "lpp/v0.2.0", states, entry_state, terminal_states, gates, actions and transitions`, nil, nil, ""},
		{"an L++ blueprint with scripts", lpp(map[string]string{"demo.json": bp, "scripts/a.py": "x"}), "in the blueprint phase write only the L++ blueprint 'demo.json' (and its compute mapping 'demo.lppctl.yaml') (got demo.json, scripts/a.py); scripts come in the implementation phase", nil, nil, ""},
		{"a compute mapping that is not a mapping", lpp(map[string]string{"demo.json": bp, "demo.lppctl.yaml": "- a\n"}), "demo.lppctl.yaml:1:1: the compute mapping must be a YAML mapping: ", nil, nil, ""},
		{"the validated compute mapping is never regenerated", map[string]any{"phase": "implementation", "spec_file": "demo.json", "blueprint_validated": true, "blueprint": bp, "reply": files(map[string]string{"demo.lppctl.yaml": mapping})}, "demo.lppctl.yaml passed its checks in the blueprint phase and is never regenerated; leave it out of files", nil, nil, bp},
		{"scripts are sanitised", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "blueprint": spec, "reply": files(map[string]string{"scripts/a.py": "```python\nprint(\"a\nb\")\n```", "skills.md": "# demo\n"})}, "", []string{"scripts/a.py", "skills.md"}, []string{"code_fence", "newline_in_string"}, spec},
		{"a draft, then a different final object: which one is meant cannot be told", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "reply": "Draft:\n```json\n" + files(map[string]string{"scripts/a.py": "print(1)\n"}) + "\n```\nNo, the count is off by one. Final:\n```json\n" + files(map[string]string{"scripts/a.py": "print(2)\n"}) + "\n```"},
			`the reply holds 2 different JSON objects with "files" (in the fenced blocks at line 3; line 7), so which one is the answer cannot be told (a draft, then the final one?); give only your final files; answer with one JSON object {"files": {"PATH": "TEXT"}}`, nil, nil, ""},
		{"a draft, then a final object cut in its fence", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "reply": "```json\n" + files(map[string]string{"scripts/a.py": "print(1)\n"}) + "\n```\nFixed:\n```json\n{\"files\": {\"scripts/a.py\": \"print("},
			`the reply holds a JSON object at line 6 (in a fenced block), after the one at line 2, that does not parse (line 6, column 28: a string is not closed (a missing " or the reply was cut)), so which one is the answer cannot be told (a draft, then the final one?); give only your final files`, nil, nil, ""},
		{"the same object twice is one", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "reply": "```json\n" + files(map[string]string{"scripts/a.py": "print(1)\n"}) + "\n```\nAgain:\n```json\n" + files(map[string]string{"scripts/a.py": "print(1)\n"}) + "\n```"}, "", []string{"scripts/a.py"}, nil, ""},
		{"an example of a script's output before the files is not the answer", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "reply": "The script prints:\n```json\n{\"words\": 3}\n```\nThe files:\n```json\n" + files(map[string]string{"scripts/a.py": "print(1)\n"}) + "\n```"}, "", []string{"scripts/a.py"}, nil, ""},
		{"a reply that gives files of another step is refused, naming them", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "step_files": []string{"scripts/a.py"}, "reply": files(map[string]string{"scripts/a.py": "print(1)\n", "skills.md": "# demo\n", "README.md": "# demo\n"})},
			"this step writes only scripts/a.py (the plan's files for it); the reply also gives README.md, skills.md: leave them out (each file is written by the step the plan gives it to), and answer with this step's files only", nil, nil, ""},
		{"a helper file no step of the plan writes is refused by name, with where its code goes", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "step_files": []string{"scripts/convert.py"}, "plan": []any{map[string]any{"files": []string{"scripts/convert.py"}}, map[string]any{"files": []string{"skills.md", "README.md"}}}, "reply": files(map[string]string{"scripts/convert.py": "from units import TO_M\n", "scripts/units.py": "TO_M = {}\n", "README.md": "# demo\n"})},
			"this step writes only scripts/convert.py (the plan's files for it); the reply also gives README.md: leave them out (each file is written by the step the plan gives it to); the reply also gives scripts/units.py, which no step of the plan writes: a step writes only the files the plan gives it, and a skill's script imports only the standard library (no module of its own), so put that code or data into scripts/convert.py itself, and answer with this step's files only", nil, nil, ""},
		{"a step's own files, written as the plan writes them or not, pass", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "step_files": []string{"./scripts/a.py", "skills.md"}, "reply": files(map[string]string{"scripts/a.py": "print(1)\n", "skills.md": "# demo\n"})}, "", []string{"scripts/a.py", "skills.md"}, nil, ""},
		{"a script that still does not compile", map[string]any{"phase": "implementation", "spec_file": "demo.yaml", "reply": files(map[string]string{"scripts/a.py": "def f(:\n"})}, "a script does not compile after the sanitiser's fixes: scripts/a.py: ", []string{"scripts/a.py"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got parsed
			runScript(t, "parse_reply.py", tt.in, &got)
			if !strings.HasPrefix(got.ParseError, tt.err) || (tt.err == "") != (got.ParseError == "") {
				t.Errorf("parse_error = %q, want %q", got.ParseError, tt.err)
			}
			var names []string
			for k := range got.Files {
				names = append(names, k)
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.files) {
				t.Errorf("files %q, want %q", names, tt.files)
			}
			var kinds []string
			for _, c := range got.Corrections {
				kinds = append(kinds, c.Kind)
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("corrections %q, want %q", kinds, tt.kinds)
			}
			if got.Blueprint != tt.blueprint {
				t.Errorf("blueprint %q, want %q", got.Blueprint, tt.blueprint)
			}
			if tt.name == "scripts are sanitised" && got.Files["scripts/a.py"] != "print(\"a\\nb\")\n" {
				t.Errorf("a.py = %q", got.Files["scripts/a.py"])
			}
		})
	}
}

func TestEntryPoints(t *testing.T) {
	good := map[string]string{
		"skills.md":        "# demo\n\nRun scripts/count.py.\n",
		"demo.yaml":        "replies: []\n",
		"README.md":        "# demo\n",
		"scripts/count.py": "import json, sys\n\nif __name__ == \"__main__\":\n    print(json.dumps(json.load(sys.stdin)))\n",
	}
	tests := []struct {
		name    string
		change  map[string]string // "" removes the file
		ok      bool
		reports []string
	}{
		{"a complete skill", nil, true, []string{"output/contractor/demo: skills.md, demo.yaml, README.md and 1 script(s) are in place"}},
		{"missing documents", map[string]string{"skills.md": "", "README.md": "", "demo.yaml": "x: 1\n"}, false, []string{
			"output/contractor/demo/skills.md: missing; write the skill's description, steps and scripts for the Skills Agent",
			"output/contractor/demo/demo.yaml: missing or without replies:; write the scripted replies of an offline run",
			"output/contractor/demo/README.md: missing; say what the skill does and the command that runs it"}},
		{"a script skills.md does not name, without a main guard or stdin", map[string]string{"scripts/other.py": "print(1)\n"}, false, []string{
			"output/contractor/demo/skills.md: does not name scripts/other.py; say when the Skills Agent runs it and with what input",
			"output/contractor/demo/scripts/other.py: no main guard (if __name__ == \"__main__\":)",
			"output/contractor/demo/scripts/other.py: does not read its input from stdin (json.load(sys.stdin))"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{}
			for k, v := range good {
				files[k] = v
			}
			for k, v := range tt.change {
				files[k] = v
			}
			for k, v := range files {
				if v == "" {
					continue
				}
				p := filepath.Join(root, "output", "contractor", "demo", k)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, stdout, stderr := runStep(t, root, "entry_points.py", map[string]any{"skill_dir": "output/contractor/demo", "skill": "demo"})
			var got struct {
				OK     bool   `json:"ok"`
				Report string `json:"report"`
			}
			if c != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
				t.Fatalf("exit %d: %s %s", c, stdout, stderr)
			}
			if got.OK != tt.ok || !slices.Equal(strings.Split(got.Report, "\n"), tt.reports) {
				t.Errorf("got ok=%v\n%s\nwant ok=%v\n%s", got.OK, got.Report, tt.ok, strings.Join(tt.reports, "\n"))
			}
		})
	}
}

// A run killed after promote.py moved the attempt, but before the journal
// recorded the step, runs it again on resume: it must answer as the first
// time, not fail with "nothing to promote" and end the run in error with the
// skill promoted. The next run's first step removes the receipt, so only
// this run's promotion answers that way.
func TestPromoteRunAgainAfterItsMoveAnswersAsTheFirstTime(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("output/contractor/ws.attempt/scripts/ws.py", "print(1)\n")
	write("output/contractor/ws.attempt/skills.md", "# ws\n")
	write("output/contractor/ws/old.txt", "an earlier run's file\n")
	in := map[string]any{"from": "output/contractor/ws.attempt", "to": "output/contractor/ws"}
	const promoted = `{"promoted": "output/contractor/ws", "files": 2}`

	code, stdout, stderr := runStep(t, root, "promote.py", in)
	require.Equal(t, 0, code, stderr)
	assert.JSONEq(t, promoted, stdout)
	code, stdout, stderr = runStep(t, root, "promote.py", in)
	require.Equal(t, 0, code, stderr)
	assert.JSONEq(t, promoted, stdout, "the same step run again after a kill")

	code, _, stderr = runStep(t, root, "read_step.py", map[string]any{"work_dir": "output/contractor/ws.attempt", "plan": []any{}, "step_index": 0, "fresh": true})
	require.Equal(t, 0, code, stderr)
	assert.NoFileExists(t, filepath.Join(root, "output/contractor/ws.attempt.promoted"))
	code, _, stderr = runStep(t, root, "promote.py", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "output/contractor/ws.attempt does not exist: nothing to promote")
}

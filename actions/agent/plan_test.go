package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParsePlan(t *testing.T) {
	good := `{"goal": "g", "steps": [{"index": 1, "optimizer_instruction": "a", "evaluator_instruction": "b", "tools_hint": ["x"], "depends_on": []}, {"optimizer_instruction": "c", "evaluator_instruction": "d", "depends_on": [1]}]}`
	tests := []struct {
		name, reply string
		err         string // "" = valid
	}{
		{"plain", good, ""},
		{"fenced", "Here is the plan:\n```json\n" + good + "\n```\nDone.", ""},
		{"prose around", "Sure! " + good + " Hope it helps.", ""},
		{"empty", "  ", "the reply is empty"},
		{"no object", "I would greet Ada.", "holds no JSON object"},
		{"bad json", `{"goal": "g", "steps": [}`, `the reply's JSON does not parse: line 1, column 25: invalid character '}' looking for beginning of value; answer with one valid JSON object and nothing else`},
		{"wrong types", `{"goal": 3, "steps": []}`, "not valid JSON for the SkillPlan schema"},
		{"no steps", `{"goal": "g", "steps": []}`, `"steps" is missing or empty`},
		{"every problem", `{"steps": [{"index": 2, "optimizer_instruction": "", "evaluator_instruction": "e", "depends_on": [1]}]}`,
			`the plan is invalid: "goal" is missing or empty; steps[0].index is 2; steps are numbered 1, 2, 3... in order, so it must be 1; steps[0].optimizer_instruction is missing or empty; steps[0].depends_on has 1; the first step cannot depend on any step`},
		{"depends on itself, later, missing", `{"goal": "g", "steps": [{"optimizer_instruction": "a", "evaluator_instruction": "b"}, {"optimizer_instruction": "a", "evaluator_instruction": "b", "depends_on": [2, 3, 0]}]}`,
			`the plan is invalid: steps[1].depends_on has 2, the step itself; a step may depend only on earlier steps (1..1); steps[1].depends_on has 3; a step may depend only on earlier steps (1..1); steps[1].depends_on has 0; a step may depend only on earlier steps (1..1)`},
		{"wrong types named in the model's terms", `{"goal": ["g"], "steps": []}`, `the plan is not valid JSON for the SkillPlan schema: "goal" is an array; it must be a string`},
		{"an index that is no number", `{"goal": "g", "steps": [{"index": "one"}]}`, `the plan is not valid JSON for the SkillPlan schema: "index" must be an integer, not "one"`},
		{"depends_on that is no list of numbers", `{"goal": "g", "steps": [{"depends_on": ["a"]}]}`, `the plan is not valid JSON for the SkillPlan schema: "depends_on" must be a list of step numbers, not ["a"]`},
		{"tools_hint that is no list of strings", `{"goal": "g", "steps": [{"tools_hint": [1]}]}`, `the plan is not valid JSON for the SkillPlan schema: "tools_hint" must be a list of strings`},
		{"a step that is not an object", `{"goal": "g", "steps": [5]}`, `the plan is not valid JSON for the SkillPlan schema: "steps" is a number; it must be an object`},
		{"a draft object before the plan", "Draft: {\"goal\": \"x\"} Final: " + good, ""},
		{"prose with braces around the plan", "Plan {v2}: " + good + " {end}", ""},
		{"numbered from 0", `{"goal": "g", "steps": [{"index": 0, "optimizer_instruction": "a", "evaluator_instruction": "b"}, {"index": 1, "optimizer_instruction": "c", "evaluator_instruction": "d", "depends_on": [0]}, {"index": 2, "optimizer_instruction": "e", "evaluator_instruction": "f"}]}`,
			`the plan is invalid: the steps are numbered from 0 (0, 1, 2...); number them from 1 (1, 2, 3...), and their depends_on with them; steps[1].depends_on has 0; a step may depend only on earlier steps (1..1)`},
		{"too many", `{"goal": "g", "steps": [` + strings.Repeat(`{"optimizer_instruction": "a", "evaluator_instruction": "b"},`, 3) + `{"optimizer_instruction": "a", "evaluator_instruction": "b"}]}`, `"steps" has 4 steps; the limit is 3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePlan(tt.reply, 3)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Steps[1].Index != 2 || p.Steps[1].ToolsHint == nil {
					t.Fatalf("defaults not filled: %+v", p.Steps[1])
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestParseEvaluation(t *testing.T) {
	ev, err := ParseEvaluation("```json\n{\"verdict\": \"pass\", \"feedback\": \" ok \", \"key_outputs\": {\"A\": \"x\", \"N\": 3, \"L\": [1], \"Z\": null}}\n```")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != "PASS" || ev.Feedback != "ok" || ev.KeyOutputs["A"] != "x" || ev.KeyOutputs["N"] != "3" || ev.KeyOutputs["L"] != "[1]" || ev.KeyOutputs["Z"] != "" {
		t.Fatalf("%+v", ev)
	}
	for reply, want := range map[string]string{
		`{"verdict": "MAYBE"}`:                      `"verdict" is "MAYBE"; it must be "PASS" or "FAIL"`,
		`{"verdict": true}`:                         `"verdict" is true; it must be "PASS" or "FAIL"`,
		`{"feedback": "x"}`:                         `"verdict" is missing; it must be "PASS" or "FAIL"`,
		`{"verdict": "PASS", "key_outputs": ["a"]}`: `"key_outputs" must be an object of NAME: value, not an array`,
		`{"verdict": "PASS", "key_outputs": "A=1"}`: `"key_outputs" must be an object of NAME: value, not a string`,
		`looks fine to me`:                          "holds no JSON object",
		``:                                          "the reply is empty",
	} {
		if _, err := ParseEvaluation(reply); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", reply, err, want)
		}
	}
}

func TestParsePlanLenientFields(t *testing.T) {
	p, err := ParsePlan(`{"goal": "g", "steps": [{"index": "1", "optimizer_instruction": "a", "evaluator_instruction": "b", "tools_hint": "safe_py_runner", "depends_on": null},
		{"index": 2, "optimizer_instruction": "c", "evaluator_instruction": "d", "tools_hint": null, "depends_on": "1"},
		{"optimizer_instruction": "e", "evaluator_instruction": "f", "depends_on": 2}]}`, 12)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(p)
	want := `{"goal":"g","steps":[{"index":1,"optimizer_instruction":"a","evaluator_instruction":"b","tools_hint":["safe_py_runner"],"depends_on":[]},{"index":2,"optimizer_instruction":"c","evaluator_instruction":"d","tools_hint":[],"depends_on":[1]},{"index":3,"optimizer_instruction":"e","evaluator_instruction":"f","tools_hint":[],"depends_on":[2]}]}`
	if string(got) != want {
		t.Fatalf("plan = %s\nwant %s", got, want)
	}
}

func TestParseEvaluationLenient(t *testing.T) {
	for _, tt := range []struct{ name, reply, verdict string }{
		{"PASSED", `{"verdict": "PASSED", "feedback": "ok"}`, "PASS"},
		{"Failed.", `{"verdict": " Failed. ", "feedback": "no"}`, "FAIL"},
		{"prose with braces around it", `My verdict {as asked}: {"verdict": "Pass", "feedback": "ok {fine}"} Anything {else}?`, "PASS"},
		{"a fenced shell block before the JSON block", "```sh\ncat x\n```\n```json\n{\"verdict\": \"FAIL\", \"feedback\": \"no\"}\n```", "FAIL"},
		{"an object without a verdict before the verdict", `Checked {"file": "a.txt"}. {"verdict": "PASS", "feedback": "ok"}`, "PASS"},
		{"the verdict nested in a wrapper", `{"result": {"verdict": "PASS", "feedback": "ok"}}`, "PASS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := ParseEvaluation(tt.reply)
			if err != nil || ev.Verdict != tt.verdict {
				t.Fatalf("ev = %+v, err = %v, want verdict %s", ev, err, tt.verdict)
			}
		})
	}
}

func TestParseEvaluationKeyOutputs(t *testing.T) {
	ev, err := ParseEvaluation(`{"verdict": "PASS", "feedback": "ok", "key_outputs": {
		"count": 3, "big": 12345678901234567890, "ratio": 0.1, "obj": {"a": [1, "<b>"]}, "ok": true,
		"multi": "line1\nline2", "eq": "a=b=c", "bad key!": "x", "bad-key?": "y", "": "e", "1st": "f", "path": "p", "PATH": "q"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"COUNT": "3", "BIG": "12345678901234567890", "RATIO": "0.1", "OBJ": `{"a":[1,"<b>"]}`, "OK": "true",
		"MULTI": "line1\nline2", "EQ": "a=b=c", "BAD_KEY_": "x", "BAD_KEY__2": "y", "OUTPUT": "e", "_1ST": "f", "PATH": "q", "PATH_2": "p",
	}
	if len(ev.KeyOutputs) != len(want) {
		t.Errorf("keys = %v", ev.KeyOutputs)
	}
	for k, v := range want {
		if ev.KeyOutputs[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, ev.KeyOutputs[k], v, ev.KeyOutputs)
		}
	}
}

func TestL2Item(t *testing.T) {
	for _, tt := range []struct{ k, v, want string }{
		{"greeting", "Hello", "GREETING=Hello"},
		{"output file", " a/b.txt ", "OUTPUT_FILE=a/b.txt"},
		{"multi", "line 1\r\nline 2", `MULTI=line 1\nline 2`},
		{"", "v", "OUTPUT=v"},
		{"eq", "a=b", "EQ=a=b"},
		{"backslash", `C:\new\n`, `BACKSLASH=C:\\new\\n`},
		{"cr", "a\rb", `CR=a\rb`},
		{"9lives", "x", "_9LIVES=x"},
	} {
		if got := l2Item(tt.k, tt.v); got != tt.want {
			t.Errorf("l2Item(%q, %q) = %q, want %q", tt.k, tt.v, got, tt.want)
		}
	}
}

func TestPlanTable(t *testing.T) {
	p, err := ParsePlan(`{"goal": "greet", "steps": [{"optimizer_instruction": "say hi", "evaluator_instruction": "check", "tools_hint": ["safe_py_runner"]}, {"optimizer_instruction": "write", "evaluator_instruction": "read", "depends_on": [1]}]}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Table()
	want := "Goal: greet\n\n" +
		"#  OPTIMIZER INSTRUCTION  EVALUATOR INSTRUCTION  TOOLS           AFTER\n" +
		"1  say hi                 check                  safe_py_runner  -\n" +
		"2  write                  read                   -               1\n"
	if got != want {
		t.Fatalf("table:\n%s\nwant:\n%s", got, want)
	}
}

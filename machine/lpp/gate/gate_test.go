package gate

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
)

// TestTypes are the context properties the gate tests read.
var TestTypes = map[string]string{
	"name": "string", "target": "string", "count": "integer", "score": "number",
	"approved": "boolean", "items": "array", "meta": "object",
}

// TranslateGateCases are gates and their translations (want "": refused,
// see TestTranslateGateRefuses).
var TranslateGateCases = []struct{ Src, Want string }{
	// None
	{`target is None`, `target == nil`},
	{`target is not None`, `target != nil`},
	{`target == None`, `target == nil`},
	{`not target is None`, `target != nil`},
	{`None is target`, `target == nil`},
	// and, or, not, constants
	{`target is not None and count > 0`, `target != nil && (count != nil && count > 0)`},
	{`count > 3 or score < 0.5`, `(count != nil && count > 3) || (score != nil && score < 0.5)`},
	{`a_or_b is None`, ``}, // unknown name: see TestTranslateGateRefuses
	{`not (count > 3)`, `!((count != nil && count > 3))`},
	{`not approved`, `!(approved == true)`},
	{`approved`, `approved == true`},
	{`approved is True`, `approved == true`},
	{`approved == False`, `approved == false`},
	{`True`, `true`},
	{`(count > 1 or count < -1) and not (score >= 2)`, `((count != nil && count > 1) || (count != nil && count < -1)) && !((score != nil && score >= 2))`},
	{`count > 1 or count < 5 and score > 0`, `(count != nil && count > 1) || (count != nil && count < 5) && (score != nil && score > 0)`},
	// truth values of typed properties
	{`name`, `(name ?? "") != ""`},
	{`not items`, `!(len(items ?? []) > 0)`},
	{`meta and count`, `len(meta ?? {}) > 0 && (count ?? 0) != 0`},
	// len, get, indexing
	{`len(items) > 0`, `items != nil && len(items) > 0`},
	{`len(name) >= 3`, `name != nil && len(name) >= 3`},
	{`meta.get('k') is not None`, `meta?.k != nil`},
	{`meta.get("k", 0) > 2`, `(meta?.k ?? 0) > 2`},
	{`meta.get('a-b') == 'x'`, `(meta?.["a-b"] != nil && meta?.["a-b"] == "x")`},
	{`meta.get('flag', False)`, `(meta?.flag ?? false) == true`},
	{`meta['k'] == 1`, `(meta?.k != nil && meta?.k == 1)`},
	{`meta['a']['b'] != None`, `meta?.a?.b != nil`},
	{`items[0] == "x"`, `(get(items, 0) != nil && get(items, 0) == "x")`},
	{`items[-1] == "x"`, `(get(items, -1) != nil && get(items, -1) == "x")`},
	{`name[1:3] == "bc"`, `name[1:3] == "bc"`},
	{`len(items[:2]) == 2`, `len(items[:2]) == 2`},
	// in, not in
	{`'a' in name`, `(name != nil && name contains "a")`},
	{`'a' not in name`, `(name == nil || name not contains "a")`},
	{`"x" in items`, `(items != nil && "x" in items)`},
	{`'k' in meta`, `(meta != nil && "k" in meta)`},
	{`not 'k' in meta`, `(meta == nil || "k" not in meta)`},
	{`name in ['a', "b"]`, `name in ["a", "b"]`},
	{`name in {'a', "b"}`, `name in ["a", "b"]`},
	{`name in {('a')}`, `name in ["a"]`},
	{`name not in ('a', 'b')`, `name not in ["a", "b"]`},
	{`count in (1,)`, `count in [1]`},
	// comparisons, chained
	{`0 < count < 10`, `(count != nil && 0 < count) && (count != nil && count < 10)`},
	{`0 <= score <= 1 < 2`, `(score != nil && 0 <= score) && (score != nil && score <= 1) && 1 < 2`},
	{`count != 3`, `(count == nil || count != 3)`},
	{`(count > 1) == approved`, `(approved != nil && ((count != nil && count > 1)) == approved)`},
	// arithmetic, unary minus, numbers, strings
	{`count + 1 > 2 * score`, `(count != nil && score != nil && count + 1 > 2 * score)`},
	{`count - (1 - score) > 0`, `(count != nil && score != nil && count - (1 - score) > 0)`},
	{`count % 2 == 0`, `(count != nil && count % 2 == 0)`},
	{`count // 2 == 1`, `(count != nil && floor(count / 2) == 1)`},
	{`score ** 2 < 4`, `(score != nil && score ** 2 < 4)`},
	{`-count < -1`, `(count != nil && -count < -1)`},
	{`-(count + 1) < 0`, `(count != nil && -(count + 1) < 0)`},
	{`(-2) ** 2 == 4`, `(-2) ** 2 == 4`},
	{`-2 ** 2 == -4`, `-2 ** 2 == -4`},
	{`score > 1_000.5`, `(score != nil && score > 1000.5)`},
	{`score < 1e3`, `(score != nil && score < 1000.0)`},
	{`count == 0x10`, `(count != nil && count == 16)`},
	{`name == 'it\'s'`, `(name != nil && name == "it's")`},
	{`name == "say \"hi\""`, `(name != nil && name == "say \"hi\"")`},
	{`name == 'a\nb'`, `(name != nil && name == "a\nb")`},
	{`name == r'a\d'`, `(name != nil && name == "a\\d")`},
	{`name + '!' == 'x!'`, `(name != nil && name + "!" == "x!")`},
	// methods, builtins
	{`name.startswith('ab')`, `(name != nil && hasPrefix(name, "ab"))`},
	{`name.lower() == 'x'`, `(name != nil && lower(name) == "x")`},
	{`name.strip() != ''`, `(name == nil || trim(name) != "")`},
	{`'k' in meta.keys()`, `(meta != nil && "k" in keys(meta))`},
	{`abs(score) < 1 and max(count, 3) == 3`, `score != nil && (!(abs(score) < 1) || count != nil) && (abs(score) < 1 && max(count, 3) == 3)`},
	{`str(count) == '3'`, `(count != nil && string(count) == "3")`},
	{`int(score) == 2`, `score != nil && int(score) == 2`},
	// conditional expression
	{`(count if approved else 0) > 1`, `(count != nil && (approved == true ? count : 0) > 1)`},
	// the event
	{`event.payload.get('target') is not None`, `event.payload?.target != nil`},
	{`event.payload.target == 'x'`, `(event.payload.target != nil && event.payload.target == "x")`},
	{`event.payload['in'] == 1`, `(event.payload?.["in"] != nil && event.payload?.["in"] == 1)`},
	{`'target' in event.payload`, `"target" in event.payload`},
	{`event.name == 'SUBMIT'`, `event.name == "SUBMIT"`},
}

func TestTranslateGate(t *testing.T) {
	for _, tt := range TranslateGateCases {
		if tt.Want == "" {
			continue
		}
		t.Run(tt.Src, func(t *testing.T) {
			got, err := Translate(tt.Src, TestTypes)
			if err != nil {
				t.Fatalf("Translate(%q): %v", tt.Src, err)
			}
			if got != tt.Want {
				t.Fatalf("Translate(%q)\n got: %s\nwant: %s", tt.Src, got, tt.Want)
			}
			if _, err := expr.Compile(got, expr.Env(testEnv()), expr.AsBool()); err != nil {
				t.Fatalf("the translation does not compile as a guard: %v", err)
			}
		})
	}
}

// testEnv is a typed environment for testTypes, as lppctl type-checks guards.
func testEnv() map[string]any {
	return map[string]any{
		"name": "", "target": "", "count": 0, "score": 0.0, "approved": false,
		"items": []any{}, "meta": map[string]any{},
		"event": map[string]any{"name": "", "payload": map[string]any{}},
	}
}

func TestTranslateGateRefuses(t *testing.T) {
	tests := []struct {
		src     string
		col     int
		msg     string
		hasHint bool
	}{
		{`targt is None`, 1, `unknown name "targt": it is not a context property`, true},
		{`count > 1 && approved`, 11, `unexpected "&&": expected the end of the expression`, true},
		{`count > 1 || approved`, 11, `unexpected "||": expected the end of the expression`, true},
		{`!approved`, 1, `unexpected "!": expected a value`, true},
		{`count = 1`, 7, `"=" is an assignment; a gate only compares`, true},
		{`lambda x: x`, 1, `lambda is not supported in a gate`, true},
		{`any(x for x in items)`, 7, `comprehensions and generators are not supported in a gate`, true},
		{`target is 'x'`, 8, `"is" compares identity: only ` + "`is None`, `is not None`, `is True` and `is False`" + ` are supported`, true},
		{`name.split(',') == []`, 6, `method split() is not supported in a gate (supported: endswith, get, keys, lower, startswith, strip, upper, values)`, true},
		{`sorted(items) == items`, 1, `function sorted() is not supported in a gate (supported: abs, all, any, float, int, len, max, min, round, str, sum)`, true},
		{`len(items, 2) > 0`, 1, `len() takes 1 argument, not 2`, false},
		{`len(count) > 0`, 5, `len() needs a string, a list or a dict, and this is an integer`, false},
		{`name.get('k')`, 6, `get() is a dict method, and this is a string`, false},
		{`'a' in count`, 5, `"in" needs a string, a list or a dict on its right, and this is an integer`, false},
		{`(count > 1 or approved) == True`, 2, `and/or give one of their operands in Python, not a bool: only a condition may use them here`, true},
		{`count | 1`, 7, `the bitwise operator | is not supported in a gate`, true},
		{`~count`, 1, `the bitwise operator ~ is not supported in a gate`, true},
		{`{'a': 1} == meta`, 1, `dict literals are not supported in a gate (lpp evaluates the gate false as well)`, true},
		{`{} == meta`, 1, `dict literals are not supported in a gate (lpp evaluates the gate false as well)`, true},
		{`f'{name}' == 'x'`, 1, `f-strings are not supported`, true},
		{`'''x''' == name`, 1, `triple-quoted strings are not supported`, true},
		{`name == 'abc`, 9, `the string is not closed`, true},
		{`count > 1 # note`, 11, `comments (#) are not supported in a gate`, true},
		{`count > `, 9, `the expression ends too early: expected a value`, false},
		{`(count > 1`, 11, `the expression ends too early: expected ")"`, false},
		{``, 1, `the expression is empty`, false},
		{`count == null`, 10, `null is not a Python constant`, true},
		{`x = 1 if True`, 3, `"=" is an assignment; a gate only compares`, true},
		{`count if approved`, 18, `the expression ends too early: expected "else"`, false},
		{`event.foo == 1`, 7, `event has no field "foo"`, true},
		{`event == 1`, 1, `event is not a value`, true},
		{`count == 1j`, 10, `complex numbers are not supported`, false},
		{`count == 007`, 10, `invalid number "007": leading zeros are not allowed`, true},
		{`name[::2] == ''`, 7, `a slice step (x[a:b:c]) is not supported in a gate`, false},
		{`count + None > 1`, 9, `None cannot take part in arithmetic`, false},
		{`max(*items) > 1`, 5, `unpacking (*x) is not supported in a gate`, false},
		{`max(count, key=1) > 1`, 12, `keyword arguments are not supported in a gate`, true},
		{`count @ 2`, 7, `the bitwise operator @ is not supported in a gate`, false},
		{`count > 1;`, 10, `unexpected ";": expected the end of the expression`, false},
		{`name == 'a' 'b'`, 13, `adjacent string literals are not supported in a gate`, true},
		{strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150), 101, `the expression nests deeper than 100 levels`, true},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := Translate(tt.src, TestTypes)
			if err == nil {
				t.Fatalf("Translate(%q) = %q, want an error", tt.src, got)
			}
			ge, ok := err.(*Error)
			if !ok {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			if ge.Col != tt.col || ge.Msg != tt.msg {
				t.Fatalf("Translate(%q)\n got: column %d: %s\nwant: column %d: %s", tt.src, ge.Col, ge.Msg, tt.col, tt.msg)
			}
			if (ge.Hint != "") != tt.hasHint {
				t.Fatalf("hint = %q, want one: %v", ge.Hint, tt.hasHint)
			}
		})
	}
}

// TestTranslatedGatesAgreeWithPython evaluates each gate in Python and its
// translation in expr over contexts with and without values (None), and
// checks that they agree wherever Python gives a bool.
func TestTranslatedGatesAgreeWithPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	gates := []string{
		`target is None`, `target is not None and count > 0`, `not approved`, `approved`, `name`, `not items`,
		`meta and count`, `len(items) > 0`, `meta.get('k') is not None`, `meta.get('k', 0) > 2`,
		`meta.get('flag', False)`, `'a' in name`, `'a' not in name`, `'x' in items`, `'k' in meta`,
		`name in ['a', 'b']`, `0 < count < 10`, `count % 2 == 0`, `count // 2 == 1`, `-count < -1`,
		`(count if approved else 0) > 1`, `not (count > 3) or score >= 0.5`, `name.startswith('a')`,
		`event.payload.get('target') is not None`, `'target' in event.payload`, `event.name == 'SUBMIT'`,
		`count > 1 or count < 5 and score > 0`, `len(items[:2]) == 2`, `items[-1] == 'x'`,
	}
	contexts := []map[string]any{
		{"name": nil, "target": nil, "count": nil, "score": nil, "approved": nil, "items": nil, "meta": nil},
		{"name": "", "target": "t", "count": 0, "score": 0.0, "approved": false, "items": []any{}, "meta": map[string]any{}},
		{"name": "abc", "target": "", "count": 3, "score": 0.7, "approved": true, "items": []any{"x", "y"}, "meta": map[string]any{"k": 5, "flag": true}},
		{"name": "b", "target": "x", "count": -4, "score": 2.5, "approved": false, "items": []any{"y", "x"}, "meta": map[string]any{"k": nil}},
	}
	events := []map[string]any{
		{"name": "SUBMIT", "payload": map[string]any{"target": "T"}},
		{"name": "DONE", "payload": map[string]any{}},
	}
	type job struct {
		Gate  string         `json:"gate"`
		Ctx   map[string]any `json:"ctx"`
		Event map[string]any `json:"event"`
	}
	var jobs []job
	for _, g := range gates {
		for _, c := range contexts {
			for _, e := range events {
				jobs = append(jobs, job{g, c, e})
			}
		}
	}
	in, _ := json.Marshal(jobs)
	script := `
import json, sys
class D(dict):
    __getattr__ = dict.get
class E:
    def __init__(self, e): self.name, self.payload = e["name"], D(e["payload"])
out = []
for j in json.load(sys.stdin):
    env = dict(j["ctx"]); env["event"] = E(j["event"])
    try:
        v = eval(j["gate"], {"__builtins__": {"len": len, "abs": abs, "max": max, "min": min, "str": str, "int": int, "float": float}}, env)
        out.append(bool(v))
    except Exception:
        out.append(None)
print(json.dumps(out))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []*bool
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for i, j := range jobs {
		if want[i] == nil {
			continue // Python raises: any outcome of expr is acceptable
		}
		compared++
		src, err := Translate(j.Gate, TestTypes)
		if err != nil {
			t.Fatalf("%s: %v", j.Gate, err)
		}
		env := map[string]any{"event": j.Event}
		for k, v := range j.Ctx {
			env[k] = v
		}
		got, err := expr.Eval(src, env)
		if err != nil {
			t.Errorf("%s → %s with %v: expr fails (%v), Python gives %v", j.Gate, src, j.Ctx, err, *want[i])
			continue
		}
		if got != *want[i] {
			t.Errorf("%s → %s with %v, event %v: expr gives %v, Python %v", j.Gate, src, j.Ctx, j.Event["name"], got, *want[i])
		}
	}
	if compared < len(jobs)/2 {
		t.Fatalf("Python evaluated only %d of %d cases", compared, len(jobs))
	}
	t.Logf("%d of %d cases compared", compared, len(jobs))
}

package gate

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/lppctl/lppctl/internal/testenv"
	mspec "github.com/lppctl/lppctl/machine/spec"
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
	{`meta['k'] == 1`, `py_eq(meta?.k, 1)`}, // a dict's field may hold True, and True == 1
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
	{`count % 2 == 0`, `(count != nil && py_mod(count, 2) == 0)`},
	{`count // 2 == 1`, `(count != nil && py_floordiv(count, 2) == 1)`},
	{`score % count == 1`, `(score == nil || count == nil || count != 0) && (score != nil && count != nil && py_mod(score, count) == 1)`},
	{`score / count > 1`, `(score == nil || count == nil || count != 0) && (score != nil && count != nil && score / count > 1)`},
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
	{`abs(score) < 1 and max(count, 3) == 3`, `py_ok("abs", score) && (!(py_abs(score) < 1) || py_ok("max", count, 3)) && (py_abs(score) < 1 && py_max(count, 3) == 3)`},
	{`str(count) == '3'`, `py_str(count) == "3"`},
	{`int(score) == 2`, `py_ok("int", score) && py_int(score) == 2`},
	{`str(score) == '5'`, `py_str(score, "number") == "5"`},
	{`str(1.0) == '1.0'`, `py_str(1.0) == "1.0"`},
	{`int(name) > 3`, `py_ok("int", name) && py_int(name) > 3`},
	{`round(score) == 2`, `py_ok("round", score) && py_round(score) == 2`},
	{`round(score, 1) == 2.5`, `py_ok("round", score, 1) && py_round(score, 1) == 2.5`},
	{`sum(items) > 0`, `py_ok("sum", items) && py_sum(items) > 0`},
	{`bool(items)`, `len(items ?? []) > 0`},
	// Python's operators across types
	{`score == True`, `py_eq(score, true)`},
	{`approved == 1`, `py_eq(approved, 1)`},
	{`count == '5'`, `py_eq(count, "5")`},
	{`name != 1`, `!py_eq(name, 1)`},
	// a bool against a value of any type, which may be a number (1 == True);
	// a bool against a bool keeps expr's ==
	{`meta['k'] == True`, `py_eq(meta?.k, true)`},
	{`event.payload.ok != False`, `!py_eq(event.payload.ok, false)`},
	{`approved == meta['k']`, `py_eq(approved, meta?.k)`},
	{`approved == True`, `approved == true`},
	{`approved != False`, `approved != false`},
	{`meta['k'] is True`, `meta?.k == true`},
	{`meta['k'] in [True, False]`, `py_in(meta?.k, [true, false])`},
	{`True in items`, `(items != nil && py_in(true, items))`},
	{`approved not in items`, `(items == nil || !py_in(approved, items))`},
	{`approved in [True, None]`, `approved in [true, nil]`},
	{`meta['k'] in ['a', 1]`, `py_in(meta?.k, ["a", 1])`}, // Python's ==: 2 in ['a'] is False where expr's in refuses an int among strings
	{`name * 2 == 'abab'`, `(name == nil || py_ok("mul", name, 2)) && (name != nil && py_mul(name, 2) == "abab")`},
	{`items + ['z'] == ['x', 'z']`, `(items != nil && concat(items, ["z"]) == ["x", "z"])`},
	{`items < ['y']`, `py_ok("cmp", items, "<", ["y"]) && py_cmp(items, "<", ["y"])`},
	{`approved < 2`, `py_cmp(approved, "<", 2)`},
	{`1 in name`, `(name == nil) && false`},
	{`1 not in name`, `(name == nil) && true`},
	{`'a' in count`, `(count == nil) && false`},
	{`name < 1`, `(name == nil) && false`},
	{`name - 1 is None`, `(name == nil) && true`},
	{`len(count) > 0`, `false && 0 > 0`},
	{`name[0] == 'a'`, `(name == nil) && "a" == nil`},
	{`name[0] is None`, `(name == nil) && true`},
	{`meta[1] is None`, `true`},
	{`count + None is None`, `true`},
	{`count + None > 1`, `false`},
	{`name == 'a' 'b'`, `(name != nil && name == "ab")`},
	{`'''it's''' == name`, `(name != nil && "it's" == name)`},
	{`type == 1`, `false`},
	// conditional expression
	{`(count if approved else 0) > 1`, `((approved == true ? count : 0) != nil && (approved == true ? count : 0) > 1)`},
	{`(score + 1 if approved else count) == 0`, `((approved == true ? (score == nil ? nil : score + 1) : count) != nil && (approved == true ? score + 1 : count) == 0)`},
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
			if _, err := mspec.CompileGuard(got, testEnv()); err != nil {
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
		{`sorted(items) == items`, 1, `function sorted() is not supported in a gate (supported: abs, all, any, bool, float, int, len, max, min, round, str, sum)`, true},
		{`len(items, 2) > 0`, 1, `len() takes 1 argument, not 2`, false},
		{`name.get('k')`, 6, `get() is a dict method, and this is a string`, false},
		{`count | 1`, 7, `the bitwise operator | is not supported in a gate`, true},
		{`~count`, 1, `the bitwise operator ~ is not supported in a gate`, true},
		{`{'a': 1} == meta`, 1, `dict literals are not supported in a gate (lpp evaluates the gate false as well)`, true},
		{`{} == meta`, 1, `dict literals are not supported in a gate (lpp evaluates the gate false as well)`, true},
		{`f'{name}' == 'x'`, 1, `f-strings are not supported`, true},
		{`name == 'abc`, 9, `the string is not closed`, true},
		{"name == 'a' or\nname == 'b'", 15, `a line break outside brackets ends a Python expression, and text follows it: lpp's reading of the gate fails (SyntaxError), so lpp evaluates it false`, true},
		{"count > 1 # note\nand count < 3", 17, `a line break outside brackets ends a Python expression, and text follows it: lpp's reading of the gate fails (SyntaxError), so lpp evaluates it false`, true},
		{`count > `, 9, `the expression ends too early: expected a value`, false},
		{`(count > 1`, 11, `the expression ends too early: expected ")"`, false},
		{``, 1, `the expression is empty`, false},
		{`count == null`, 10, `null is not a Python constant`, true},
		{"count > 1" + strings.Repeat(" and count > 1", 715), 1, `the expression is longer than 10000 characters, more than lppctl reads (lpp's lint warns past 120)`, true},
		{`x = 1 if True`, 3, `"=" is an assignment; a gate only compares`, true},
		{`count if approved`, 18, `the expression ends too early: expected "else"`, false},
		{`event.foo == 1`, 7, `event has no field "foo"`, true},
		{`event == 1`, 1, `event is not a value`, true},
		{`count == 1j`, 10, `complex numbers are not supported`, false},
		{`count == 007`, 10, `invalid number "007": leading zeros are not allowed`, true},
		{`name[::2] == ''`, 7, `a slice step (x[a:b:c]) is not supported in a gate`, false},
		{`max(*items) > 1`, 5, `unpacking (*x) is not supported in a gate`, false},
		{`max(count, key=1) > 1`, 12, `keyword arguments are not supported in a gate`, true},
		{`count @ 2`, 7, `the bitwise operator @ is not supported in a gate`, false},
		{`count > 1;`, 10, `unexpected ";": expected the end of the expression`, false},
		{strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150), 101, `the expression nests deeper than 100 levels`, true},
		{strings.Repeat("not ", 60) + "name", 1, `the expression nests 61 levels deep, and lpp refuses more than 50 (the gate is false in lpp)`, true},
		{strings.Repeat("count + ", 50) + "1 > 0", 1, `the expression nests 52 levels deep, and lpp refuses more than 50 (the gate is false in lpp)`, true},
		{" name == 'a'", 1, `the expression starts with white space, which Python reads as an indented line (IndentationError): lpp evaluates the gate false`, true},
		{"\n\tname == 'a'", 2, `the expression starts with white space, which Python reads as an indented line (IndentationError): lpp evaluates the gate false`, true},
		{`name % 2 == 'a'`, 6, `string formatting with % is not supported in a gate`, true},
		{`round(score, 1, 2) > 0`, 1, `round() takes 1 or 2 arguments, not 3`, false},
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
	py := testenv.Python(t)
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
		got, err := evalGuard(src, env)
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

// evalGuard evaluates a translated gate as lppctl does: compiled against
// the properties' types, with the gate functions, run on values that may
// be None.
func evalGuard(src string, values map[string]any) (any, error) {
	p, err := mspec.CompileGuard(src, testEnv())
	if err != nil {
		return nil, err
	}
	return expr.Run(p, values)
}

// TestGatesAnswerAsPythonWhereItRaises evaluates gates that Python answers
// or raises on (a raise makes lpp's gate false) over contexts without None
// (where lpp's evaluator is Python's), and checks lppctl's answer: it is
// never an evaluation error.
func TestGatesAnswerAsPythonWhereItRaises(t *testing.T) {
	py := testenv.Python(t)
	gates := []string{
		`round(score) == 2`, `round(score) == 0`, `round(score, 1) == 2.5`, `round(count, -1) == 0`,
		`count % 3 == 2`, `count // 2 == -2`, `score % 2 == 0.5`, `score // count > 0`,
		`score / count > 1`, `count / (count - count) > 1`, `10 % count == 0`,
		`str(score) == '2.5'`, `str(approved) == 'True'`, `str(items) == "['x', 'y']"`, `str(count) + 'x' == '3x'`,
		`int(name) > 3`, `float(name) > 1`, `int(name) + int(target) == 3`,
		`sum(items) > 0`, `min(items) == 'x'`, `max(items) >= 1`, `max(count, score) > 2`, `abs(count) == 4`,
		`bool(items)`, `bool(name) and not bool(count)`,
		`score == True`, `approved == 1`, `count == '5'`, `name != 1`, `name * 2 == 'abab'`, `count * name == ''`,
		`items + ['z'] == ['x', 'y', 'z']`, `items < ['y']`, `approved < 2`, `1 in name`, `1 not in name`,
		`name < 1`, `len(count) > 0 or True`, `name == 'a' 'bc'`, `'''a'b''' == name`,
		`int(name) > 3 or count == 3`, `count == 3 or int(name) > 3`, `(int(name) if approved else 0) == 0`,
	}
	contexts := []map[string]any{
		{"name": "", "target": "t", "count": 0, "score": 0.0, "approved": false, "items": []any{}, "meta": map[string]any{}},
		{"name": "abc", "target": "1", "count": 3, "score": 2.5, "approved": true, "items": []any{"x", "y"}, "meta": map[string]any{"k": 5}},
		{"name": "12", "target": "2", "count": -7, "score": 0.5, "approved": true, "items": []any{1, 2.5}, "meta": map[string]any{}},
		{"name": " 2.5 ", "target": "x", "count": 4, "score": -2.46, "approved": false, "items": []any{1, nil}, "meta": map[string]any{}},
		{"name": "ab", "target": "1_0", "count": 5, "score": 1.5, "approved": true, "items": []any{[]any{1}}, "meta": map[string]any{}},
	}
	type job struct {
		Gate string         `json:"gate"`
		Ctx  map[string]any `json:"ctx"`
	}
	var jobs []job
	for _, g := range gates {
		for _, c := range contexts {
			jobs = append(jobs, job{g, c})
		}
	}
	in, _ := json.Marshal(jobs)
	script := `
import json, sys
out = []
b = {"len": len, "abs": abs, "max": max, "min": min, "str": str, "int": int, "float": float, "sum": sum, "round": round, "bool": bool}
for j in json.load(sys.stdin):
    try:
        out.append(bool(eval(j["gate"], {"__builtins__": b}, dict(j["ctx"]))))
    except Exception:
        out.append(False)
print(json.dumps(out))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []bool
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs {
		src, err := Translate(j.Gate, TestTypes)
		if err != nil {
			t.Fatalf("%s: %v", j.Gate, err)
		}
		got, err := evalGuard(src, j.Ctx)
		if err != nil {
			t.Errorf("%s → %s with %v: lppctl fails (%v), Python gives %v", j.Gate, src, j.Ctx, err, want[i])
			continue
		}
		if got != want[i] {
			t.Errorf("%s → %s with %v: lppctl gives %v, Python %v", j.Gate, src, j.Ctx, got, want[i])
		}
	}
}

// TestGatesLppEvaluatesFalseWarnAndTranslateToFalse: what lpp's evaluator
// refuses (a name of its list, a string's item) or Python raises on for
// the operands' types is false in lppctl too, with a warning that says so.
func TestGatesLppEvaluatesFalseWarnAndTranslateToFalse(t *testing.T) {
	tests := []struct {
		src  string
		vals map[string]any
		want bool
		col  int
		msg  string
	}{
		{`type == 'x'`, map[string]any{}, false, 1,
			`lpp refuses the name "type" in a gate (even as a context key), so the gate is always false in lpp: lppctl translates it to false`},
		{`approved or input`, map[string]any{"approved": true}, false, 13,
			`lpp refuses the name "input" in a gate (even as a context key), so the gate is always false in lpp: lppctl translates it to false`},
		{`name[0] == 'a'`, map[string]any{"name": "abc"}, false, 5,
			`lpp's evaluator cannot index a string: the gate is false in lpp wherever it gets there (unless the string is None: then it is None), and so it is in lppctl`},
		{`name[0] is None`, map[string]any{"name": nil}, true, 5,
			`lpp's evaluator cannot index a string: the gate is false in lpp wherever it gets there (unless the string is None: then it is None), and so it is in lppctl`},
		{`1 in name`, map[string]any{"name": "a1"}, false, 3,
			`"in" with an integer on its left and a string on its right: Python raises a TypeError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`1 not in name`, map[string]any{"name": nil}, true, 3,
			`"not in" with an integer on its left and a string on its right: Python raises a TypeError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`name < count`, map[string]any{"name": "a", "count": 1}, false, 6,
			`a string < an integer: Python raises a TypeError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`not (name - 1)`, map[string]any{"name": "a"}, false, 11,
			`a string - an integer: Python raises a TypeError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`count / 0 > 1`, map[string]any{"count": 1}, false, 7,
			`division by zero: Python raises a ZeroDivisionError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`(count / 0) is None`, map[string]any{"count": nil}, true, 8,
			`division by zero: Python raises a ZeroDivisionError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`count > 1 or score % 0.0 == 0`, map[string]any{"count": 3, "score": 1.5}, true, 20,
			`division by zero: Python raises a ZeroDivisionError, so lpp evaluates the gate false wherever it gets there (unless a value it reads is None), and so does lppctl`},
		{`len(count) > 0 or approved`, map[string]any{"count": 1, "approved": true}, false, 5,
			`len() of an integer: Python raises a TypeError, so lpp evaluates the gate false wherever it gets there, and so does lppctl`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			types := map[string]string{"type": "string", "input": "string"}
			for k, v := range TestTypes {
				types[k] = v
			}
			env := &Env{Types: types, Payload: "event.payload"}
			src, err := TranslateIn(tt.src, env)
			if err != nil {
				t.Fatalf("TranslateIn(%q): %v", tt.src, err)
			}
			if len(env.LppFalse) != 1 || env.LppFalse[0].Col != tt.col || env.LppFalse[0].Msg != tt.msg {
				for _, w := range env.LppFalse {
					t.Logf("warning: column %d: %s", w.Col, w.Msg)
				}
				t.Fatalf("want one warning: column %d: %s", tt.col, tt.msg)
			}
			vals := map[string]any{}
			for k := range TestTypes {
				vals[k] = nil
			}
			for k, v := range tt.vals {
				vals[k] = v
			}
			got, err := evalGuard(src, vals)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			if got != tt.want {
				t.Fatalf("%s → %s gives %v, want %v (lpp's answer)", tt.src, src, got, tt.want)
			}
		})
	}
}

package actions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/testenv"
	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

const scriptSpec = `
lpp: 1
name: compute
context:
  text:  {type: string, default: "a b c"}
  limit: {type: int, default: 2}
  words: {type: int, default: 0}
  fits:  {type: bool, default: false}
  tags:  {type: list, default: []}
initial: count
states:
  count:
    do: script.run
    with:
      script: scripts/count.py
      input: {text: text, limit: limit * 2}
      output: {words: words, fits: fits}
    next: [{to: done}]
  done: {final: true}
`

func TestScriptRunMapsOutput(t *testing.T) {
	testenv.Python(t)
	p := newProject(t, map[string]string{
		"a/spec.yaml": scriptSpec,
		"scripts/count.py": `import json, sys
d = json.load(sys.stdin)
n = len(d["text"].split())
print("counting", file=sys.stderr)
print(json.dumps({"words": n, "fits": n <= d["limit"], "extra": [1]}))
`,
	})
	r, err := p.run("a/spec.yaml", p.deps("a", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Var("words") != 3 || r.Var("fits") != true {
		t.Fatalf("vars %v", r.Vars())
	}
}

func TestScriptRunErrors(t *testing.T) {
	testenv.Python(t)
	for _, c := range []struct {
		name, script, output, want string
	}{
		{"a non-zero exit carries stderr", "import sys\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n", "{words: words}",
			"script scripts/count.py failed: [ERROR] scripts/count.py failed (exit code 3)\n[stderr]\nbad input"},
		{"garbage on stdout", "import sys\nprint('hello')\nprint('warn', file=sys.stderr)\n", "{words: words}",
			`script scripts/count.py printed no JSON object on stdout ("hello"); stderr: warn`},
		{"a JSON value that is not an object", "print('[1, 2]')\n", "{words: words}",
			`script scripts/count.py printed an array instead of a JSON object on stdout ("[1, 2]")`},
		{"stdout over the policy's cap", "print('{\"words\": \"' + 'a' * 40000 + '\"}')\n", "{words: words}",
			`script scripts/count.py printed 40014 bytes on stdout, more than the policy's limits.max_output_bytes (32768): the output was cut, so it is not one JSON object; print less, or raise the limit in config/tools_config.yaml`},
		{"a missing key", "print('{\"n\": 1}')\n", "{words: words}",
			`script scripts/count.py: its output has no key "words" for words (it has keys n)`},
		{"a missing key, and an error printed instead (exit code 0): the error is quoted", "print('{\"error\": \"unknown unit \\'parsec\\'\"}')\n", "{words: words}",
			`script scripts/count.py: its output has no key "words" for words (it has keys error); its "error": unknown unit 'parsec'`},
		{"an empty error is not quoted", "print('{\"error\": \"\", \"n\": 1}')\n", "{words: words}",
			`script scripts/count.py: its output has no key "words" for words (it has keys error, n)`},
		{"a list where an int is mapped", "print('{\"words\": [1, 2]}')\n", "{words: words}",
			`script scripts/count.py: key "words": cannot set "words": a list is not an int`},
		{"a float where an int is mapped", "print('{\"words\": 2.5}')\n", "{words: words}",
			`script scripts/count.py: key "words": cannot set "words": float 2.5 is not an int`},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := strings.Replace(scriptSpec, "output: {words: words, fits: fits}", "output: "+c.output, 1)
			p := newProject(t, map[string]string{"a/spec.yaml": spec, "scripts/count.py": c.script})
			_, err := p.run("a/spec.yaml", p.deps("a", ""), nil)
			want := `action failed: script.run in state "count": ` + c.want
			if err == nil || err.Error() != want {
				t.Fatalf("got  %v\nwant %s", err, want)
			}
		})
	}
}

// TestScriptRunOutsideScriptDirsIsBlocked: validation refuses such a script
// (TestCheckSpecReportsBadParameters), and the gateway still blocks it when
// a spec runs without being validated.
func TestScriptRunOutsideScriptDirsIsBlocked(t *testing.T) {
	spec := strings.Replace(scriptSpec, "scripts/count.py", "tools/count.py", 1)
	p := newProject(t, map[string]string{"a/spec.yaml": spec, "tools/count.py": "print('{}')\n"})
	d := p.deps("a", "")
	_, reg, diags := p.check("a/spec.yaml", d)
	require.Contains(t, diags.Errors().PrettyAll(nil), "is outside the script directories of the policy")
	src, err := os.ReadFile(filepath.Join(p.root, "a", "spec.yaml"))
	require.NoError(t, err)
	parsed, _ := mspec.Parse(filepath.Join(p.root, "a", "spec.yaml"), src)
	m, err := machine.Compile(parsed, reg)
	require.NoError(t, err)
	r, err := m.NewRun(nil, machine.WithRunID("run1"))
	require.NoError(t, err)
	err = r.Run(context.Background())
	d.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `script.run in state "count": script tools/count.py: [SECURITY BLOCKED] `)
}

func TestSplitStreams(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{"{}", "{}", ""},
		{"(no output)", "", ""},
		{"[stderr]\noops", "", "oops"},
		{"[stdout]\n{\"a\": 1}\n[stderr]\nx\n[stderr]\ny", "{\"a\": 1}", "x\n[stderr]\ny"},
	} {
		o, e := splitStreams(c.in)
		if o != c.out || e != c.err {
			t.Errorf("splitStreams(%q) = %q, %q", c.in, o, e)
		}
	}
}

// L++'s output_map writes a context path (lpp_format.md §9): with lpp:
// true, an output named o.k.j writes into the map o, creating the maps on
// the way and keeping its other keys; a key the output lacks leaves it.
func TestScriptRunWritesAnLppOutputPathIntoItsMap(t *testing.T) {
	testenv.Python(t)
	spec := `
lpp: 1
name: compute
context:
  o: {type: map, nullable: true, default: {keep: 1, k: "text"}}
  n: {type: int, nullable: true}
initial: count
states:
  count:
    do: script.run
    with:
      script: scripts/count.py
      lpp: true
      output: {o.k.j: score, o.m: score, n: n, o.gone: missing}
    next: [{to: done}]
  done: {final: true}
`
	p := newProject(t, map[string]string{"a/spec.yaml": spec, "scripts/count.py": "print('{\"score\": 3, \"n\": 1}')\n"})
	r, err := p.run("a/spec.yaml", p.deps("a", ""), nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"keep": 1, "k": map[string]any{"j": 3}, "m": 3}, r.Var("o"))
	assert.Equal(t, 1, r.Var("n"))
}

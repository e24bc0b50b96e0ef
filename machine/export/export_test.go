package export

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// exportCases are the golden diagrams: a spec, options, and a name.
var exportCases = []struct {
	name string
	spec string
	opts ExportOptions
}{
	{"agent", "testdata/specs/agent.yaml", ExportOptions{}},
	{"agent_path_set", "testdata/specs/agent.yaml", ExportOptions{ShowSet: true, Path: []string{"draft", "review", "draft", "review", "publish", "done"}}},
	{"hostile", "testdata/specs/hostile.yaml", ExportOptions{ShowSet: true, Path: []string{"state", "note", "graph", "end"}}},
}

var formatExt = map[string]string{"mermaid": ".mmd", "mermaid-flowchart": ".flow.mmd", "dot": ".dot"}

func loadSpec(t *testing.T, path string) *mspec.Spec {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, diags := validate.Check(path, src, machine.NewBuiltinRegistry())
	if diags.HasErrors() {
		t.Fatalf("%s is invalid:\n%s", path, diags.PrettyAll(src))
	}
	return spec
}

func TestExportMatchesGoldenDiagrams(t *testing.T) {
	for _, tc := range exportCases {
		spec := loadSpec(t, tc.spec)
		for _, format := range ExportFormats {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				got, err := Export(spec, format, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, filepath.Join("testdata/export", tc.name+formatExt[format]), got)
			})
		}
	}
}

func TestExportRejectsUnknownFormat(t *testing.T) {
	spec := loadSpec(t, "testdata/specs/agent.yaml")
	_, err := Export(spec, "svg", ExportOptions{})
	if !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("want ErrUnknownFormat, got %v", err)
	}
	if want := `cannot export: unknown export format "svg" (formats: mermaid, mermaid-flowchart, dot)`; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestExportStateDiagramUsesLppStyleLabels(t *testing.T) {
	spec, _ := mspec.Parse("t.yaml", []byte(`lpp: 1
name: t
context: {reply: string, n: int}
initial: optimizer
states:
  optimizer:
    next:
      - {to: evaluator, when: 'hasPrefix(reply, "[ATTEMPTS_COMPLETE]") && n > 0'}
      - evaluator
  evaluator: {final: true}
`))
	out, err := Export(spec, "mermaid", ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    [*] --> optimizer\n",
		"    optimizer --> evaluator : [hasPrefix(reply, \"[ATTEMPTS_COMPLETE]\") && n > 0]\n",
		"    optimizer --> evaluator\n",
		"    evaluator --> [*]\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestShortenExprElidesStringsThenCuts(t *testing.T) {
	tests := []struct{ in, want string }{
		{"n > 0", "n > 0"},
		{"a &&\n   b", "a && b"},
		{`hasPrefix(reply, "[ATTEMPTS_COMPLETE]") && pending_tools == 0`, `hasPrefix(reply, ...) && pending_tools…`},
		{`pending_tools > 0 && loop_count > max_loop_count && retries < max_retries`, `pending_tools > 0 && loop_count > max_l…`},
		{`msg == "x;y" && n < 3 || msg contains "#" || n > 100`, `msg == "x;y" && n < 3 || msg contains "…`},
		{`"unterminated string that is long enough to be cut`, `"unterminated string that is long enoug…`},
	}
	for _, tt := range tests {
		if got := shortenExpr(tt.in, 40); got != tt.want {
			t.Errorf("shortenExpr(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestExportedMermaidParses runs the real Mermaid parser over the golden
// diagrams when it is installed (cd machine/testdata/mermaid && npm install).
func TestExportedMermaidParses(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipRenderer(t, "node is not installed")
	}
	if _, err := os.Stat("testdata/mermaid/node_modules/mermaid"); err != nil {
		skipRenderer(t, "mermaid is not installed: cd machine/testdata/mermaid && npm ci")
	}
	files, _ := filepath.Glob("testdata/export/*.mmd")
	if len(files) == 0 {
		t.Fatal("no golden Mermaid diagrams")
	}
	// The project's own specs too: every exported diagram must parse.
	specs, _ := filepath.Glob("../../specs/*.yaml")
	more, _ := filepath.Glob("../../specs/*/*.yaml")
	if len(specs) == 0 {
		t.Fatal("no project specs under ../../specs")
	}
	dir := t.TempDir()
	for i, path := range append(specs, more...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := mspec.Parse(path, src)
		if spec == nil {
			continue
		}
		for _, format := range []string{"mermaid", "mermaid-flowchart"} {
			out, err := Export(spec, format, ExportOptions{ShowSet: true})
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(dir, fmt.Sprintf("%d-%s%s", i, filepath.Base(path), formatExt[format]))
			if err := os.WriteFile(f, out, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	args := []string{"testdata/mermaid/check.mjs"}
	args = append(args, files...)
	out, err := exec.Command(node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("Mermaid rejects an exported diagram: %v\n%s", err, out)
	}
	if n := bytes.Count(out, []byte("ok ")); n != len(files) {
		t.Fatalf("want %d ok lines, got:\n%s", len(files), out)
	}
}

// TestExportedDotRenders runs Graphviz over the golden DOT files when it is installed.
func TestExportedDotRenders(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		skipRenderer(t, "graphviz is not installed")
	}
	files, _ := filepath.Glob("testdata/export/*.dot")
	for _, f := range files {
		out, err := exec.Command(dot, "-Tsvg", "-o", os.DevNull, f).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("dot rejects %s: %v\n%s", f, err, out)
		}
	}
}

// skipRenderer skips a test that needs an outside renderer, unless
// LPPCTL_REQUIRE_RENDERERS is set (CI sets it after installing them): then
// a missing renderer is a failure, so the check cannot silently vanish.
func skipRenderer(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("LPPCTL_REQUIRE_RENDERERS") != "" {
		t.Fatalf("%s (LPPCTL_REQUIRE_RENDERERS is set)", why)
	}
	t.Skip(why)
}

// TestMermaidEscapesWhatTheRendererMisreads pins each escaping rule that
// rendering in real Mermaid showed to be needed (TestExportHostileSpecsRender
// finds them).
func TestMermaidEscapesWhatTheRendererMisreads(t *testing.T) {
	tests := []struct{ in, state, flow, dot string }{
		{`a :: b`, `a :∶ b`, `a :: b`, `"a :: b"`},
		{`msg == ":::"`, `msg == ":∶:"`, `msg == &quot;:::&quot;`, `"msg == \":::\""`},
		{`x &lt y &amp; z && w`, `x & lt y & amp； z && w`, `x &amp;lt y &amp;amp; z &amp;&amp; w`, `"x &lt y &amp;amp; z && w"`},
		{`__init__ and max_retries`, `＿＿init＿＿ and max_retries`, `__init__ and max_retries`, `"__init__ and max_retries"`},
		{`x*2 > y*3 || a * b`, `x＊2 > y＊3 || a * b`, `x*2 &gt; y*3 || a * b`, `"x*2 > y*3 || a * b"`},
		{`msg == "a\\" || msg == "\""`, `msg == "a＼＼" || msg == "＼""`, `msg == &quot;a\\&quot; || msg == &quot;\&quot;&quot;`, `"msg == \"a\\\\\" || msg == \"\\\"\""`},
		{`msg contains "x\ny"`, `msg contains "x＼ny"`, `msg contains &quot;x＼ny&quot;`, `"msg contains \"x\\ny\""`},
		{`msg == "direction LR"`, "msg == \"direction\u200b LR\"", "msg == &quot;direction\u200b LR&quot;", `"msg == \"direction LR\""`},
		{`msg == "&#35;"`, `msg == "& #35；"`, `msg == &quot;&amp;#35；&quot;`, `"msg == \"&amp;#35;\""`},
	}
	for _, tt := range tests {
		if got := mermaidText(tt.in); got != tt.state {
			t.Errorf("mermaidText(%q) = %q, want %q", tt.in, got, tt.state)
		}
		if got := mermaidQuoted(tt.in); got != tt.flow {
			t.Errorf("mermaidQuoted(%q) = %q, want %q", tt.in, got, tt.flow)
		}
		if got := dotString(tt.in); got != tt.dot {
			t.Errorf("dotString(%q) = %q, want %q", tt.in, got, tt.dot)
		}
	}
}

func TestMermaidDrawsSelfLoopsAsOneEdgeAndRenamesPrototypeNames(t *testing.T) {
	spec, diags := mspec.Parse("t.yaml", []byte(`lpp: 1
name: t
context: {n: int}
initial: __proto__
states:
  __proto__:
    next:
      - {to: __proto__, when: n < 1}
      - {to: __proto__, when: n < 2}
      - {to: constructor, when: n < 3}
      - __init__
    on_error: __proto__
  __init__: {next: constructor}
  constructor: {final: true}
`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for format, want := range map[string][]string{
		"mermaid": {
			"    state \"＿＿proto＿＿\" as s___proto__\n",
			"    state \"＿＿init＿＿\" as s___init__\n",
			"    state \"constructor\" as s_constructor\n",
			"    s___proto__ --> s___proto__ : [n < 1]<br/>[n < 2]<br/>on_error\n",
			"    s___proto__ --> s_constructor : [n < 3]\n",
		},
		"mermaid-flowchart": {
			"    n___proto__ -->|\"[n &lt; 1]<br/>[n &lt; 2]<br/>on_error\"| n___proto__\n",
		},
	} {
		out, err := Export(spec, format, ExportOptions{Path: []string{"__proto__", "__proto__", "constructor"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: missing %q in:\n%s", format, w, out)
			}
		}
		if n := strings.Count(string(out), "__proto__ --> s___proto__") + strings.Count(string(out), "| n___proto__\n"); n != 1 {
			t.Errorf("%s: want one self-loop edge, got %d:\n%s", format, n, out)
		}
	}
}

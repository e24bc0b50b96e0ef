package lpp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/export"
	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// lppRealDir is the folder of real blueprints from lpp's repository
// (../shared/lpp-real beside the worktree): test data, not copied here.
const lppRealDir = "../../../shared/lpp-real"

// lppReal returns the folder, skipping the test when it is absent (failing
// instead when LPPCTL_REQUIRE_LPP_REAL=1).
func lppReal(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(lppRealDir); err != nil {
		if os.Getenv("LPPCTL_REQUIRE_LPP_REAL") == "1" {
			t.Fatalf("%s is absent (LPPCTL_REQUIRE_LPP_REAL=1)", lppRealDir)
		}
		t.Skipf("%s is absent: the real-blueprint conformance tests need it", lppRealDir)
	}
	return lppRealDir
}

// lppRefuses are the documents lpp's loader refuses (lpp-real/README.md).
var lppRefuses = map[string]string{
	"utils_legacy_extractor_results_test_extracted_blueprint.json": `goes to "`,
	"src_lpp_policies_service_router.json":                         `names "!service_found", which is not declared in gates`,
	"utils_schema_migrator_tests_old_v011_blueprint.json":          "terminal_states must be an object of contracts or a list of state ids, not the string",
	"examples_assembly_payment_workflow_payment_workflow.json":     "lpp/assembly/v0.1 is an L++ assembly, not a blueprint",
	"src_lpp_policies_llm_governance.json":                         "lpp/policy/v0.1.0 is an L++ policy, not a blueprint",
}

// TestRealBlueprintsReadAsLppReadsThem: every blueprint lpp's loader
// accepts is read (warnings allowed), translated without a compute mapping
// and decodes as a spec; the ones lpp refuses, and the assembly and policy,
// are refused with a position.
func TestRealBlueprintsReadAsLppReadsThem(t *testing.T) {
	dir := lppReal(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		name := filepath.Base(f)
		if name == "gate-semantics.json" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			bp, diags := Parse(f, src)
			if want, refused := lppRefuses[name]; refused {
				require.True(t, diags.HasErrors(), "lpp refuses %s, lppctl reads it", name)
				found := false
				for _, d := range diags.Errors() {
					require.Greater(t, d.Pos.Line, 0, "an error without a position: %s", d.Msg)
					found = found || strings.Contains(d.Msg, want)
				}
				require.True(t, found, "no error says %q:\n%s", want, diags.Errors().PrettyAll(src))
				return
			}
			require.False(t, diags.HasErrors(), "lpp's loader accepts it:\n%s", diags.Errors().PrettyAll(src))
			m := mapfile.Default()
			m.Unmapped = true
			tr, err := Translate(bp, m)
			require.NoError(t, err)
			spec, sd := tr.Spec()
			require.False(t, sd.HasErrors(), "the translated spec does not decode:\n%s\n%s", tr.Remap(sd).Errors().PrettyAll(src), tr.YAML)
			require.NotNil(t, spec)
			require.Contains(t, Mermaid(bp), "stateDiagram-v2")
		})
	}
}

// gateCase is one case of gate-semantics.json: a gate, the types and
// values of the properties it reads, the event's payload, lpp's answer.
type gateCase struct {
	Case     string            `json:"case"`
	Gate     string            `json:"gate"`
	Types    map[string]string `json:"types"`
	Values   map[string]any    `json:"values"`
	Payload  map[string]any    `json:"payload"`
	LPP      bool              `json:"lpp"`
	LPPError *string           `json:"lpp_error"`
}

// TestGateSemanticsAgreeWithLpp: each gate of gate-semantics.json,
// translated and evaluated on its values as a run evaluates a guard, gives
// lpp's answer; where lpp's evaluator fails on a construct lppctl gives its
// evident meaning, the translation warns that lpp evaluates the gate false
// (or refuses it, for a gate that cannot be read).
func TestGateSemanticsAgreeWithLpp(t *testing.T) {
	dir := lppReal(t)
	raw, err := os.ReadFile(filepath.Join(dir, "gate-semantics.json"))
	require.NoError(t, err)
	var cases []gateCase
	require.NoError(t, json.Unmarshal(raw, &cases))
	require.Len(t, cases, 76)
	for _, c := range cases {
		t.Run(c.Case, func(t *testing.T) {
			env := &gate.Env{Types: c.Types, Payload: "event.payload"}
			x, err := gate.TranslateIn(c.Gate, env)
			switch c.Case {
			case "undeclared_name":
				// The loader declares it, an implicit property, and warns
				// that lpp evaluates the gate false until the caller sets it.
				src := `{"$schema": "lpp/v0.2.0", "id": "u", "name": "u", "version": "1", "gates": {"g": {"type": "expression", "expression": ` + strconv.Quote(c.Gate) + `}},
 "states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
 "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"]}]}`
				_, diags := Parse("u.json", []byte(src))
				require.False(t, diags.HasErrors())
				var msgs []string
				for _, w := range diags.Warnings() {
					msgs = append(msgs, w.Msg)
				}
				require.Contains(t, strings.Join(msgs, "\n"), "lpp evaluates a gate reading it false until the caller sets it")
				return
			case "dict_literal", "syntax_error": // lpp evaluates it false; lppctl refuses the gate when a transition uses it
				require.Error(t, err, "translated to %s", x)
				return
			}
			require.NoError(t, err)
			if len(env.LppFalse) > 0 {
				require.NotNil(t, c.LPPError, "warned that lpp evaluates %q false, but lpp answers %v", c.Gate, c.LPP)
				return
			}
			// compile as validation does (typed by the spec's types), run on the values
			typed := map[string]any{gate.StateVar: ""}
			vals := map[string]any{gate.StateVar: "a"}
			for k, typ := range c.Types {
				typed[k] = mspec.Type(specTypes[typ]).Zero()
				vals[k] = mspec.NormalizeJSON(c.Values[k])
			}
			typed["event"] = map[string]any{"name": "", "payload": map[string]any{}}
			pay := map[string]any{}
			for k, v := range c.Payload {
				pay[k] = mspec.NormalizeJSON(v)
			}
			vals["event"] = map[string]any{"name": "GO", "payload": pay}
			p, err := mspec.CompileGuard(x, typed)
			require.NoError(t, err, "%s does not compile", x)
			out, err := expr.Run(p, vals)
			require.NoError(t, err, "%s fails at run time where lpp answers %v", x, c.LPP)
			require.Equal(t, c.LPP, out, "%s translates to %s", c.Gate, x)
		})
	}
}

// lppAccepted returns the real blueprints lpp's loader accepts, decoded.
func lppAccepted(t *testing.T) map[string]*Blueprint {
	t.Helper()
	dir := lppReal(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	out := map[string]*Blueprint{}
	for _, f := range files {
		name := filepath.Base(f)
		if _, refused := lppRefuses[name]; refused || name == "gate-semantics.json" {
			continue
		}
		bp, err := Load(f)
		require.NoError(t, err, name)
		out[name] = bp
	}
	require.NotEmpty(t, out)
	return out
}

// lppEdges are the (from, to, event) edges lpp's own Mermaid drawing
// (visualizer.py, as_mermaid_simple; lpp-format.md §13) has for a
// blueprint, read from its JSON: one per transition and source, "*"
// expanded to every key of `states` but the target, and a transition whose
// source or target is not a key of `states` left out.
func lppEdges(t *testing.T, src []byte) []string {
	t.Helper()
	var doc struct {
		States      map[string]json.RawMessage `json:"states"`
		Transitions []struct {
			From    string `json:"from"`
			To      string `json:"to"`
			OnEvent string `json:"on_event"`
		} `json:"transitions"`
	}
	require.NoError(t, json.Unmarshal(src, &doc))
	var out []string
	for _, tr := range doc.Transitions {
		froms := []string{tr.From}
		if tr.From == "*" {
			froms = nil
			for s := range doc.States {
				if s != tr.To {
					froms = append(froms, s)
				}
			}
		}
		for _, f := range froms {
			_, okf := doc.States[f]
			_, okt := doc.States[tr.To]
			if okf && okt {
				out = append(out, f+" --> "+tr.To+" : "+tr.OnEvent)
			}
		}
	}
	slices.Sort(out)
	return out
}

var (
	mermaidStateRE = regexp.MustCompile(`^\s*state "(.*)" as (\S+)$`)
	mermaidEdgeRE  = regexp.MustCompile(`^\s*(\S+) --> (\S+) : (.*)$`)
)

// drawnEdges reads the (from, to, event) edges of lppctl's drawing of bp,
// with its "* (any state)" node expanded as lpp expands "*" and the states
// that are not keys of `states` (terminal-only ones) left out, as lpp's
// drawing leaves them out.
func drawnEdges(t *testing.T, bp *Blueprint) []string {
	t.Helper()
	names := map[string]string{}
	var keys []string // the blueprint's `states` keys, in its spelling
	for _, s := range bp.States {
		if !s.TerminalOnly {
			keys = append(keys, bp.Spelling(s.ID))
		}
	}
	var out []string
	for line := range strings.Lines(Mermaid(bp)) {
		line = strings.TrimRight(line, "\n")
		if m := mermaidStateRE.FindStringSubmatch(line); m != nil {
			names[m[2]] = m[1]
			continue
		}
		m := mermaidEdgeRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := func(id string) string { return cmp.Or(names[id], id) }
		from, to := name(m[1]), name(m[2])
		for _, label := range strings.Split(m[3], "<br/>") {
			var event string
			for _, tr := range bp.Transitions {
				if strings.HasPrefix(label, export.MermaidText(tr.ID+": "+bp.Spelling(tr.Event))) {
					event = bp.Spelling(tr.Event)
				}
			}
			require.NotEmpty(t, event, "edge label %q names no transition", label)
			froms := []string{from}
			if m[1] == anyID {
				froms = nil
				for _, k := range keys {
					if k != to {
						froms = append(froms, k)
					}
				}
			}
			for _, f := range froms {
				if slices.Contains(keys, f) && slices.Contains(keys, to) {
					out = append(out, f+" --> "+to+" : "+event)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestRealBlueprintsDrawLppsEdges: for every real blueprint lpp's loader
// accepts, the edges lppctl draws are those lpp draws (lpp-format.md §13).
func TestRealBlueprintsDrawLppsEdges(t *testing.T) {
	for name, bp := range lppAccepted(t) {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, lppEdges(t, bp.Source), drawnEdges(t, bp))
			require.Contains(t, Mermaid(bp), "[*] --> ")
		})
	}
}

// TestRealBlueprintDiagramsParseWithRealMermaid runs the real Mermaid
// parser over the diagram of every real blueprint lpp's loader accepts.
func TestRealBlueprintDiagramsParseWithRealMermaid(t *testing.T) {
	bps := lppAccepted(t)
	node, err := exec.LookPath("node")
	if err != nil {
		skipRenderer(t, "node is not installed")
	}
	if _, err := os.Stat("../testdata/mermaid/node_modules/mermaid"); err != nil {
		skipRenderer(t, "mermaid is not installed: cd machine/testdata/mermaid && npm ci")
	}
	dir := t.TempDir()
	var files []string
	for name, bp := range bps {
		out := filepath.Join(dir, strings.TrimSuffix(name, ".json")+".mmd")
		require.NoError(t, os.WriteFile(out, []byte(Mermaid(bp)), 0o644))
		files = append(files, out)
	}
	out, err := exec.Command(node, append([]string{"../testdata/mermaid/check.mjs"}, files...)...).CombinedOutput()
	require.NoError(t, err, "Mermaid rejects a diagram:\n%s", out)
	require.Equal(t, len(files), strings.Count(string(out), "ok "), "%s", out)
}

// TestAGateIsFalseWhereLppsEvaluationFails: lpp makes the whole gate false
// when its evaluation fails (len(None), None in a string), wherever the
// failure is (under not, !=, the right side of and/or); a side and/or never
// evaluate cannot fail.
func TestAGateIsFalseWhereLppsEvaluationFails(t *testing.T) {
	types := map[string]string{"l": "array", "s": "string", "x": "boolean"}
	tests := []struct {
		gate string
		vals map[string]any
		want bool
	}{
		{"not len(l) > 0", map[string]any{"l": nil}, false},
		{"not len(l) > 0", map[string]any{"l": []any{}}, true},
		{"len(l) != 0", map[string]any{"l": nil}, false},
		{"l is None or len(l) == 0", map[string]any{"l": nil}, true},
		{"x or len(l) > 0", map[string]any{"x": true, "l": nil}, true},
		{"x or len(l) > 0", map[string]any{"x": false, "l": nil}, false},
		{"not (x and len(l) > 0)", map[string]any{"x": true, "l": nil}, false},
		{"not (x and len(l) > 0)", map[string]any{"x": false, "l": nil}, true},
		{"(len(l) if x else 0) == 0", map[string]any{"x": false, "l": nil}, true},
		{"(len(l) if x else 0) == 0", map[string]any{"x": true, "l": nil}, false},
		{"s not in 'abc'", map[string]any{"s": nil}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s with %v", tt.gate, tt.vals), func(t *testing.T) {
			x, err := gate.Translate(tt.gate, types)
			require.NoError(t, err)
			typed := map[string]any{}
			vals := map[string]any{}
			for k, typ := range types {
				typed[k] = mspec.Type(specTypes[typ]).Zero()
				vals[k] = tt.vals[k]
			}
			p, err := mspec.CompileGuard(x, typed)
			require.NoError(t, err, x)
			out, err := expr.Run(p, vals)
			require.NoError(t, err, "%s fails at run time", x)
			require.Equal(t, tt.want, out, "%s translates to %s", tt.gate, x)
		})
	}
}

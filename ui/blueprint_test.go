package ui

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reviewBlueprint is an L++ blueprint with a compute gate and action.
const reviewBlueprint = `{
  "$schema": "lpp/v0.2.0",
  "id": "review",
  "context_schema": {"properties": {"owner": {"type": "string"}, "risk": {"type": "number"}}},
  "states": {"review": {}, "approved": {}, "rejected": {}},
  "entry_state": "review",
  "terminal_states": {"approved": {}, "rejected": {}},
  "gates": {"risk_ok": {"type": "compute", "compute_unit": "risk:check"}},
  "actions": {"score": {"type": "compute", "compute_unit": "risk:score",
              "input_map": {"amount": "event.payload.amount"}, "output_map": {"risk": "score"}}},
  "transitions": [
    {"id": "ok", "from": "review", "to": "approved", "on_event": "SUBMIT", "gates": ["risk_ok"], "actions": ["score"]},
    {"id": "no", "from": "review", "to": "rejected", "on_event": "SUBMIT"}
  ],
  "name": "x",
  "version": "1"
}
`

// badBlueprint has a gate in a dialect the translator cannot read.
const badBlueprint = `{
  "$schema": "lpp/v0.2.0",
  "context_schema": {"properties": {"x": {"type": "string"}}},
  "states": {"a": {}, "b": {}},
  "entry_state": "a",
  "terminal_states": ["b"],
  "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"]}],
  "gates": {
    "g": {"type": "expression", "expression": "x is lambda"}
  },
  "id": "x",
  "name": "x",
  "version": "1"
}
`

func blueprintFixture(t *testing.T) *fixture {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{
		"bp/review.json":     reviewBlueprint,
		"bp/bad.json":        badBlueprint,
		"bp/assembly.json":   `{"$schema": "lpp/assembly/v0.1", "blueprints": []}`,
		"ui/package.json":    `{"name": "x", "description": "lpp/v0.2.0"}`,
		"specs/loop.yaml":    loopSpec,
		"outside/other.json": reviewBlueprint,
	})
	return f
}

func TestSpecsPageListsBlueprints(t *testing.T) {
	f := blueprintFixture(t)
	out := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(out, []byte(reviewBlueprint), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(f.root, "link.json")); err != nil {
		t.Fatal(err)
	}
	list := f.do("GET", "/specs", "").Body.String()
	for _, want := range []string{
		// its validity, as lppctl validate finds it
		`<tr data-spec="bp/bad.json"><td><a href="/spec?path=bp%2fbad.json">bp/bad.json</a></td><td><span class="badge">L++ blueprint</span> <span class="badge v-FAIL">1 error(s)</span></td>`,
		`<tr data-spec="bp/review.json"><td><a href="/spec?path=bp%2freview.json">bp/review.json</a></td><td><span class="badge">L++ blueprint</span> <span class="badge v-PASS">valid</span></td>`,
		`<tr data-spec="specs/loop.yaml"><td><a href="/spec?path=specs%2floop.yaml">specs/loop.yaml</a></td><td><span class="badge v-PASS">valid</span></td>`,
	} {
		if !strings.Contains(list, want) {
			t.Errorf("the specs page lacks %s:\n%s", want, list)
		}
	}
	for _, not := range []string{"assembly.json", "package.json", "link.json"} {
		if strings.Contains(list, not) {
			t.Errorf("the specs page lists %s, which is no blueprint under the root", not)
		}
	}
}

func TestBlueprintPage(t *testing.T) {
	f := blueprintFixture(t)
	f.srv.mermaid = true
	body := f.do("GET", "/spec?path=bp/review.json", "").Body.String()
	for _, want := range []string{
		`<h1>L++ blueprint <code>bp/review.json</code> <span class="badge v-PASS" id="validity">valid</span></h1>`,
		`<section id="source"><h2>Source</h2><details><summary>17 lines</summary><ol class="src"><li><code>{</code></li><li><code>  &#34;$schema&#34;: &#34;lpp/v0.2.0&#34;,</code></li>`,
		// as lppctl validate finds it: its compute units need a mapping to run, not to be checked
		`<h2>0 error(s), 1 warning(s)</h2>`,
		`<b>warning</b> bp/review.json:8:13: no compute mapping for units risk:check, risk:score: add them to ` + filepath.Join(f.root, "bp", "review.lppctl.yaml"),
		"<pre class=\"mermaid-src\" hidden>stateDiagram-v2\n    %% L&#43;&#43; blueprint review\n    [*] --&gt; review\n",
		"    review --&gt; approved : ok: SUBMIT [compute risk:check] / score\n",
		`<p class="note" id="import">It starts and is checked as the spec it translates into, which <code>lppctl import lpp bp/review.json -o bp/review.yaml</code> writes.</p>`,
		`<button type="submit" id="check-button" class="go">Check</button>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the blueprint page lacks %q:\n%s", want, body)
		}
	}

	f.srv.mermaid = false
	body = f.do("GET", "/spec?path=bp/review.json", "").Body.String()
	for _, want := range []string{
		`<p class="hint">This lppctl was built without the Mermaid library (go generate ./ui embeds it; it needs npm), and an L&#43;&#43; blueprint is drawn as Mermaid only: here is its Mermaid source (paste it into any Mermaid viewer).</p>`,
		"<pre class=\"source\">stateDiagram-v2\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("without Mermaid the blueprint page lacks %q:\n%s", want, body)
		}
	}
}

func TestBlueprintPageShowsImportDiagnostics(t *testing.T) {
	f := blueprintFixture(t)
	tests := []struct {
		path, want string
	}{
		{"bp/bad.json", `<li class="sev-error"><b>error</b> bp/bad.json:9:53: cannot translate gate &#34;g&#34; (column 6 of its expression): unexpected &#34;lambda&#34;: expected a value</li>`},
		{"bp/assembly.json", `lpp/assembly/v0.1 is an L&#43;&#43; assembly, not a blueprint`},
	}
	for _, tt := range tests {
		w := f.do("GET", "/spec?path="+tt.path, "")
		body := w.Body.String()
		if w.Code != http.StatusOK || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d, want the diagnostic %s in\n%s", tt.path, w.Code, tt.want, body)
		}
		if !strings.Contains(body, `<p class="err">the blueprint cannot be drawn until its errors are fixed</p>`) {
			t.Errorf("%s: an invalid blueprint should not be drawn", tt.path)
		}
		if !strings.Contains(body, `<span class="badge v-FAIL" id="validity">invalid</span>`) {
			t.Errorf("%s: an invalid blueprint is not marked invalid", tt.path)
		}
	}
	// its source, open, with the diagnostic under its line
	body := f.do("GET", "/spec?path=bp/bad.json", "").Body.String()
	want := `<li class="has-diag"><code>    &#34;g&#34;: {&#34;type&#34;: &#34;expression&#34;, &#34;expression&#34;: &#34;x is lambda&#34;}</code><div class="diag">error 9:53: cannot translate gate &#34;g&#34; (column 6 of its expression): unexpected &#34;lambda&#34;: expected a value</div></li>`
	if !strings.Contains(body, `<section id="source"><h2>Source</h2><details open>`) || !strings.Contains(body, want) {
		t.Errorf("bp/bad.json: want its source open with %s in\n%s", want, body)
	}
}

func TestBlueprintPageRefuses(t *testing.T) {
	f := blueprintFixture(t)
	if err := os.Symlink(filepath.Join("outside", "other.json"), filepath.Join(f.root, "ok.json")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(out, []byte(reviewBlueprint), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(f.root, "link.json")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		code int
		want string
	}{
		{"ui/package.json", http.StatusBadRequest, `cannot show &#34;ui/package.json&#34;: it is not an L&#43;&#43; blueprint (its &#34;$schema&#34; does not name lpp/v0.1.x or lpp/v0.2.0)`},
		{"link.json", http.StatusBadRequest, `cannot read spec: openat link.json: path escapes from parent`},
		{"none.json", http.StatusNotFound, `cannot read spec: openat none.json: no such file or directory`},
		{"ok.json", http.StatusOK, `<span class="badge v-PASS" id="validity">valid</span>`}, // a link inside the root
	}
	for _, tt := range tests {
		w := f.do("GET", "/spec?path="+tt.path, "")
		if w.Code != tt.code || !strings.Contains(w.Body.String(), tt.want) {
			t.Errorf("%s: %d, want %d %s:\n%s", tt.path, w.Code, tt.code, tt.want, w.Body)
		}
	}
}

// TestABlueprintsBadgeCountsTheErrorsItsPageShows: the Specs page badges a
// blueprint as lppctl validate finds it, as its page does, not by lppctl
// import lpp's errors alone: a blueprint whose compute units are mapped to
// a script that does not exist imports, but cannot run.
func TestABlueprintsBadgeCountsTheErrorsItsPageShows(t *testing.T) {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{
		"bp/review.json":        reviewBlueprint,
		"bp/review.lppctl.yaml": "units:\n  risk:check: {script: scripts/missing.py, function: check}\n  risk:score: {script: scripts/missing.py, function: score}\n",
	})
	page := f.do("GET", "/spec?path=bp/review.json", "").Body.String()
	require.Contains(t, page, `2 error(s)`, "the blueprint's page")
	list := f.do("GET", "/specs", "").Body.String()
	assert.Contains(t, list, `<tr data-spec="bp/review.json"><td><a href="/spec?path=bp%2freview.json">bp/review.json</a></td><td><span class="badge">L++ blueprint</span> <span class="badge v-FAIL">2 error(s)</span></td>`)
}

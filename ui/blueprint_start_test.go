package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stuckBlueprint names a property len (lpp_len in its translation) and
// can get stuck in triage: lppctl check finds a deadlock.
const stuckBlueprint = `{
  "$schema": "lpp/v0.2.0",
  "id": "stuck",
  "name": "stuck",
  "version": "1",
  "description": "A ticket that can get stuck in triage.",
  "context_schema": {"properties": {"len": {"type": "integer"}, "owner": {"type": "string"}}},
  "states": {"idle": {}, "triage": {}, "done": {}},
  "entry_state": "idle",
  "terminal_states": {"done": {}},
  "transitions": [
    {"id": "open", "from": "idle", "to": "triage", "on_event": "OPEN"},
    {"id": "close", "from": "triage", "to": "done", "on_event": "CLOSE", "gates": ["short"]}
  ],
  "gates": {"short": {"type": "expression", "expression": "len < 0"}}
}
`

// argsRun is an lppctl that answers run --json as fakeRun's does and
// writes its arguments, one a line, to args.
func argsRun(t *testing.T, id string) (exe, args string) {
	t.Helper()
	dir := t.TempDir()
	exe, args = filepath.Join(dir, "lppctl"), filepath.Join(dir, "args")
	script := "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\" >> " + args + "; done\n" +
		`echo '{"type":"run","run_id":"` + id + `","dir":".lppctl/runs/` + id + `"}'` + "\n" +
		`echo '{"type":"end","status":"paused","state":"idle","steps":1,"pause":{"state":"idle","kind":"event","prompt":"waiting for an event: OPEN"}}'` + "\n"
	require.NoError(t, os.WriteFile(exe, []byte(script), 0o755))
	return exe, args
}

// TestABlueprintsPageStartsARunWithItsOwnPropertyNames: a blueprint's page
// has the Start form of a spec's, built from the spec it translates into,
// each field named as the blueprint names its property (len, which is
// lpp_len in the spec), and it starts lppctl run BLUEPRINT.json with --var
// of that name, as the CLI takes it. A value refused is refused on its
// field. (A blueprint's page had no Start.)
func TestABlueprintsPageStartsARunWithItsOwnPropertyNames(t *testing.T) {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{"bp/stuck.json": stuckBlueprint})
	id := f.addRun(1, nil)
	exe, args := argsRun(t, id)
	f.srv.opts.Exe = exe

	page := f.do("GET", "/spec?path=bp/stuck.json", "")
	require.Equal(t, http.StatusOK, page.Code, page.Body.String())
	body := page.Body.String()
	for _, want := range []string{
		`<section id="start"><h2>Start a run</h2>`,
		`<input type="hidden" name="path" value="bp/stuck.json">`,
		`<label for="var-len">len</label> <small>int</small>`,
		`<input type="text" inputmode="decimal" name="var.len" id="var-len" value="">`,
		`<label for="var-owner">owner</label> <small>string</small>`,
		`<code class="cli" id="start-cli">lppctl run --spec bp/stuck.json</code>`,
	} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, "lpp_len")

	w := f.do("POST", "/start", url.Values{"path": {"bp/stuck.json"}, "var.len": {"abc"}, "var.owner": {"ana"}}.Encode())
	require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `<div class="err field-error" id="err-len">`)
	assert.Contains(t, w.Body.String(), `<textarea name="var.owner" id="var-owner" rows="1">ana</textarea>`)
	_, err := os.Stat(args)
	require.ErrorIs(t, err, os.ErrNotExist, "a refused value starts nothing")

	w = f.do("POST", "/start", url.Values{"path": {"bp/stuck.json"}, "var.len": {"3"}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	assert.True(t, strings.HasPrefix(w.Header().Get("Location"), "/runs/"+id+"?n="), w.Header().Get("Location"))
	b, err := os.ReadFile(args)
	require.NoError(t, err)
	assert.Equal(t, "run\n--spec\nbp/stuck.json\n--no-input\n-q\n--deltas\n--root\n"+f.root+"\n--run-dir\n"+f.store.Dir+"\n--temporal=\n--var\nlen=3\n", string(b))
}

// TestABlueprintsPageChecksItAsLppctlCheckDoes: Check on a blueprint's page
// model-checks the spec it translates into, every position in the JSON as
// lppctl check gives them, and draws the counterexample. (A blueprint's
// page had no Check.)
func TestABlueprintsPageChecksItAsLppctlCheckDoes(t *testing.T) {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{"bp/stuck.json": stuckBlueprint})
	w := f.do("GET", "/spec?path=bp/stuck.json&check=1", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	body := w.Body.String()
	for _, want := range []string{
		`<p class="err" id="check-summary">a property fails: 2 (state, context) pairs, 2 transitions, depth 1,`,
		`<td><code>bp/stuck.json:8:26</code>: state &#34;triage&#34; is stuck: it waits for an event, and no event&#39;s guard holds`,
		`<li><b>idle → triage</b> <code>bp/stuck.json:12:5</code> event OPEN</li><li><b>triage</b> stops here</li>`,
		`<code>bp/stuck.json:13:5: state &#34;triage&#34; on CLOSE[0] → done, when (lpp_len != nil &amp;&amp; lpp_len &lt; 0)</code>`,
		`<section id="graph"><h2>Diagram <small>the counterexample of “no deadlock”</small></h2>`,
	} {
		assert.Contains(t, body, want)
	}
}

// TestABlueprintsStartFormHidesItsDefinedFlags: a name the blueprint does
// not declare, which a gate reads, has a field (the caller may set it, as
// with --var); its hidden lpp_defined_ flag has none, on a blueprint's page
// and on the page of the spec lppctl import lpp writes (a bool field named
// lpp_defined_x was offered, and nothing says what it is).
func TestABlueprintsStartFormHidesItsDefinedFlags(t *testing.T) {
	const bp = `{"$schema": "lpp/v0.2.0", "id": "u", "name": "u", "version": "1.0.0",
 "context_schema": {"properties": {}},
 "states": {"a": {}, "yes": {}, "no": {}}, "entry_state": "a", "terminal_states": {"yes": {}, "no": {}},
 "gates": {"g": {"type": "expression", "expression": "x is None"}},
 "transitions": [
  {"id": "t1", "from": "a", "to": "yes", "on_event": "GO", "gates": ["g"]},
  {"id": "t2", "from": "a", "to": "no", "on_event": "GO"}]}
`
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{"bp/u.json": bp})
	f.srv.opts.Exe, _ = argsRun(t, f.addRun(1, nil))
	page := f.do("GET", "/spec?path=bp/u.json", "")
	require.Equal(t, http.StatusOK, page.Code, page.Body.String())
	body := page.Body.String()
	assert.Contains(t, body, `<label for="var-x">x</label>`)
	assert.NotContains(t, body, `var.lpp_defined_x`)
}

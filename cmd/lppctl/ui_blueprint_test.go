package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/ui"
)

// submitBlueprint waits in idle for SUBMIT with a target; its property len
// is lpp_len in its translation.
const submitBlueprint = `{
  "$schema": "lpp/v0.2.0",
  "id": "submit",
  "name": "Submit",
  "version": "1",
  "context_schema": {"properties": {"len": {"type": "integer"}, "target": {"type": "string"}}},
  "states": {"idle": {}, "done": {}},
  "entry_state": "idle",
  "terminal_states": {"done": {}},
  "gates": {"has_target": {"type": "expression", "expression": "event.payload.target is not None"}},
  "actions": {"set_target": {"type": "set", "target": "target", "value_from": "event.payload.target"}},
  "transitions": [
    {"id": "t_submit", "from": "idle", "to": "done", "on_event": "SUBMIT", "gates": ["has_target"], "actions": ["set_target"]},
    {"id": "t_stay", "from": "idle", "to": "idle", "on_event": "SUBMIT"}
  ]
}
`

// TestUIStartsAndChecksABlueprintAsRunAndCheckDo: a blueprint's page in
// lppctl ui is valid as lppctl validate finds it, starts lppctl run
// BLUEPRINT.json (a --var named as the blueprint names its property) as a
// process of its own, whose run waits in idle; the run's page fires SUBMIT
// with its payload, and the run completes; Check explores it as lppctl
// check does. (The page had neither Start nor Check.)
func TestUIStartsAndChecksABlueprintAsRunAndCheckDo(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bp"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "bp", "submit.json"), []byte(submitBlueprint), 0o644))
	runDir := filepath.Join(root, runstore.DefaultDir)
	exe := lppctlExe(t)
	srv, err := ui.New(ui.Options{Root: root, RunDir: runDir, Exe: exe, Decide: uiDecide(exe, root, runDir), Check: uiCheck(root), Compile: uiCompile(root), Dot: "-", DecideWait: 20 * time.Second})
	require.NoError(t, err)
	h := srv.Handler()
	do := func(method, target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://127.0.0.1:8780"+target, strings.NewReader(body))
		if method == "POST" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", "http://127.0.0.1:8780")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}

	page := do("GET", "/spec?path=bp/submit.json", "").Body.String()
	require.Contains(t, page, `<span class="badge v-PASS" id="validity">valid</span>`, page)
	require.Contains(t, page, `<label for="var-len">len</label> <small>int</small>`)

	w := do("POST", "/start", url.Values{"path": {"bp/submit.json"}, "var.len": {"3"}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	id := regexp.MustCompile(`^/runs/([^?]+)\?`).FindStringSubmatch(w.Header().Get("Location"))
	require.NotNil(t, id, w.Header().Get("Location"))
	r, err := runstore.New(runDir).Open(id[1])
	require.NoError(t, err)
	require.Equal(t, machine.StatusPaused, r.Meta.Status)
	assert.Equal(t, map[string]any{"lpp_len": 3}, r.Meta.Vars)

	run := do("GET", "/runs/"+id[1], "").Body.String()
	require.Contains(t, run, `<input type="hidden" name="event" value="SUBMIT">`, run)
	step := regexp.MustCompile(`name="pause_step" value="(\d+)"`).FindStringSubmatch(run)
	require.NotNil(t, step)
	w = do("POST", "/runs/"+id[1]+"/decide", url.Values{"pause_step": {step[1]}, "kind": {"event"}, "event": {"SUBMIT"}, "payload": {`{"target": "x"}`}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	r, err = runstore.New(runDir).Open(id[1])
	require.NoError(t, err)
	assert.Equal(t, machine.StatusCompleted, r.Meta.Status)
	assert.Equal(t, "done", r.Meta.State)

	checked := do("GET", "/spec?path=bp/submit.json&check=1", "").Body.String()
	assert.Contains(t, checked, `<p class="ok" id="check-summary">no property fails: `, checked)
}

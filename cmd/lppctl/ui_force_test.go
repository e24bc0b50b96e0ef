package main

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/ui"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUIResumesARunWhoseSpecChangedOnlyOnceConfirmed: Resume of a run
// whose spec file was edited shows what lppctl resume shows (the states
// that differ) and does nothing; "Resume with the spec as it is now" runs
// lppctl resume --force, which continues the run with the new spec.
func TestUIResumesARunWhoseSpecChangedOnlyOnceConfirmed(t *testing.T) {
	root := t.TempDir()
	spec := filepath.Join(root, "count.yaml")
	src := "lpp: 1\nname: count\ncontext:\n  n: {type: int, default: 0}\ninitial: a\nstates:\n  a:\n    do: noop\n    set: {n: n + 1}\n    next:\n      - {to: a, when: n < 4}\n      - {to: done}\n  done: {final: true}\n"
	require.NoError(t, os.WriteFile(spec, []byte(src), 0o644))
	store := runstore.New(filepath.Join(root, ".lppctl", "runs"))
	code, out, errOut := lppctlCLI(t, "run", "--spec", spec, "--run-dir", store.Dir, "--json", "-q")
	require.Equal(t, 0, code, out+errOut)
	first := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out)
	require.NotNil(t, first, out)
	done, err := store.Open(first[1])
	require.NoError(t, err)
	code, out, errOut = lppctlCLI(t, "runs", "fork", first[1], "--step", "1", "--json", "--run-dir", store.Dir)
	require.Equal(t, 0, code, out+errOut)
	id := regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(out)[1]
	require.NoError(t, os.WriteFile(spec, []byte(strings.Replace(src, "n + 1", "n + 2", 1)), 0o644))

	exe := lppctlExe(t)
	srv, err := ui.New(ui.Options{Root: root, RunDir: store.Dir, Exe: exe, Decide: uiDecide(exe, root, store.Dir), Dot: "-", DecideWait: 20 * time.Second})
	require.NoError(t, err)
	h := srv.Handler()
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8780/runs/"+id+"/resume", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://127.0.0.1:8780")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}

	w := post("")
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	page := w.Body.String()
	assert.Contains(t, page, html.EscapeString(`changed since the run began:
  state "a": changed (set)
resume with --force to continue with the new spec, or restore the old one`))
	assert.Contains(t, page, `<code class="cli">lppctl resume `+id+` --force</code>`)
	r, err := store.Open(id)
	require.NoError(t, err)
	require.Equal(t, machine.StatusInterrupted, r.Meta.Status, "Resume refused: the run is as it was")

	seen := regexp.MustCompile(`name="seen" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	key := regexp.MustCompile(`name="form_key" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	require.NotNil(t, seen)
	require.NotNil(t, key)
	w = post(url.Values{"force": {"1"}, "seen": {seen[1]}, "form_key": {key[1]}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	r, err = store.Open(id)
	require.NoError(t, err)
	assert.Equal(t, machine.StatusCompleted, r.Meta.Status)
	copied, err := r.SpecCopy()
	require.NoError(t, err)
	assert.Contains(t, string(copied), "n + 2", "the run's copy of its spec is the one it continued with")
	assert.Less(t, r.Meta.Steps, done.Meta.Steps, "n + 2 reaches the bound in fewer steps than n + 1")
}

// TestUIDecidesForARunWhoseSpecChangedOnlyWithTheForceBox: an event fired
// at a paused run whose spec file was edited is refused with resume's
// message (nothing done, 409), not "the run stopped"; the form's box
// takes it with lppctl resume --force.
func TestUIDecidesForARunWhoseSpecChangedOnlyWithTheForceBox(t *testing.T) {
	root := t.TempDir()
	spec := filepath.Join(root, "wait.yaml")
	src := "lpp: 1\nname: wait\ncontext:\n  n: {type: int, default: 0}\ninitial: a\nevents:\n  GO: {}\nstates:\n  a:\n    on:\n      GO: [{to: done, set: {n: n + 1}}]\n  done: {final: true}\n"
	require.NoError(t, os.WriteFile(spec, []byte(src), 0o644))
	store := runstore.New(filepath.Join(root, ".lppctl", "runs"))
	code, out, errOut := lppctlCLI(t, "run", "--spec", spec, "--run-dir", store.Dir, "--json", "-q")
	require.Equal(t, exitPaused, code, out+errOut)
	id := regexp.MustCompile(`"run_id":"([^"]+)"`).FindStringSubmatch(out)[1]
	require.NoError(t, os.WriteFile(spec, []byte(strings.Replace(src, "n + 1", "n + 5", 1)), 0o644))

	exe := lppctlExe(t)
	srv, err := ui.New(ui.Options{Root: root, RunDir: store.Dir, Exe: exe, Decide: uiDecide(exe, root, store.Dir), Dot: "-", DecideWait: 20 * time.Second})
	require.NoError(t, err)
	h := srv.Handler()
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8780/runs/"+id+"/decide", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://127.0.0.1:8780")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := post("pause_step=1&kind=event&event=GO")
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), html.EscapeString(`changed since the run began:
  state "a": changed (on)`))
	assert.NotContains(t, w.Body.String(), "the run stopped")
	seen := regexp.MustCompile(`name="seen" value="([0-9a-f]+)"`).FindStringSubmatch(w.Body.String())
	require.NotNil(t, seen)
	r, err := store.Open(id)
	require.NoError(t, err)
	require.Equal(t, machine.StatusPaused, r.Meta.Status)

	w = post("pause_step=1&kind=event&event=GO&force=1&seen=" + seen[1])
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	r, err = store.Open(id)
	require.NoError(t, err)
	assert.Equal(t, machine.StatusCompleted, r.Meta.Status)
	copied, err := r.SpecCopy()
	require.NoError(t, err)
	assert.Contains(t, string(copied), "n + 5")
}

package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRun is an lppctl that answers run --json as lppctl does: its run's ID
// on its first line, how it ended on its last; each call is counted in
// calls. The run it names is one the test made.
func fakeRun(t *testing.T, id string) (exe, calls string) {
	t.Helper()
	dir := t.TempDir()
	exe, calls = filepath.Join(dir, "lppctl"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho x >> " + calls + "\n" +
		`echo '{"type":"run","run_id":"` + id + `","dir":".lppctl/runs/` + id + `"}'` + "\n" +
		`echo '{"type":"step","seq":1,"from":"a","to":"done"}'` + "\n" +
		`echo '{"type":"end","status":"completed","state":"done","steps":3,"elapsed_ms":1}'` + "\n"
	require.NoError(t, os.WriteFile(exe, []byte(script), 0o755))
	return exe, calls
}

// TestAStartOpensTheRunItsCommandNames: the Start form opens the run that
// its lppctl run names (--json's first line), however many runs start or
// end meanwhile, and says how it ended in lppctl run -q's words. (It was
// found by the process's pid in run.json or as the one new run: a short run
// that ended while another started was refused with its own summary.)
func TestAStartOpensTheRunItsCommandNames(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil) // the run the command names: made before it, as no new one appears
	f.addRun(2, nil)
	exe, calls := fakeRun(t, id)
	f.srv.opts.Exe = exe
	writeFiles(t, f.root, map[string]string{"specs/notes.yaml": noteSpec})

	w := f.do("POST", "/start", url.Values{"path": {"specs/notes.yaml"}, "var.n": {"4"}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	loc := w.Header().Get("Location")
	assert.True(t, strings.HasPrefix(loc, "/runs/"+id+"?n="), loc)
	assert.Contains(t, f.do("GET", loc, "").Body.String(), `<p class="notice" id="notice">completed in done after 3 steps</p>`)
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(b))
}

func TestStartOutcomeSaysHowTheRunEnded(t *testing.T) {
	for _, tt := range []struct{ name, out, want string }{
		{"completed", `{"type":"end","status":"completed","state":"done","steps":1}`, "completed in done after 1 step"},
		{"paused", `{"type":"end","status":"paused","state":"review","steps":1,"pause":{"state":"review","kind":"event","prompt":"waiting for an event: SUBMIT"}}`, "paused in review after 1 step: waiting for an event: SUBMIT"},
		{"not JSON", "completed in done after 2 steps", "completed in done after 2 steps"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), "lppctl")
			require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\necho '{\"type\":\"run\",\"run_id\":\"r\"}'\necho '"+tt.out+"'\n"), 0o755))
			p, err := Launch(exe, t.TempDir(), nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, startOutcome(p))
			assert.Equal(t, "r", startedRun(p))
		})
	}
}

// TestASecondPostOfAStartOrForkFormStartsNothingMore: a form posted twice
// (a double click, a browser sending it again) starts one run, and both
// posts open it; a new page's form starts another.
func TestASecondPostOfAStartOrForkFormStartsNothingMore(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil)
	exe, calls := fakeRun(t, id)
	f.srv.opts.Exe = exe
	writeFiles(t, f.root, map[string]string{"specs/notes.yaml": noteSpec})
	key := regexp.MustCompile(`name="form_key" value="([0-9a-f]+)"`)

	page := f.do("GET", "/spec?path=specs/notes.yaml", "").Body.String()
	k := key.FindStringSubmatch(page)
	require.NotNil(t, k, "the Start form has a key")
	form := url.Values{"path": {"specs/notes.yaml"}, "form_key": {k[1]}}.Encode()
	first, second := f.do("POST", "/start", form), f.do("POST", "/start", form)
	require.Equal(t, http.StatusSeeOther, first.Code, first.Body.String())
	assert.Equal(t, http.StatusSeeOther, second.Code)
	assert.Equal(t, first.Header().Get("Location"), second.Header().Get("Location"))
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(b), "lppctl run ran once")

	again := key.FindStringSubmatch(f.do("GET", "/spec?path=specs/notes.yaml", "").Body.String())
	require.NotNil(t, again)
	require.NotEqual(t, k[1], again[1], "each page's form has its own key")

	// Fork from step N: the same
	exe = filepath.Join(t.TempDir(), "lppctl")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\necho x >> "+calls+"\necho '{\"id\":\""+id+"\",\"step\":2,\"state\":\"a\"}'\n"), 0o755))
	f.srv.opts.Exe = exe
	fk := key.FindStringSubmatch(f.do("GET", "/runs/"+id+"?at=2", "").Body.String())
	require.NotNil(t, fk, "the Fork form has a key")
	form = url.Values{"step": {"2"}, "form_key": {fk[1]}}.Encode()
	first, second = f.do("POST", "/runs/"+id+"/fork", form), f.do("POST", "/runs/"+id+"/fork", form)
	require.Equal(t, http.StatusSeeOther, first.Code, first.Body.String())
	assert.Equal(t, first.Header().Get("Location"), second.Header().Get("Location"))
	b, err = os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, "x\nx\n", string(b), "lppctl runs fork ran once")
}

// TestAStartRefusedLetsTheSameFormBePostedAgain: a post that started
// nothing (a value refused on its field) does not hold its form's key.
func TestAStartRefusedLetsTheSameFormBePostedAgain(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil)
	exe, calls := fakeRun(t, id)
	f.srv.opts.Exe = exe
	writeFiles(t, f.root, map[string]string{"specs/notes.yaml": noteSpec})
	w := f.do("POST", "/start", url.Values{"path": {"specs/notes.yaml"}, "form_key": {"k1"}, "var.n": {"abc"}}.Encode())
	require.Equal(t, http.StatusBadRequest, w.Code)
	w = f.do("POST", "/start", url.Values{"path": {"specs/notes.yaml"}, "form_key": {"k1"}, "var.n": {"5"}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(b))
}

// TestAStartFormGivingAVariableTheSpecNoLongerHasStartsNothing: a Start
// form posted after its spec lost a variable (the file edited meanwhile)
// is refused, saying which, rather than started without the value typed
// into it (it was dropped without a word).
func TestAStartFormGivingAVariableTheSpecNoLongerHasStartsNothing(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil)
	exe, calls := fakeRun(t, id)
	f.srv.opts.Exe = exe
	writeFiles(t, f.root, map[string]string{"specs/notes.yaml": noteSpec})
	w := f.do("POST", "/start", url.Values{"path": {"specs/notes.yaml"}, "form_key": {"k2"}, "var.n": {"5"}, "var.gone": {"typed"}, "var.old": {""}}.Encode())
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `cannot start the run: the spec has no variable &#34;gone&#34;, &#34;old&#34; any more (it changed since this page was made): nothing was started; look at the form as it is now and start the run again`)
	_, err := os.Stat(calls)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was run")

	w = f.do("POST", "/start", url.Values{"path": {"specs/notes.yaml"}, "form_key": {"k2"}, "var.n": {"5"}}.Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, "the form as it is now starts the run")
}

package ui

import (
	"html"
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

// TestResumeOfARunWhoseSpecChangedAsksToConfirmTheForce: Resume of a run
// whose spec changed shows resume's refusal (what differs) and a button
// that runs lppctl resume --force once confirmed; a confirmation of other
// differences than the ones resume finds now is shown again, and a spec
// restored meanwhile resumes without --force.
func TestResumeOfARunWhoseSpecChangedAsksToConfirmTheForce(t *testing.T) {
	dir := t.TempDir()
	calls, refusal := filepath.Join(dir, "calls"), filepath.Join(dir, "refusal")
	// Exe is lppctl resume as it answers a changed spec: refused without
	// --force (the text of the refusal file), continued with it.
	exe := filepath.Join(dir, "lppctl")
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\n" +
		"case \" $* \" in *' --force '*) echo 'completed in done after 9 steps'; exit 0;; esac\n" +
		"if [ -f " + refusal + " ]; then cat " + refusal + " >&2; exit 1; fi\n" +
		"echo 'completed in done after 5 steps'\n"
	require.NoError(t, os.WriteFile(exe, []byte(script), 0o755))
	f := newFixture(t, Options{Exe: exe})
	id := f.addRun(2, nil)
	refuse := func(diff string) string {
		msg := "cannot resume run " + id + ": specs/loop.yaml changed since the run began:\n  " + diff + "\nresume with --force to continue with the new spec, or restore the old one (a copy is in " + f.store.Dir + "/" + id + "/spec.yaml)"
		require.NoError(t, os.WriteFile(refusal, []byte("lppctl: "+msg+"\n"), 0o644))
		return msg
	}
	ran := func() []string {
		b, _ := os.ReadFile(calls)
		_ = os.Remove(calls)
		return strings.Fields(strings.ReplaceAll(string(b), "\n", " | "))
	}
	seen := regexp.MustCompile(`name="seen" value="([0-9a-f]+)"`)
	formKey := regexp.MustCompile(`name="form_key" value="([0-9a-f]+)"`)
	confirm := func(page string) url.Values {
		t.Helper()
		s, k := seen.FindStringSubmatch(page), formKey.FindStringSubmatch(page)
		require.NotNil(t, s, page)
		require.NotNil(t, k, page)
		return url.Values{"force": {"1"}, "seen": {s[1]}, "form_key": {k[1]}}
	}

	// Resume: refused, the differences shown, and the button to force it.
	msg := refuse(`state "b": changed (do)`)
	w := f.do("POST", "/runs/"+id+"/resume", "")
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	page := w.Body.String()
	assert.Contains(t, page, `<pre class="err" id="force-refusal">`+html.EscapeString(msg)+`</pre>`)
	assert.Contains(t, page, `<button id="force-resume" class="go">Resume with the spec as it is now</button> <code class="cli">lppctl resume `+id+` --force</code>`)
	assert.NotContains(t, page, `id="changed-again"`)
	assert.Equal(t, []string{"resume", "--no-input", "-q", "--run-dir", f.store.Dir, "--temporal=", "--", id, "|"}, ran())

	// The spec changed again before the confirmation: the new differences
	// are shown to confirm, and nothing is forced.
	stale := confirm(page)
	msg = refuse(`state "b": changed (do, with)`)
	w = f.do("POST", "/runs/"+id+"/resume", stale.Encode())
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `id="changed-again"`)
	assert.Contains(t, w.Body.String(), html.EscapeString(msg))
	assert.NotContains(t, strings.Join(ran(), " "), "--force")

	// Confirmed: lppctl resume --force, its outcome on the run's page.
	w = f.do("POST", "/runs/"+id+"/resume", confirm(w.Body.String()).Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	assert.Equal(t, []string{
		"resume", "--no-input", "-q", "--run-dir", f.store.Dir, "--temporal=", "--", id, "|",
		"resume", "--no-input", "-q", "--force", "--run-dir", f.store.Dir, "--temporal=", "--", id, "|"}, ran())
	run := f.do("GET", w.Header().Get("Location"), "").Body.String()
	assert.Contains(t, run, `<p class="notice" id="notice">resumed with the spec as it is now (lppctl resume `+id+` --force): completed in done after 9 steps</p>`)

	// The spec restored after the refusal was shown: the confirmation
	// resumes it as it is, without --force.
	refuse(`state "b": changed (do)`)
	page = f.do("POST", "/runs/"+id+"/resume", "").Body.String()
	ran()
	require.NoError(t, os.Remove(refusal))
	w = f.do("POST", "/runs/"+id+"/resume", confirm(page).Encode())
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	assert.Equal(t, []string{"resume", "--no-input", "-q", "--run-dir", f.store.Dir, "--temporal=", "--", id, "|"}, ran())
	assert.Contains(t, f.do("GET", w.Header().Get("Location"), "").Body.String(), `<p class="notice" id="notice">completed in done after 5 steps</p>`)
}

// TestADecisionRefusedBecauseTheSpecChangedIsTakenWithForceOnceConfirmed:
// a decision that resume refuses because the spec changed shows the run's
// page with the refusal (what differs), what was typed, and a box on each
// form that takes the decision with the spec as it is now (--force); the
// box confirms that very refusal, and the decision is tried without
// --force first.
func TestADecisionRefusedBecauseTheSpecChangedIsTakenWithForceOnceConfirmed(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(1, approval())
	diff := `state "b": changed (do)`
	f.decide = func(d Decision) (string, error) {
		if !d.Force {
			return "", &Refusal{Msg: "cannot resume run " + id + ": specs/loop.yaml changed since the run began:\n  " + diff + "\nresume with --force to continue with the new spec, or restore the old one (a copy is in spec.yaml)"}
		}
		return "completed in done after 3 steps", nil
	}
	w := f.do("POST", "/runs/"+id+"/decide", "pause_step=1&kind=answer&text=my+answer")
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	page := w.Body.String()
	assert.Contains(t, page, html.EscapeString(`changed since the run began:
  state "b": changed (do)
resume with --force`))
	assert.Contains(t, page, `>my answer</textarea><label class="force"><input type="checkbox" name="force" value="1"> with the spec as it is now (<code>--force</code>)</label>`)
	assert.Equal(t, 3, strings.Count(page, `name="force" value="1"`), "Approve, Reject and Answer each offer it")
	s := regexp.MustCompile(`name="seen" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	require.NotNil(t, s)
	require.Len(t, f.got, 1)
	assert.False(t, f.got[0].Force)

	// Confirmed for other differences than resume finds now: shown again.
	diff = `state "b": changed (do, with)`
	w = f.do("POST", "/runs/"+id+"/decide", "pause_step=1&kind=answer&text=my+answer&force=1&seen="+s[1])
	require.Equal(t, http.StatusConflict, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), "what differs changed again since you confirmed it: nothing was done; look at it again.")
	require.Len(t, f.got, 2)
	assert.False(t, f.got[1].Force)

	// Confirmed: taken with --force, after the same refusal again.
	s = regexp.MustCompile(`name="seen" value="([0-9a-f]+)"`).FindStringSubmatch(w.Body.String())
	require.NotNil(t, s)
	w = f.do("POST", "/runs/"+id+"/decide", "pause_step=1&kind=answer&text=my+answer&force=1&seen="+s[1])
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	require.Len(t, f.got, 4)
	assert.Equal(t, Decision{Run: id, PauseStep: 1, Kind: "answer", Text: "my answer", Force: true}, f.got[3])
}

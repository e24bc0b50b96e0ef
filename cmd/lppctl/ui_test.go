package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"

	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/ui"
)

// TestUIDecideIsResume: a decision from the UI is lppctl resume's: the run
// completes and its journal holds the approval; a second decision for the
// same pause is refused with resume's message and changes nothing.
func TestUIDecideIsResume(t *testing.T) {
	root, id := pausedRun(t)
	runDir := filepath.Join(root, runstore.DefaultDir)
	decide := uiDecide(lppctlExe(t), root, runDir)
	out, err := decide(context.Background(), ui.Decision{Run: id, PauseStep: 1, Kind: "approve"})
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	if out != "completed in done after 28 steps" {
		t.Errorf("approve printed %q, want %q", out, "completed in done after 28 steps")
	}
	journal := filepath.Join(runDir, id, runstore.JournalFile)
	before, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(before, []byte(`"answer":{"kind":"approve"}`)) {
		t.Errorf("the journal does not record the approval")
	}

	for _, kind := range []string{"approve", "reject"} {
		_, err = decide(context.Background(), ui.Decision{Run: id, PauseStep: 1, Kind: kind})
		var ref *ui.Refusal
		if !errors.As(err, &ref) {
			t.Fatalf("a second decision (%s) for the same pause: got %v, want a refusal", kind, err)
		}
		want := fmt.Sprintf("run %s no longer waits for this decision (it paused after step 1; it is completed in done after 28 steps now): the decision was already taken; reload to see what it waits for", id)
		if ref.Msg != want {
			t.Errorf("refusal:\n got %q\nwant %q", ref.Msg, want)
		}
	}
	after, _ := os.ReadFile(journal)
	if !bytes.Equal(before, after) {
		t.Errorf("a refused decision changed the journal")
	}
}

// TestUIDecideRefusesWhileTheRunIsLocked: while another process (here: a
// lock held by this one, as a resume in flight holds it) works on the run, a
// decision is refused with the lock's message.
func TestUIDecideRefusesWhileTheRunIsLocked(t *testing.T) {
	root, id := pausedRun(t)
	runDir := filepath.Join(root, runstore.DefaultDir)
	r, err := runstore.New(runDir).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Lock("resume"); err != nil {
		t.Fatal(err)
	}
	defer r.Unlock()
	_, err = uiDecide(lppctlExe(t), root, runDir)(context.Background(), ui.Decision{Run: id, PauseStep: 1, Kind: "approve"})
	var ref *ui.Refusal
	if !errors.As(err, &ref) || !strings.Contains(ref.Msg, fmt.Sprintf("run %s is being resumed by another process (pid %d)", id, os.Getpid())) {
		t.Fatalf("got %v, want the lock's refusal", err)
	}
	if st := runStatusOf(t, root, id); st != "paused" {
		t.Errorf("the run is %s, want still paused", st)
	}
}

// TestUIDecideRefusesAnUnknownEventLikeResume: an event the spec does not
// have is refused with resume's usage message, the run left paused.
func TestUIDecideRefusesAnUnknownEventLikeResume(t *testing.T) {
	root, id := pausedRun(t)
	_, err := uiDecide(lppctlExe(t), root, filepath.Join(root, runstore.DefaultDir))(context.Background(), ui.Decision{Run: id, PauseStep: 1, Kind: "event", Event: "NOPE"})
	var ref *ui.Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("got %v, want a refusal", err)
	}
	if want := `cannot fire event "NOPE": the spec defines no such event`; ref.Msg != want {
		t.Errorf("refusal %q, want %q", ref.Msg, want)
	}
	if st := runStatusOf(t, root, id); st != "paused" {
		t.Errorf("the run is %s, want still paused", st)
	}
}

// TestUIButtonsRunLppctlProcesses: the run page's buttons are lppctl
// commands run as processes of their own (here this test binary as
// lppctl): Cancel stops a running run (interrupted, journaled), Resume
// starts it again in a new process, Fork makes a run from a past step.
func TestUIButtonsRunLppctlProcesses(t *testing.T) {
	root, store, id, child := startLongRun(t)
	exe := lppctlExe(t)
	srv, err := ui.New(ui.Options{Root: root, RunDir: store.Dir, Exe: exe, Decide: uiDecide(exe, root, store.Dir), Dot: "-", DecideWait: 8 * time.Second}) // Resume then waits 8 s for a run of 30 s
	require.NoError(t, err)
	h := srv.Handler()
	post := func(target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8780"+target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://127.0.0.1:8780")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	get := func(target string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1:8780"+target, nil))
		return w.Body.String()
	}
	require.Contains(t, get("/runs/"+id), `<button id="cancel" class="stop">Cancel</button> <code class="cli">lppctl runs cancel `+id+`</code>`)

	w := post("/runs/"+id+"/cancel", "")
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	assert.Contains(t, get(w.Header().Get("Location")), "run "+id+" cancelled: interrupted in tick after ")
	_ = child.Wait()
	r, err := store.Open(id)
	require.NoError(t, err)
	require.Equal(t, machine.StatusInterrupted, r.Meta.Status)

	w = post("/runs/"+id+"/fork", "step=1") // the run took at least one step before the cancel
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	forked := get(w.Header().Get("Location"))
	assert.Contains(t, forked, "forked from run "+id+" after step 1, in tick")
	assert.Contains(t, forked, `id="fork-of">`+id+`</a> after step 1`)

	w = post("/runs/"+id+"/resume", "")
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err = store.Open(id)
		require.NoError(t, err)
		if r.Working() {
			break
		}
		require.False(t, time.Now().After(deadline), "Resume did not start the run again (it is %s)", r.Meta.Status)
		time.Sleep(20 * time.Millisecond)
	}
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, run([]string{"lppctl", "runs", "cancel", id, "--root", root}, strings.NewReader(""), &out, &errb), errb.String())
}

func TestUIABadAddrIsAUsageError(t *testing.T) {
	tests := []struct{ addr, stderr string }{
		{"127.0.0.1:99999", `lppctl: cannot serve the UI on 127.0.0.1:99999: the port "99999" is not a number from 0 to 65535`},
		{"127.0.0.1", "lppctl: cannot serve the UI on 127.0.0.1: write HOST:PORT, e.g. 127.0.0.1:8780 (port 0: any free one)"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, "ui", "--addr", tt.addr, "--root", t.TempDir())
		assert.Equal(t, exitUsage, code, tt.addr)
		assert.Equal(t, tt.stderr, strings.TrimSpace(stderr), tt.addr)
	}
}

// TestUIADecisionForAnotherPauseOfAPausedRunSaysSo: a decision naming a
// pause the run never stood in (a stale or hand-made form) on a run that is
// still paused is refused as meant for another pause, not as taken already,
// and changes nothing.
func TestUIADecisionForAnotherPauseOfAPausedRunSaysSo(t *testing.T) {
	root, id := pausedRun(t)
	runDir := filepath.Join(root, runstore.DefaultDir)
	journal := filepath.Join(runDir, id, runstore.JournalFile)
	before, err := os.ReadFile(journal)
	require.NoError(t, err)
	_, err = uiDecide(lppctlExe(t), root, runDir)(context.Background(), ui.Decision{Run: id, PauseStep: 0, Kind: "approve"})
	var ref *ui.Refusal
	require.ErrorAs(t, err, &ref)
	assert.Equal(t, fmt.Sprintf("run %s waits in approve_plan after 1 step; this decision answers a pause after step 0, not the one it waits in now (an older page, or a form that names another pause): nothing was done; reload to see what it waits for", id), ref.Msg)
	after, err := os.ReadFile(journal)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

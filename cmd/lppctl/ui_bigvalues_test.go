package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// submitSpec waits for SUBMIT, whose text goes into the context.
const submitSpec = `lpp: 1
name: evwait
context:
  note: {type: string, default: ""}
  text: {type: string, default: ""}
initial: review
states:
  review:
    on:
      SUBMIT:
        - {to: done, set: {text: event.payload.text}}
  done: {final: true}
events:
  SUBMIT:
    payload:
      text: {type: string, doc: free text}
`

// TestUIStartsAndDecidesWithValuesOverTheArgumentLimit: a Start form's
// value and an event's payload longer than one argument may be (128 KiB on
// Linux) reach lppctl run and resume through files: the run starts with the
// value, the event completes it, and the command shown names the file.
func TestUIStartsAndDecidesWithValuesOverTheArgumentLimit(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "specs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "specs", "evwait.yaml"), []byte(submitSpec), 0o644))
	store := runstore.New(filepath.Join(root, runstore.DefaultDir))
	exe := lppctlExe(t)
	srv, err := ui.New(ui.Options{Root: root, RunDir: store.Dir, Exe: exe, Decide: uiDecide(exe, root, store.Dir), Dot: "-", DecideWait: 20 * time.Second})
	require.NoError(t, err)
	h := srv.Handler()
	post := func(target string, form url.Values) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8780"+target, strings.NewReader(form.Encode()))
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

	note := strings.Repeat("n", 200_000) + " <end of note>"
	w := post("/start", url.Values{"path": {"specs/evwait.yaml"}, "var.note": {note}})
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	runs, err := store.List()
	require.NoError(t, err)
	require.Len(t, runs, 1)
	run := runs[0]
	id := run.Meta.ID
	assert.Equal(t, note, run.Meta.Vars["note"])
	assert.Contains(t, get(w.Header().Get("Location")), "paused in review after 1 step: waiting for an event: SUBMIT")
	files, err := filepath.Glob(filepath.Join(store.Dir, ".ui-values", "*-note"))
	require.NoError(t, err)
	require.Len(t, files, 1, "the value's file stays, so that the command shown can be run again")
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, note, string(b))

	// the run waits for SUBMIT once its process ended
	deadline := time.Now().Add(30 * time.Second)
	for {
		run, err = store.Open(id)
		require.NoError(t, err)
		if run.Meta.Status == machine.StatusPaused {
			break
		}
		require.False(t, time.Now().After(deadline), "the run did not pause (it is %s)", run.Meta.Status)
		time.Sleep(20 * time.Millisecond)
	}

	text := strings.Repeat("t", 140_000) + " <end of text>"
	w = post("/runs/"+id+"/decide", url.Values{"pause_step": {"1"}, "kind": {"event"}, "event": {"SUBMIT"}, "t.text": {"string"}, "p.text": {text}})
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	run, err = store.Open(id)
	require.NoError(t, err)
	assert.Equal(t, machine.StatusCompleted, run.Meta.Status)
	l, err := run.ReadJournal()
	require.NoError(t, err)
	require.Equal(t, 3, l.Steps())
	assert.Equal(t, text, l.Records[1].Vars["text"])
}

// TestUIDecidesALongAnswerThroughAFile: an answer longer than an argument
// may be reaches resume (--answer-file), and is journaled whole.
func TestUIDecidesALongAnswerThroughAFile(t *testing.T) {
	root, id := pausedRun(t)
	runDir := filepath.Join(root, runstore.DefaultDir)
	answer := strings.Repeat("a", 200_000) + " <end of answer>"
	_, err := uiDecide(lppctlExe(t), root, runDir)(context.Background(), ui.Decision{Run: id, PauseStep: 1, Kind: "answer", Text: answer})
	var ref *ui.Refusal
	require.False(t, errors.As(err, &ref), "refused: %v", err) // the run goes on (and stops at the scripted model's end)
	b, err := os.ReadFile(filepath.Join(runDir, id, runstore.JournalFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"answer":{"kind":"answer","text":"`+answer+`"}`)
}

func TestValueFilesOfRunAndResume(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "evwait.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(submitSpec), 0o644))
	noteFile := filepath.Join(dir, "note.txt")
	require.NoError(t, os.WriteFile(noteFile, []byte("line one\nline two\n"), 0o644))
	payloadFile := filepath.Join(dir, "payload.json")
	require.NoError(t, os.WriteFile(payloadFile, []byte(`{"text": "from a file"}`+"\n"), 0o644))
	runDir := filepath.Join(dir, "runs")

	code, _, stderr := runCLI(t, "run", "--spec", spec, "--run-dir", runDir, "--no-input", "-q", "--var-file", "note="+noteFile)
	require.Equal(t, exitPaused, code, stderr)
	runs, err := runstore.New(runDir).List()
	require.NoError(t, err)
	require.Len(t, runs, 1)
	id := runs[0].Meta.ID
	assert.Equal(t, "line one\nline two\n", runs[0].Meta.Vars["note"], "a string is the file's content exactly")

	code, _, stderr = runCLI(t, "resume", id, "--run-dir", runDir, "--no-input", "-q", "--event", "SUBMIT", "--payload-file", filepath.Join(dir, "none.json"))
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "lppctl: --payload-file "+filepath.Join(dir, "none.json")+": cannot read the value: open "+filepath.Join(dir, "none.json")+": no such file or directory\n", stderr)

	code, _, stderr = runCLI(t, "resume", id, "--run-dir", runDir, "--no-input", "-q", "--event", "SUBMIT", "--payload-file", payloadFile)
	require.Equal(t, exitOK, code, stderr)
	run, err := runstore.New(runDir).Open(id)
	require.NoError(t, err)
	l, err := run.ReadJournal()
	require.NoError(t, err)
	assert.Equal(t, "from a file", l.Records[1].Vars["text"])

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"--var-file", "note"}, `lppctl: --var-file "note": write NAME=FILE` + "\n"},
		{"an unknown variable", []string{"--var-file", "nots=" + noteFile}, `lppctl: --var-file nots=` + noteFile + `: the spec has no context variable "nots"; did you mean "note"?` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"run", "--spec", spec, "--run-dir", runDir, "--no-input", "-q"}, tt.args...)...)
			assert.Equal(t, exitUsage, code)
			assert.Equal(t, tt.want, stderr)
		})
	}
}

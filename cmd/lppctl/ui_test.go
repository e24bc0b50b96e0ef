package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

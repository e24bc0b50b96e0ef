package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// queuedProject is a project holding testdata/runs/queued.yaml as q.yaml.
func queuedProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	spec, err := os.ReadFile("testdata/runs/queued.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "q.yaml"), spec, 0o644))
	return root
}

// The events queued with `run --event` survive a kill -9: resume goes on
// with the events no journaled step took, in order, and delivers each once
// (an event a committed step took is not delivered again, also when the
// resume is killed too).
func TestEventsQueuedWithRunEventSurviveAKill(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	const again = "note: the run stopped before a state took the queued event(s) "
	for _, tc := range []struct {
		name   string
		point  string // where lppctl run is killed
		resume string // where the first resume is killed too ("": not killed)
		note   string // the note of the resume that completes ("": none)
	}{
		{name: "killed before the first step", point: "run-created", note: again + "GO, GO; they are queued again"},
		{name: "killed before the step that took the first was written", point: "journal-before-write:1", note: again + "GO, GO; they are queued again"},
		{name: "killed in the middle of writing it", point: "journal-mid-write:1", note: again + "GO, GO; they are queued again"},
		{name: "killed after the step that took the first", point: "journal-after-write:1", note: again + "GO; they are queued again"},
		{name: "killed after the step that took the second", point: "journal-after-write:2"},
		{name: "the resume killed after it took the first", point: "run-created", resume: "journal-after-write:2", note: again + "GO; they are queued again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := queuedProject(t)
			r := runChild(t, bin, root, tc.point, "run", "q.yaml", "-q", "--event", "GO", "--payload", `{"k": 1}`, "--event", "GO", "--payload", `{"k": 2}`)
			require.True(t, r.killed, "run was not killed at %s: exit %d\n%s", tc.point, r.code, r.out)
			id := runIDIn(t, root)
			if tc.resume != "" {
				r = runChild(t, bin, root, tc.resume, "resume", "-q", id)
				require.True(t, r.killed, "resume was not killed at %s: exit %d\n%s", tc.resume, r.code, r.out)
			}

			r = runChild(t, bin, root, "", "resume", "-q", id)

			require.Equal(t, 0, r.code, r.out)
			if tc.note != "" {
				assert.Contains(t, r.out, tc.note+"\n")
			} else {
				assert.NotContains(t, r.out, "queued again")
			}
			got := finalStateIn(t, filepath.Join(root, runstore.DefaultDir), id)
			assert.EqualValues(t, 12, got.vars["n"], "n records the payloads taken: 12 is k=1 then k=2, each once")
			assert.Equal(t, 4, got.steps)
		})
	}
}

// A run that stops at a clean point (here a pause) drops the queued events
// no state took, with a note; a later resume does not queue them again.
func TestEventsQueuedWithRunEventDroppedAtAPauseStayDropped(t *testing.T) {
	t.Parallel() // child processes: independent of the other tests
	bin := buildLppctl(t)
	root := queuedProject(t)
	r := runChild(t, bin, root, "", "run", "q.yaml", "-q", "--event", "LATE")
	require.Equal(t, exitPaused, r.code, r.out)
	require.Contains(t, r.out, "note: no state took the queued event(s) LATE before the run stopped; they are dropped")
	id := runIDIn(t, root)

	r = runChild(t, bin, root, "", "resume", "-q", id, "--event", "GO", "--payload", `{"k": 1}`)

	require.Equal(t, exitPaused, r.code, "LATE was taken in b: it was dropped at the pause\n%s", r.out)
	assert.False(t, strings.Contains(r.out, "queued again"), r.out)
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forkEventsSpec waits in w every 3 ticks; each GO it takes appends its k.
const forkEventsSpec = `lpp: 1
name: ev
context:
  n: {type: int, default: 0}
  got: {type: list, default: []}
initial: a
states:
  a:
    do: noop
    set: {n: n + 1}
    next:
      - to: w
        when: n % 3 == 0
      - to: a
  w:
    do: log
    with: {message: waiting}
    on:
      GO:
        - {to: a, set: {got: 'concat(got, [event.payload.k])'}}
      STOP: done
  done: {final: true}
events:
  GO:
    payload:
      k: int
  STOP:
`

// A fork stands where its run stood after step N, the events queued with
// run --event that no step up to N took included: resumed, it takes them as
// the run did. They were dropped without a word (run.json's events were not
// copied), and the fork waited for an event its run had been given.
func TestForkKeepsTheQueuedEventsNoStepTookYet(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "ev.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(forkEventsSpec), 0o644))
	runs := filepath.Join(dir, "runs")

	code, out, errOut := lppctlCLI(t, "run", "-q", "--run-dir", runs, spec,
		"--event", "GO", "--payload", `{"k":1}`, "--event", "GO", "--payload", `{"k":2}`, "--event", "STOP")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "completed in done after 13 steps\n", out)
	ents, err := os.ReadDir(runs)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	id := ents[0].Name()

	for _, tc := range []struct {
		name string
		step int
		got  []any
	}{
		{name: "before any was taken", step: 2, got: []any{1.0, 2.0}},
		{name: "after the first was taken", step: 4, got: []any{1.0, 2.0}},
		{name: "after the last GO was taken", step: 8, got: []any{1.0, 2.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := lppctlCLI(t, "runs", "fork", "--run-dir", runs, "--json", "--step", strconv.Itoa(tc.step), id)
			require.Equal(t, exitOK, code, errOut)
			var fork struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(out), &fork))

			code, out, errOut = lppctlCLI(t, "resume", "-q", "--no-input", "--run-dir", runs, fork.ID)
			require.Equal(t, exitOK, code, out+errOut)
			assert.Equal(t, "completed in done after 13 steps\n", out)
			assert.Contains(t, errOut, "they are queued again")

			code, out, errOut = lppctlCLI(t, "runs", "show", "--json", "--run-dir", runs, fork.ID)
			require.Equal(t, exitOK, code, errOut)
			var show struct{ Context map[string]any }
			require.NoError(t, json.Unmarshal([]byte(out), &show))
			assert.Equal(t, tc.got, show.Context["got"])
		})
	}
}

// A fork's trace says where its steps come from: its start marker, written
// after the steps it copied and in the state they end in, read "started in
// STATE" first, before step 1 of another state, and its own marker
// "interrupted in STATE" as if the run had been stopped.
func TestForkTraceSaysWhereItsStepsComeFrom(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "ev.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(forkEventsSpec), 0o644))
	runs := filepath.Join(dir, "runs")
	code, _, errOut := lppctlCLI(t, "run", "-q", "--run-dir", runs, spec, "--event", "STOP")
	require.Equal(t, exitOK, code, errOut)
	ents, err := os.ReadDir(runs)
	require.NoError(t, err)
	id := ents[0].Name()

	code, out, errOut := lppctlCLI(t, "runs", "fork", "--run-dir", runs, "--json", "--step", "3", id)
	require.Equal(t, exitOK, code, errOut)
	var fork struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(out), &fork))

	code, out, errOut = lppctlCLI(t, "runs", "trace", "--run-dir", runs, fork.ID)
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 3, out)
	assert.Equal(t, "--                         steps 1–3 are run "+id+"'s, copied by lppctl runs fork", lines[1])
	assert.Regexp(t, `^1 +\+0s `, lines[2])
	assert.Regexp(t, `(?m)^-- +\+\S+ +forked from run `+id+` after step 3, in w$`, out)
	assert.NotContains(t, out, "started in")
	assert.NotContains(t, out, "interrupted in")
}

// Which queued events a fork keeps, when its run was stopped (Ctrl-C) at a
// clean point, which dropped them: a fork after the step the run stopped
// at keeps them (it stands right after that step, before the stop); a fork
// after a later step does not, as the run no longer had them.
func TestForkOfAStoppedRunKeepsTheQueueOnlyUpToTheStop(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "ev.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(forkEventsSpec), 0o644))
	runs := filepath.Join(dir, "runs")
	code, _, errOut := lppctlCLI(t, "run", "-q", "--run-dir", runs, spec, "--max-transitions", "2",
		"--event", "GO", "--payload", `{"k":1}`, "--event", "STOP")
	require.Equal(t, exitFailed, code, errOut)
	require.Contains(t, errOut, "they are dropped")
	ents, err := os.ReadDir(runs)
	require.NoError(t, err)
	id := ents[0].Name()
	code, out, errOut := lppctlCLI(t, "resume", "-q", "--no-input", "--max-transitions", "100", "--run-dir", runs, id)
	require.Equal(t, exitPaused, code, out+errOut)

	for _, tc := range []struct {
		step int
		code int
		got  []any
	}{
		{step: 2, code: exitOK, got: []any{1.0}},
		{step: 3, code: exitPaused, got: []any{}},
	} {
		t.Run("after step "+strconv.Itoa(tc.step), func(t *testing.T) {
			code, out, errOut := lppctlCLI(t, "runs", "fork", "--run-dir", runs, "--json", "--step", strconv.Itoa(tc.step), id)
			require.Equal(t, exitOK, code, errOut)
			var fork struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(out), &fork))
			code, out, errOut = lppctlCLI(t, "resume", "-q", "--no-input", "--max-transitions", "100", "--run-dir", runs, fork.ID)
			require.Equal(t, tc.code, code, out+errOut)
			code, out, errOut = lppctlCLI(t, "runs", "show", "--json", "--run-dir", runs, fork.ID)
			require.Equal(t, exitOK, code, errOut)
			var show struct{ Context map[string]any }
			require.NoError(t, json.Unmarshal([]byte(out), &show))
			assert.Equal(t, tc.got, show.Context["got"])
		})
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// undefBlueprint is an L++ blueprint whose gate reads a property the
// blueprint does not declare (x: false until something writes it, lpp's
// "Undefined variable"), whose events lppctl renames (set-x: set_x), and
// which waits in b for finish-it.
const undefBlueprint = `{"$schema": "lpp/v0.2.0", "id": "u", "name": "u", "version": "1.0.0",
 "context_schema": {"properties": {}},
 "states": {"a": {}, "b": {}, "yes": {}, "no": {}}, "entry_state": "a", "terminal_states": {"yes": {}, "no": {}},
 "gates": {"g": {"type": "expression", "expression": "x is None or x != 'a'"}},
 "actions": {"clear": {"type": "set", "target": "x", "value": null}},
 "transitions": [
  {"id": "t0", "from": "a", "to": "a", "on_event": "set-x", "actions": ["clear"]},
  {"id": "t1", "from": "a", "to": "b", "on_event": "GO", "gates": ["g"]},
  {"id": "t2", "from": "a", "to": "no", "on_event": "GO"},
  {"id": "t3", "from": "b", "to": "yes", "on_event": "finish-it"}]}
`

// doneAgainBlueprint waits in in-review after the driver's DONE, whose
// gate reads no payload, found n None (lpp_semantics.txtar's donere.json).
const doneAgainBlueprint = `{"$schema": "lpp/v0.2.0", "id": "donere", "name": "donere", "version": "1",
 "context_schema": {"properties": {"n": {"type": "integer"}}},
 "states": {"in-review": {}, "s1": {}},
 "gates": {"big": {"type": "expression", "expression": "n is not None and n > 1"}},
 "transitions": [
  {"id": "d", "from": "in-review", "to": "ok", "on_event": "DONE", "gates": ["big"]},
  {"id": "g", "from": "in-review", "to": "s1", "on_event": "GO-ON"},
  {"id": "f", "from": "s1", "to": "ok", "on_event": "FIN"}],
 "entry_state": "in-review", "terminal_states": {"ok": {}}}
`

// TestAnLppBlueprintRunsOnTemporalAsItRunsHere: lppctl run BLUEPRINT.json
// --engine temporal runs the blueprint's translation, as a local run does
// (its hidden lpp_defined_ flags set by --var and by a set, its events
// named as the blueprint names them). The workflow was given the
// blueprint's JSON, which it read as a spec: every run failed at once
// (unknown key "$schema" in the spec, ...).
func TestAnLppBlueprintRunsOnTemporalAsItRunsHere(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := t.TempDir()
	addr, _ := devServer(t, root)
	require.NoError(t, os.WriteFile(filepath.Join(root, "undef.json"), []byte(undefBlueprint), 0o644))
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	startProcess(t, w)

	// last runs lppctl run ARGS (and resume ID RESUME... when the run
	// waits in b) and returns the last line of its output.
	runID := regexp.MustCompile(`(?m)^run (\S+)`)
	last := func(t *testing.T, run, resume []string) string {
		out, stderr, code := lppctlOut(t, bin, root, run...)
		if code == 4 {
			require.Contains(t, out, "paused in b after", stderr)
			m := runID.FindStringSubmatch(stderr)
			require.NotNil(t, m, stderr)
			out, stderr, code = lppctlOut(t, bin, root, append([]string{"resume", m[1]}, resume...)...)
		}
		require.Equal(t, 0, code, stderr)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[len(lines)-1]
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"x never written: the gate is false", []string{"--event", "GO"}, "completed in no after 2 steps"},
		{"x written null by a set", []string{"--event", "set-x", "--event", "GO"}, "completed in yes after 5 steps"},
		{"x given by --var", []string{"--var", "x=b", "--event", "GO"}, "completed in yes after 4 steps"},
		{"x given a value the gate refuses", []string{"--var", "x=a", "--event", "GO"}, "completed in no after 2 steps"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			local := last(t, append([]string{"run", "undef.json"}, tc.args...), []string{"--event", "finish-it"})
			require.Equal(t, tc.want, local, "the local run")
			// resume on Temporal takes the event by the blueprint's name
			// (the workflow holds the translation: it took only finish_it).
			got := last(t, append([]string{"run", "--engine", "temporal", "--temporal", addr, "undef.json"}, tc.args...),
				[]string{"--temporal", addr, "--event", "finish-it"})
			assert.Equal(t, tc.want, got, "the Temporal run")
		})
	}
	t.Run("DONE sent again where its gates read no payload is refused as the local engine refuses it", func(t *testing.T) {
		// The Temporal path said only the machine's refusal ("cannot fire
		// event "DONE" in state "in_review__wait": ...", the translation's
		// names); the local engine explains why DONE cannot change anything.
		require.NoError(t, os.WriteFile(filepath.Join(root, "donere.json"), []byte(doneAgainBlueprint), 0o644))
		out, stderr, code := lppctlOut(t, bin, root, "run", "--engine", "temporal", "--temporal", addr, "donere.json")
		require.Equal(t, 4, code, out+stderr)
		m := runID.FindStringSubmatch(stderr)
		require.NotNil(t, m, stderr)
		_, stderr, code = lppctlOut(t, bin, root, "resume", m[1], "--temporal", addr, "--event", "DONE")
		require.Equal(t, 2, code, stderr)
		assert.Equal(t, `lppctl: cannot fire event "DONE" in state "in-review": the driver fired DONE on entering in-review and none of its DONE transitions passed; their gates read no payload and the context has not changed since, so DONE would find none again (lpp drops it: GATES_FAILED); the run waits for GO-ON: lppctl resume `+m[1]+` --temporal `+addr+` --event NAME`, strings.TrimSpace(stderr))
		// and the event it names is taken
		out, stderr, code = lppctlOut(t, bin, root, "resume", m[1], "--temporal", addr, "--event", "GO-ON")
		require.Equal(t, 4, code, out+stderr)
		assert.Contains(t, out, "paused in s1")
	})
	t.Run("export --run of a blueprint's run reads the blueprint", func(t *testing.T) {
		// The run's spec is the translation: the blueprint on disk is
		// translated to be compared with it (it was "undef.json changed
		// since run ID started").
		out, stderr, code := lppctlOut(t, bin, root, "run", "--engine", "temporal", "--temporal", addr, "undef.json", "--var", "x=b", "--event", "GO")
		require.Equal(t, 4, code, out+stderr)
		m := runID.FindStringSubmatch(stderr)
		require.NotNil(t, m, stderr)
		out, stderr, code = lppctlOut(t, bin, root, "export", "--run", m[1], "--temporal", addr)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "class a,b visited")
	})
}

// TestAPausedTemporalRunsJSONNamesTheServerToResumeOn: run --json, resume
// --json and runs show --json of a paused Temporal run give the resume
// command with --temporal, as their text lines do (it read lppctl resume
// ID --event NAME, which looks for a local run).
func TestAPausedTemporalRunsJSONNamesTheServerToResumeOn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	bin := buildLppctl(t)
	root := t.TempDir()
	addr, _ := devServer(t, root)
	const spec = `lpp: 1
name: twice
context:
  n: {type: int, default: 0}
initial: a
states:
  a:
    on:
      GO: {to: a, set: {n: n + 1}, when: n < 1}
      STOP: {to: done}
  done: {final: true}
events:
  GO: {}
  STOP: {}
`
	require.NoError(t, os.WriteFile(filepath.Join(root, "twice.yaml"), []byte(spec), 0o644))
	w := exec.Command(bin, "worker", "--temporal", addr, "--root", root)
	w.Env = childEnv("")
	startProcess(t, w)

	// end is the pause of the last line of a --json output.
	end := func(out string) (id, prompt string) {
		var e struct {
			RunID string `json:"run_id"`
			Pause struct {
				Prompt string `json:"prompt"`
			} `json:"pause"`
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.NoError(t, json.Unmarshal([]byte(lines[0]), &e), out)
		id = e.RunID
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &e), out)
		return id, e.Pause.Prompt
	}
	out, stderr, code := lppctlOut(t, bin, root, "run", "--json", "--engine", "temporal", "--temporal", addr, "twice.yaml")
	require.Equal(t, 4, code, stderr)
	id, prompt := end(out)
	want := "waiting for an event: GO, STOP; deliver one with: lppctl resume " + id + " --temporal " + addr + " --event NAME"
	assert.Equal(t, want, prompt, "run --json")

	out, stderr, code = lppctlOut(t, bin, root, "resume", id, "--deltas", "--temporal", addr, "--event", "GO")
	require.Equal(t, 4, code, stderr)
	_, prompt = end(`{"run_id": "` + id + `"}` + "\n" + out)
	assert.Equal(t, want, prompt, "resume --deltas")

	out, stderr, code = lppctlOut(t, bin, root, "runs", "show", id, "--json", "--temporal", addr)
	require.Equal(t, 0, code, stderr)
	_, prompt = end(out)
	assert.Equal(t, want, prompt, "runs show --json")
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// mixedSpec grows a list of maps and a map, replaces a list, sets floats,
// text with <, > and &, and takes an event with a payload: what runs trace
// --json must write as encoding/json writes each entry.
const mixedSpec = `lpp: 1
name: mixed
context:
  n: {type: int, default: 0}
  xs: {type: list, default: []}
  ys: {type: list, default: [1, 2]}
  m: {type: map, default: {}}
  f: {type: float, default: 0.5}
  s: {type: string, default: ""}
initial: work
states:
  work:
    set:
      n: n + 1
      xs: 'concat(xs, [{"i": n, "t": "a<b & c>d"}])'
      ys: 'n % 5 == 0 ? [n] : concat(ys, [n * 1.5])'
      m: 'merge(m, {("k" + string(n % 7)): [n]})'
      f: f * 1.25
      s: '"n=" + string(n) + " <ok>"'
    next:
      - {to: wait, when: n == 30}
      - {to: done, when: n >= 60}
      - to: work
  wait:
    on:
      GO: {to: work, set: {s: event.payload.note}}
  done: {final: true}
events:
  GO: {payload: {note: string}}
`

// TestRunsTraceJSONIsWhatEncodingJSONWrites: runs trace --json extends a
// grown list's JSON instead of encoding the list again at every step, and
// its output is byte for byte what encoding/json writes for each entry
// with its variables whole (the format); the items it encodes grow with
// the run, not with its square.
func TestRunsTraceJSONIsWhatEncodingJSONWrites(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "mixed.yaml"), []byte(mixedSpec), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "grow.yaml"), []byte(growingSpec), 0o644))
	t.Chdir(root)
	t.Setenv(runstore.EnvDir, "")
	code, _, stderr := runCLI(t, "run", "mixed.yaml", "-q", "--run-dir", "m")
	require.Equal(t, exitPaused, code, stderr)
	runs, err := runstore.New("m").List()
	require.NoError(t, err)
	require.Len(t, runs, 1)
	id := runs[0].Meta.ID
	code, _, stderr = runCLI(t, "resume", id, "-q", "--run-dir", "m", "--event", "GO", "--payload", `{"note": "a < b"}`)
	require.Equal(t, exitOK, code, stderr)

	code, got, stderr := runCLI(t, "runs", "trace", "--json", "--run-dir", "m", id)
	require.Equal(t, exitOK, code, stderr)
	run, err := runstore.New("m").Open(id)
	require.NoError(t, err)
	l, err := run.ReadJournal()
	require.NoError(t, err)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	var walk runstore.Walker
	for _, e := range l.Entries {
		if e.Type == runstore.EntryStep && e.Record != nil {
			step := *e
			step.Record = walk.Next(e.Record)
			e = &step
		}
		require.NoError(t, enc.Encode(e))
	}
	assert.Equal(t, want.String(), got)
	assert.Contains(t, got, `"xs":[{"i":0,"t":"a<b & c>d"},{"i":1,`)

	// A list growing by one item a step: the items encoded grow with the run.
	items := func(limit string) int {
		t.Helper()
		dir := "g" + limit
		code, _, stderr := runCLI(t, "run", "grow.yaml", "-q", "--run-dir", dir, "--var", "limit="+limit)
		require.Equal(t, exitOK, code, stderr)
		runs, err := runstore.New(dir).List()
		require.NoError(t, err)
		l, err := runs[0].ReadJournal()
		require.NoError(t, err)
		te := runstore.NewTraceEncoder()
		for _, e := range l.Entries {
			_, err := te.Encode(e)
			require.NoError(t, err)
		}
		return te.Items
	}
	assert.Equal(t, 100, items("100"), "each item once")
	assert.Equal(t, 400, items("400"))
}

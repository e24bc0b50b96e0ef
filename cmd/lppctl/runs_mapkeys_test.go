package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// keysSpec adds key "k<n>" to m at every step and removes "k<n-2>" every
// third step: the journal holds patches of the keys each step changed.
const keysSpec = `lpp: 1
name: keys
context:
  n: {type: int, default: 0}
  m: {type: map, default: {}}
initial: work
states:
  work:
    set: {n: n + 1, m: 'merge(m, {("k" + string(n)): n})'}
    next:
      - {to: done, when: n >= 12}
      - {to: work, when: 'n % 3 == 0', set: {m: 'omit(m, "k" + string(n - 2))'}}
      - to: work
  done: {final: true}
`

// keysAfter returns m after step i of keysSpec.
func keysAfter(i int) map[string]any {
	m := map[string]any{}
	for n := range min(i, 12) {
		m[fmt.Sprintf("k%d", n)] = float64(n)
		if (n+1)%3 == 0 && n+1 < 12 {
			delete(m, fmt.Sprintf("k%d", n-1))
		}
	}
	return m
}

// TestRunsTraceAndForkGiveEachStepItsMapWhole: the journal of a map changed
// by keys holds the keys a step changed, and runs trace (text and JSON) and
// runs fork give each step its map whole, as it was after it.
func TestRunsTraceAndForkGiveEachStepItsMapWhole(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "keys.yaml"), []byte(keysSpec), 0o644))
	t.Chdir(root)
	t.Setenv(runstore.EnvDir, "")
	lppctl := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		require.Equal(t, exitOK, run(append([]string{"lppctl"}, args...), strings.NewReader(""), &out, &errb), errb.String())
		return out.String()
	}
	require.Equal(t, "completed in done after 13 steps\n", lppctl("run", "keys.yaml", "-q"))
	runs, err := runstore.New(runstore.DefaultDir).List()
	require.NoError(t, err)
	require.Len(t, runs, 1)
	id := runs[0].Meta.ID
	journal, err := os.ReadFile(filepath.Join(runs[0].Dir, runstore.JournalFile))
	require.NoError(t, err)
	require.Contains(t, string(journal), `"vars_patch":{"m":{`, "the journal holds patches of m")

	t.Run("trace --json", func(t *testing.T) {
		sc := bufio.NewScanner(strings.NewReader(lppctl("runs", "trace", "--json", id)))
		steps := 0
		for sc.Scan() {
			var e struct {
				Type string
				Seq  int
				Vars map[string]any
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
			if e.Type != runstore.EntryStep || e.Vars["m"] == nil {
				continue
			}
			steps++
			assert.Equal(t, keysAfter(e.Seq), e.Vars["m"], "m after step %d", e.Seq)
		}
		assert.Equal(t, 12, steps, "steps that set m")
	})
	t.Run("trace", func(t *testing.T) {
		out := lppctl("runs", "trace", id)
		for _, want := range []string{
			`set m={"k0":0,"k1":1} n=2`,
			`set m={"k0":0,"k2":2} n=3`, // "k1" removed
			`set m={"k0":0,"k2":2,"k3":3,"k4":4} n=5`,
		} {
			assert.Contains(t, out, "\n"+strings.Repeat(" ", 29)+want+"\n")
		}
	})
	t.Run("fork", func(t *testing.T) {
		var fork struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(lppctl("runs", "fork", id, "--step", "7", "--json")), &fork))
		var show struct{ Context map[string]any }
		require.NoError(t, json.Unmarshal([]byte(lppctl("runs", "show", "--json", fork.ID)), &show))
		assert.Equal(t, keysAfter(7), show.Context["m"], "the fork's m is the run's after step 7")
		require.Equal(t, "completed in done after 13 steps\n", lppctl("resume", fork.ID, "-q"))
		require.NoError(t, json.Unmarshal([]byte(lppctl("runs", "show", "--json", fork.ID)), &show))
		assert.Equal(t, keysAfter(12), show.Context["m"], "the resumed fork ends as the run did")
	})
}

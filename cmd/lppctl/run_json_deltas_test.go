package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// TestRunDeltasPrintsWhatEachStepChanged: run --deltas prints each step as
// the journal writes it, a list that grew as the items appended and a map as
// the keys changed, so its output grows with the run, where --json prints a
// step's changed variables whole (a run whose list and map grow at every step:
// 240 MB at 10,000 steps, 4.4 GB at 40,000). Folding the lines gives the run's
// context; the first line names the run as --json's does (the UI, which
// starts runs with --deltas, reads it).
func TestRunDeltasPrintsWhatEachStepChanged(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "grow.yaml"), []byte(growingSpec), 0o644))
	t.Chdir(root)
	t.Setenv(runstore.EnvDir, "")
	run := func(flag, limit string) string {
		t.Helper()
		code, out, stderr := runCLI(t, "run", "grow.yaml", flag, "--var", "limit="+limit)
		require.Equal(t, exitOK, code, stderr)
		return out
	}
	small, big := run("--deltas", "100"), run("--deltas", "400")
	assert.Less(t, float64(len(big))/float64(len(small)), 4.5, "run --deltas grows with the run")
	wholeSmall, wholeBig := run("--json", "100"), run("--json", "400")
	assert.Greater(t, float64(len(wholeBig))/float64(len(wholeSmall)), 8.0, "run --json prints a changed list whole at every step")

	lines := strings.Split(strings.TrimSuffix(small, "\n"), "\n")
	var first struct {
		Type  string `json:"type"`
		RunID string `json:"run_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, "run", first.Type)
	assert.Contains(t, small, `"vars_append":{"xs":[99]}`)
	assert.Contains(t, small, `"vars_patch":{"m":{"set":{"k99":99}}}`)
	assert.Contains(t, lines[len(lines)-1], `{"type":"end","status":"completed","state":"done","steps":101,`)

	ctx := map[string]any{}
	for _, l := range lines[1:] {
		var step struct {
			Type   string           `json:"type"`
			Vars   map[string]any   `json:"vars"`
			Append map[string][]any `json:"vars_append"`
			Patch  map[string]struct {
				Set map[string]any `json:"set"`
				Del []string       `json:"del"`
			} `json:"vars_patch"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &step), l)
		for k, v := range step.Vars {
			ctx[k] = v
		}
		for k, items := range step.Append {
			ctx[k] = append(ctx[k].([]any), items...)
		}
		for k, p := range step.Patch {
			m := ctx[k].(map[string]any)
			for key, v := range p.Set {
				m[key] = v
			}
			for _, key := range p.Del {
				delete(m, key)
			}
		}
	}
	code, show, stderr := runCLI(t, "runs", "show", "--json", first.RunID)
	require.Equal(t, exitOK, code, stderr)
	var shown struct {
		Context map[string]any `json:"context"`
	}
	require.NoError(t, json.Unmarshal([]byte(show), &shown))
	assert.Equal(t, shown.Context["xs"], ctx["xs"])
	assert.Equal(t, shown.Context["m"], ctx["m"])
	assert.Len(t, ctx["xs"], 100)
}

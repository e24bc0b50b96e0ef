package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
)

// treeHashes returns the SHA-256 of every file under root, by path.
func treeHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	}))
	return out
}

// TestResumeInACopiedProjectWritesOnlyIntoTheCopy: run.json records the
// project's paths relative to the run, so a project copied (or moved) with
// its runs resumes at its new place; nothing is written into the original.
func TestResumeInACopiedProjectWritesOnlyIntoTheCopy(t *testing.T) {
	t.Parallel()
	orig := newProject(t, "hello_skill")
	code, out, errOut := lppctlCLI(t, "run", "--root", orig, "--spec", filepath.Join(orig, "specs/skills_agent.yaml"), "--skill", filepath.Join(orig, "skills/hello_skill"), "-q", "--no-input")
	require.Equal(t, exitPaused, code, "the run pauses for the plan's approval:\n%s%s", out, errOut)
	id := runIDIn(t, orig)
	run, err := runstore.New(filepath.Join(orig, runstore.DefaultDir)).Open(id)
	require.NoError(t, err)
	recorded, err := json.Marshal([]any{run.Meta.SpecAbs, run.Meta.Agent, run.Meta.Files})
	require.NoError(t, err)
	assert.NotContains(t, string(recorded), orig, "run.json records no absolute path into the project")

	moved := filepath.Join(t.TempDir(), "moved")
	copyTree(t, orig, moved)
	before := treeHashes(t, orig)
	code, out, errOut = lppctlCLI(t, "resume", "--root", moved, "-q", "--approve", id)
	require.Equal(t, exitOK, code, "resume in the copy:\n%s%s", out, errOut)

	after := treeHashes(t, orig)
	var changed []string
	for p, sum := range after {
		if before[p] != sum {
			changed = append(changed, p)
		}
	}
	assert.Empty(t, changed, "nothing is written into the original project")
	skillsMD, err := os.ReadFile(filepath.Join(moved, "skills/hello_skill/skills.md"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(skillsMD), "lppctl:entry "+id+"/"), "the copy's skills.md learnt the run's steps")
	assert.NotContains(t, out+errOut, orig)
}

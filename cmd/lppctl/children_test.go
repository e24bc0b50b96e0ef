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

// A parent whose child counts twice (logging each step) and then fails: the
// parent fails with it, and its resume resumes the child.
const (
	parentWithChild = `lpp: 1
name: parent
context:
  r: {type: int, default: 0}
initial: sub
states:
  sub:
    do: spec.run
    with: {spec: child.yaml, output: {r: n}}
    next: [{to: done}]
  done: {final: true}
`
	stuckChild = `lpp: 1
name: child
context:
  n: {type: int, default: 0}
initial: tick
states:
  tick:
    do: log
    with: {message: child tick, value: n}
    set: {n: n + 1}
    next: [{to: stuck, when: n >= 2}, {to: tick}]
  stuck:
    do: fail
    with: {message: the child is stuck}
    next: [{to: done}]
  done: {final: true}
`
)

// failedParent runs parentWithChild until it fails and returns the run
// store, the parent's ID and its child's directory.
func failedParent(t *testing.T) (dir, id, child string) {
	t.Helper()
	tmp := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "parent.yaml"), []byte(parentWithChild), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "child.yaml"), []byte(stuckChild), 0o644))
	copyTree(t, "../../config/tools_config.yaml", filepath.Join(tmp, "config", "tools_config.yaml"))
	dir = filepath.Join(tmp, "runs")
	code, out, errOut := lppctlCLI(t, "run", "-q", "--root", tmp, "--run-dir", dir, filepath.Join(tmp, "parent.yaml"))
	require.Equal(t, exitFailed, code, "%s%s", out, errOut)
	require.Contains(t, errOut, "the child is stuck")
	id = onlyRun(t, dir)
	child = filepath.Join(dir, id, "children", "sub-1")
	require.FileExists(t, filepath.Join(child, runstore.JournalFile))
	return dir, id, child
}

func TestEveryRunsCommandTakesAChildRunsAddress(t *testing.T) {
	t.Parallel()
	dir, id, _ := failedParent(t)
	addr := id + "/children/sub-1"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "show", addr}, "run:      " + addr + "\nstatus:   failed\n"},
		{[]string{"runs", "show", id[:8] + "/children/sub"}, "run:      " + addr + "\n"}, // unique prefixes
		{[]string{"runs", "show", addr}, "continue: lppctl resume " + id + " --run-dir " + dir + "\n"},
		{[]string{"runs", "trace", addr}, "tick → stuck"},
	} {
		code, out, errOut := lppctlCLI(t, append(tc.args, "--run-dir", dir)...)
		assert.Equal(t, exitOK, code, "%v: %s", tc.args, errOut)
		assert.Contains(t, out, tc.want, "%v", tc.args)
	}
	code, _, errOut := lppctlCLI(t, "runs", "show", "--run-dir", dir, id+"/children/nope")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "lppctl: cannot open run \""+id+"/children/nope\": no such run in "+filepath.Join(dir, id, "children")+"\n", errOut)

	code, _, errOut = lppctlCLI(t, "resume", "--run-dir", dir, addr)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "lppctl: cannot resume run "+addr+" on its own: a child run goes on when its parent does: lppctl resume "+id+"\n", errOut)
}

func TestResumeRefusesToRunAChildsCommittedStepsAgain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, child string)
		want   string // in resume's error; CHILD is the child's folder
	}{
		{
			name:   "the child's folder deleted",
			damage: func(t *testing.T, child string) { require.NoError(t, os.RemoveAll(child)) },
			want:   "cannot run child spec child.yaml: its run CHILD, which this step started before, is gone (deleted?): running the child again would repeat its committed steps; restore the folder, or to run the child again from its start, remove the line sub-1 from " + "CHILDREN" + "/started",
		},
		{
			name: "the child's journal.commit and last line deleted",
			damage: func(t *testing.T, child string) {
				require.NoError(t, os.Remove(filepath.Join(child, runstore.CommitFile)))
				j := filepath.Join(child, runstore.JournalFile)
				b, err := os.ReadFile(j)
				require.NoError(t, err)
				lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
				require.NoError(t, os.WriteFile(j, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644))
			},
			want: "cannot run child spec child.yaml: the journal of its run CHILD has no journal.commit (deleted?): whether lines were lost from it is unknown, and resuming could repeat the child's committed steps; restore it, or to run the child again from its start, delete CHILD and remove the line sub-1 from CHILDREN/started",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, id, child := failedParent(t)
			tt.damage(t, child)
			code, out, errOut := lppctlCLI(t, "resume", "-q", "--run-dir", dir, id)
			assert.Equal(t, exitFailed, code, out)
			want := strings.NewReplacer("CHILDREN", filepath.Dir(child), "CHILD", child).Replace(tt.want)
			assert.Contains(t, errOut, want)
			assert.NotContains(t, out, "child tick 0", "no committed child step ran again")
		})
	}
}

func TestRunsShowSaysAChildJournalIsDamaged(t *testing.T) {
	t.Parallel()
	dir, id, child := failedParent(t)
	j := filepath.Join(child, runstore.JournalFile)
	b, err := os.ReadFile(j)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x02
	require.NoError(t, os.WriteFile(j, b, 0o644))

	code, out, _ := lppctlCLI(t, "runs", "show", "--run-dir", dir, id)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "status:   damaged")
	code, out, errOut := lppctlCLI(t, "runs", "--run-dir", dir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, id+"  damaged")
	assert.Contains(t, errOut, j+":")
}

package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

const noteSpec = `lpp: 1
name: notes
context:
  note: {type: string, default: ""}
  n: {type: int, default: 3}
initial: a
states:
  a: {final: true}
`

// TestALongStartValueGoesAsAFileTheShownCommandNames: a value longer than
// an argument may be is written to the store's .ui-values folder and given
// as --var-file, in the arguments and in the command shown (relative to the
// root, where it runs); a short one stays --var.
func TestALongStartValueGoesAsAFileTheShownCommandNames(t *testing.T) {
	f := newFixture(t, Options{Exe: "/nonexistent/lppctl"})
	spec, diags := mspec.Parse("notes.yaml", []byte(noteSpec))
	require.False(t, diags.HasErrors())
	note := strings.Repeat("x", 200_000)
	fields := startForm(spec, url.Values{"var.note": {note}, "var.n": {"4"}}, nil)
	c, ok, err := startArgs(f.srv, "specs/notes.yaml", spec, fields)
	require.NoError(t, err)
	require.True(t, ok)
	files, err := filepath.Glob(filepath.Join(f.store.Dir, ".ui-values", "*-note"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, note, string(b))
	rel, err := filepath.Rel(f.root, files[0])
	require.NoError(t, err)
	assert.Equal(t, "lppctl run --spec specs/notes.yaml --var-file note="+rel+" --var n=4", c.Show)
	assert.Equal(t, []string{"--var-file", "note=" + files[0], "--var", "n=4"}, c.Args[len(c.Args)-4:])

	// the store still lists no run of it
	runs, err := f.store.List()
	require.NoError(t, err)
	assert.Empty(t, runs)
}

// TestAStartThatCannotLaunchKeepsTheForm: a command that cannot be started
// (here: no binary) shows the spec's page with why and what was typed, not
// an error page.
func TestAStartThatCannotLaunchKeepsTheForm(t *testing.T) {
	f := newFixture(t, Options{Exe: "/nonexistent/lppctl"})
	writeFiles(t, f.root, map[string]string{"specs/notes.yaml": noteSpec})
	w := f.do("POST", "/start", url.Values{"path": {"specs/notes.yaml"}, "var.note": {"my <typed> note"}}.Encode())
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	body := w.Body.String()
	assert.Contains(t, body, `<p class="notice err" id="start-error">cannot start lppctl: fork/exec /nonexistent/lppctl: no such file or directory</p>`)
	assert.Contains(t, body, `<textarea name="var.note" id="var-note" rows="1">my &lt;typed&gt; note</textarea>`)
}

func TestValueFlagPassesALongValueAsAFile(t *testing.T) {
	dir := t.TempDir()
	arg, err := ValueFlag(dir, "answer", "short")
	require.NoError(t, err)
	assert.Equal(t, "--answer=short", arg)

	long := strings.Repeat("y", inlineMax+1)
	arg, err = ValueFlag(dir, "payload", long)
	require.NoError(t, err)
	path, ok := strings.CutPrefix(arg, "--payload-file=")
	require.True(t, ok, arg)
	assert.Equal(t, filepath.Join(dir, valuesDir), filepath.Dir(path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, long, string(b))
}

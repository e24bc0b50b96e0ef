package ui

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestARunOfABlueprintIsDrawnFromItsBlueprint: a run started from an L++
// blueprint holds the blueprint as its copy of the spec; its page draws the
// blueprint's translation (its states and transitions), not an empty
// diagram, and links the blueprint's page.
func TestARunOfABlueprintIsDrawnFromItsBlueprint(t *testing.T) {
	f := newFixture(t, Options{})
	bp, err := os.ReadFile("../machine/testdata/lpp/ticket.json")
	require.NoError(t, err)
	writeFiles(t, f.root, map[string]string{"bp/ticket.json": string(bp)})
	r, err := f.store.Create(runstore.Meta{Spec: "bp/ticket.json", SpecAbs: "../../../bp/ticket.json", SpecName: "ticket", Start: time.Now(), State: "idle"}, bp)
	require.NoError(t, err)
	require.NoError(t, r.SaveMeta())
	r.Unlock()

	body := f.do("GET", "/runs/"+r.Meta.ID, "").Body.String()
	assert.Contains(t, body, `<a href="/spec?path=bp%2Fticket.json" id="spec-link">bp/ticket.json</a>`)
	for _, s := range []string{"idle", "planning", "done", "cancelled"} {
		// Graphviz's node, or Mermaid's note when go generate vendored it.
		drawn := strings.Contains(body, `&#34;`+s+`&#34; [`) || strings.Contains(body, "note right of "+s+" : state "+s+"\n")
		assert.True(t, drawn, "the diagram draws state %s", s)
	}
}

// TestARunPageLinksItsSpecStoredRelativeToTheRun: run.json names the spec
// relative to the run's folder (so that a project moves with its runs);
// the page still links the spec's page.
func TestARunPageLinksItsSpecStoredRelativeToTheRun(t *testing.T) {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{"specs/loop.yaml": loopSpec})
	id := f.addRun(2, nil)
	r, err := f.store.Open(id)
	require.NoError(t, err)
	r.Meta.SpecAbs = "../../../specs/loop.yaml"
	require.NoError(t, r.SaveMeta())
	assert.Contains(t, f.do("GET", "/runs/"+id, "").Body.String(), `<a href="/spec?path=specs%2Floop.yaml" id="spec-link">specs/loop.yaml</a>`)
}

// TestAValueWithANULGoesAsAFile: no argument can hold a NUL byte (exec
// refuses it: "invalid argument"), so a value holding one goes as a file,
// however short, in the Start form's command and in a decision's.
func TestAValueWithANULGoesAsAFile(t *testing.T) {
	f := newFixture(t, Options{Exe: "/nonexistent/lppctl"})
	spec, diags := mspec.Parse("notes.yaml", []byte(noteSpec))
	require.False(t, diags.HasErrors())
	c, ok, err := startArgs(f.srv, "specs/notes.yaml", spec, startForm(spec, url.Values{"var.note": {"a\x00b"}}, nil))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "--var-file", c.Args[len(c.Args)-2])
	path := strings.TrimPrefix(c.Args[len(c.Args)-1], "note=")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a\x00b", string(b))

	arg, err := ValueFlag(f.store.Dir, "answer", "fix\x00this")
	require.NoError(t, err)
	path, ok = strings.CutPrefix(arg, "--answer-file=")
	require.True(t, ok, arg)
	assert.Equal(t, filepath.Join(f.store.Dir, valuesDir), filepath.Dir(path))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "fix\x00this", string(b))
}

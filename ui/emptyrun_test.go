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
)

// TestARunFolderWithNothingInItIsShownAsNothingRan: a run's folder that
// holds neither run.json nor a journal (lppctl killed as it made it, or a
// folder made by hand) is no run: its page and its buttons say so with
// 404 and how to remove it, its stream says it is gone, and the Runs page
// lists the other runs. (Its page was a 500 with run.json's read error.)
func TestARunFolderWithNothingInItIsShownAsNothingRan(t *testing.T) {
	f := newFixture(t, Options{Exe: "/bin/false"})
	other := f.addRun(2, nil)
	const id = "20261127-000001-abcdef"
	dir := filepath.Join(f.store.Dir, id)
	require.NoError(t, os.Mkdir(dir, 0o755))
	want := `cannot open run &#34;` + id + `&#34;: nothing ran in it: its folder ` + dir + ` holds neither run.json nor a journal (lppctl stopped as it made it, or the folder was made by hand); remove it with rm -r ` + dir

	for _, req := range []struct{ method, path string }{
		{"GET", "/runs/" + id},
		{"POST", "/runs/" + id + "/resume"},
		{"GET", "/runs/" + id + "/children/a-1"},
	} {
		w := f.do(req.method, req.path, "")
		assert.Equal(t, http.StatusNotFound, w.Code, "%s %s", req.method, req.path)
		assert.Contains(t, w.Body.String(), want, "%s %s", req.method, req.path)
	}

	w := f.do("GET", "/events?run="+id, "")
	assert.Equal(t, "retry: 10000\nevent: gone\ndata: "+id+"\n\n", w.Body.String())

	w = f.do("GET", "/", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `data-run="`+other+`"`)
	assert.False(t, strings.Contains(w.Body.String(), id), "the Runs page lists the empty folder")
}

// TestTheGoneEventOfAnUnknownRunIsOneEventWhateverItsIDHolds: the ID of
// /events?run=ID comes back in the "gone" event's data; a line break in it
// ended the data line, so the URL chose the stream's next fields and
// events (event: change, data: ...).
func TestTheGoneEventOfAnUnknownRunIsOneEventWhateverItsIDHolds(t *testing.T) {
	f := newFixture(t, Options{})
	w := f.do("GET", "/events?run="+url.QueryEscape("a\nevent: change\r\ndata: x\n\n"), "")
	assert.Equal(t, "retry: 10000\nevent: gone\ndata: a\\nevent: change\\r\\ndata: x\\n\\n\n\n", w.Body.String())
}

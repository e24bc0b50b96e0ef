package ui

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

func TestARunIDPrefixOfSeveralRunsIsABadRequest(t *testing.T) {
	f := newFixture(t, Options{Exe: "/bin/false"})
	a, b := f.addRun(2, nil), f.addRun(2, nil)
	prefix := a[:2]
	require.True(t, strings.HasPrefix(b, prefix))
	want := `cannot open run &#34;` + prefix + `&#34;: the prefix matches 2 runs: `
	for _, req := range []struct{ method, path string }{
		{"GET", "/runs/" + prefix},
		{"POST", "/runs/" + prefix + "/resume"},
	} {
		w := f.do(req.method, req.path, "")
		assert.Equal(t, http.StatusBadRequest, w.Code, "%s %s", req.method, req.path)
		assert.Contains(t, w.Body.String(), want, "%s %s", req.method, req.path)
	}
}

func TestARunWithADamagedJournalShowsItsPageWithADamagedRow(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil)
	path := filepath.Join(f.store.Dir, id, "journal.jsonl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	crc := regexp.MustCompile(`"crc":"[0-9a-f]+"`)
	require.True(t, crc.MatchString(lines[1]), "line 2: %s", lines[1])
	lines[1] = crc.ReplaceAllString(lines[1], `"crc":"deadbeef"`)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))

	w := f.do("GET", "/runs/"+id, "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	body := w.Body.String()
	assert.Contains(t, body, `<tr id="step-end" class="failed end-damaged"><td class="n">✕</td><td>b <span class="badge st-damaged">damaged</span></td>`)
	assert.Regexp(t, `<div class="err" id="end-error"><pre class="text">cannot read journal: [^<]*/journal.jsonl:2: damaged line: the line&#39;s checksum is [0-9a-f]+ but it was written with deadbeef: it was changed after it was written`, body)
	assert.Contains(t, body, `<p class="empty" id="unread">The journal cannot be read (above): no context or memory to show. <code class="cli">lppctl runs show `+id+`</code> prints what run.json says.</p>`)
	assert.NotContains(t, body, `id="context"`)
}

// TestSearchFindsAContextValueTheRunNeverChanged: a value the run page
// shows as its context but that its journal never holds (its spec's
// default, not given with --var) finds the run; a run that replaced it with
// --var is not found by it.
func TestSearchFindsAContextValueTheRunNeverChanged(t *testing.T) {
	const spec = `lpp: 1
name: modes
context:
  mode: {type: string, default: fast}
  note: {type: string, default: "<b>Hi & Bye</b>"}
  tags: {type: list, default: [red, green]}
initial: a
states:
  a: {final: true}
`
	f := newFixture(t, Options{})
	create := func(vars map[string]any) string {
		r, err := f.store.Create(runstore.Meta{Spec: "specs/modes.yaml", SpecName: "modes", Start: time.Now(), State: "a", Vars: vars, Fsync: runstore.FsyncNever}, []byte(spec))
		require.NoError(t, err)
		r.Meta.Status = machine.StatusInterrupted
		require.NoError(t, r.SaveMeta())
		r.Unlock()
		return r.Meta.ID
	}
	plain, slow := create(nil), create(map[string]any{"mode": "slow"})
	tests := []struct {
		q    string
		want []string
	}{
		{"FAST", []string{plain}},                  // a default, case-insensitive
		{"slow", []string{slow}},                   // a --var, in the journal's start
		{"<b>hi & bye", []string{plain, slow}},     // a default both kept, as the page shows it
		{`["red","green"]`, []string{plain, slow}}, // a list, as JSON
		{"purple", nil},
	}
	for _, tt := range tests {
		body := f.do("GET", "/?q="+url.QueryEscape(tt.q), "").Body.String()
		var got []string
		for _, id := range []string{plain, slow} {
			if strings.Contains(body, `data-run="`+id+`"`) {
				got = append(got, id)
			}
		}
		assert.Equal(t, tt.want, got, "q=%q", tt.q)
	}
}

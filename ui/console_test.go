package ui

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// failRun marks run id failed in state with msg, as lppctl run does.
func (f *fixture) failRun(id, msg string) {
	f.t.Helper()
	r, err := f.store.Open(id)
	require.NoError(f.t, err)
	require.NoError(f.t, r.Lock("run"))
	j, err := r.OpenJournal(runstore.FsyncNever)
	require.NoError(f.t, err)
	require.NoError(f.t, j.Mark(&runstore.Entry{Type: runstore.EntryFail, State: r.Meta.State, Message: msg}))
	require.NoError(f.t, j.Close())
	r.Meta.Status, r.Meta.Error = machine.StatusFailed, msg
	require.NoError(f.t, r.SaveMeta())
	r.Unlock()
}

func TestValuesShowAsTextAndFoldableJSON(t *testing.T) {
	long := strings.Repeat("x", textCap) + "<tail>"
	tests := []struct {
		name     string
		raw      string
		want     []string
		not      []string
		wantOpen bool
	}{
		{"a string is text, unescaped and HTML-safe", `"<b>hi</b>\nthere"`,
			[]string{`<pre class="text">&lt;b&gt;hi&lt;/b&gt;` + "\nthere</pre>"}, []string{`\u003c`, `\n`}, false},
		{"a long string is capped, the rest behind show all", `"` + long + `"`,
			[]string{`<details class="more"><summary>show all 2006 characters</summary><pre class="text">&lt;tail&gt;</pre></details>`}, nil, false},
		{"a small object of scalars is one line", `{"b": 1, "a": "<x>"}`,
			[]string{`<span class="j-inline">{<span class="j-key">&#34;a&#34;</span>: <span class="j-str">&#34;&lt;x&gt;&#34;</span>, <span class="j-key">&#34;b&#34;</span>: <code class="j-lit">1</code>}</span>`}, nil, true},
		{"an object is a tree of its keys", `{"b": 1, "a": "<x>", "c": [1], "d": null, "e": true}`,
			[]string{`<details class="json" open><summary>{ <small>5 keys</small></summary>`, `<li><span class="j-key">&#34;a&#34;</span>: <span class="j-str">&#34;&lt;x&gt;&#34;</span></li>`, `<code class="j-null">null</code>`}, nil, true},
		{"a big nested array is folded", `{"l": [1,2,3,4,5,6,7,8,9,10,11,12,13]}`,
			[]string{`<details class="json"><summary>[ <small>13 items</small></summary>`}, nil, true},
		{"not JSON is text", `{oops`, []string{`<pre class="text">{oops</pre>`}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(showJSON([]byte(tt.raw)))
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, got, n)
			}
		})
	}
}

func TestAFailedRunShowsItsErrorAndFailedState(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, nil)
	f.failRun(id, "action failed: script.run in state \"b\": <boom>")
	f.srv.mermaid = true
	drawn := f.do("GET", "/runs/"+id, "").Body.String()
	assert.Contains(t, drawn, "    classDef failed fill:#fee4e2,stroke:#b42318,stroke-width:4px\n    class b failed\n")
	assert.NotContains(t, drawn, "class b current")
	f.srv.mermaid = false // Graphviz's DOT source
	body := f.do("GET", "/runs/"+id, "").Body.String()
	for _, want := range []string{
		`<tr id="step-end" class="failed end-failed">`,
		`<div class="err" id="end-error"><pre class="text">action failed: script.run in state &#34;b&#34;: &lt;boom&gt;</pre></div>`,
		`lppctl resume ` + id + ` retries the state`,
		`&#34;b&#34; [class=&#34;failed&#34;`, // the DOT source lights b as failed
		`<span class="k failed"></span> where it failed`,
	} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, `[class=&#34;current&#34;`, "a failed state is not lit as where the run stands")
	list := f.do("GET", "/", "").Body.String()
	assert.Contains(t, list, `<span class="err-line" title="action failed: script.run in state &#34;b&#34;: &lt;boom&gt;">`)
}

func TestSearchFindsRunsByTheirTextAndKeepsItInTheURL(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.addRun(2, nil, machine.MemOp{Key: "l3", Op: "append", Value: mustJSON(map[string]string{"role": "assistant", "text": "the <answer> is \"42\""})})
	b := f.addRun(2, nil)
	f.failRun(b, "quota exceeded for model gpt-x")
	tests := []struct{ q, want string }{
		{"quota EXCEEDED", b},      // the error, case-insensitive
		{`<answer> is "42"`, a},    // a reply's text, as the journal holds it (escaped there)
		{a, a},                     // the ID
		{"failed", b},              // the status
		{"interrupted", a},         // the other's
		{"specs/loop.yaml", a + b}, // the spec: both
		{"nothing like it", ""},    // no run
		{"", a + b},                // no query: all
		{"   ", a + b},             // blank: all
	}
	for _, tt := range tests {
		body := f.do("GET", "/?q="+urlQuery(tt.q), "").Body.String()
		got := ""
		for _, id := range []string{b, a} { // newest first
			if strings.Contains(body, `data-run="`+id+`"`) {
				got += id
			}
		}
		want := tt.want
		if want == a+b {
			want = b + a
		}
		assert.Equal(t, want, got, "q=%q", tt.q)
		if strings.TrimSpace(tt.q) != "" {
			assert.Contains(t, body, `data-live="/events?q=`, "q=%q: the live stream keeps the filter", tt.q)
		}
	}
}

func urlQuery(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "+", "%2B", " ", "+", "#", "%23", "\n", "%0A", "\"", "%22", "<", "%3C", ">", "%3E", "\\", "%5C")
	return r.Replace(s)
}

func TestChildMachinePageIsLinkedFromItsStep(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(0, nil)
	parent, err := f.store.Open(id)
	require.NoError(t, err)
	// The parent's step 2 in state a ran a child (spec.run): its journal
	// is in children/a-2.
	require.NoError(t, parent.Lock("run"))
	j, err := parent.OpenJournal(runstore.FsyncNever)
	require.NoError(t, err)
	start := time.Date(2026, 11, 22, 3, 11, 36, 0, time.UTC)
	for i, rec := range []*machine.Record{
		{Seq: 1, From: "a", To: "b", Via: "next[0]", Action: "noop", Start: start},
		{Seq: 2, From: "b", To: "a", Via: "next[0]", Action: "spec.run", Start: start.Add(time.Millisecond)},
	} {
		require.NoError(t, j.OnStep(context.Background(), rec), "step %d", i+1)
	}
	require.NoError(t, j.Close())
	parent.Unlock()
	children := runstore.New(filepath.Join(parent.Dir, childrenDir))
	child, err := children.Create(runstore.Meta{ID: "b-2", Spec: "specs/loop.yaml", SpecName: "loop", Start: start, State: "a"}, []byte(loopSpec))
	require.NoError(t, err)
	cj, err := child.OpenJournal(runstore.FsyncNever)
	require.NoError(t, err)
	require.NoError(t, cj.OnStep(context.Background(), &machine.Record{Seq: 1, From: "a", To: "b", Via: "next[0]", Action: "noop", Start: start, Vars: map[string]any{"n": 7}}))
	require.NoError(t, cj.Close())
	child.Meta.Status, child.Meta.Steps, child.Meta.State = machine.StatusCompleted, 1, "b"
	require.NoError(t, child.SaveMeta())
	child.Unlock()

	body := f.do("GET", "/runs/"+id, "").Body.String()
	assert.Contains(t, body, `spec.run <a href="/runs/`+id+`/children/b-2" class="child-link">child machine →</a>`)
	w := f.do("GET", "/runs/"+id+"/children/b-2", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	page := w.Body.String()
	assert.Contains(t, page, `<a href="/runs/`+id+`" id="parent-link">`+id+`</a>`)
	assert.Contains(t, page, `<code>`+id+`/b-2</code>`)
	assert.Contains(t, page, `<th>n</th><td><code class="j-lit">7</code></td>`)
	for _, bad := range []string{"/runs/" + id + "/children/nope", "/runs/" + id + "/children/..%2f..", "/runs/nope/children/b-2"} {
		assert.Equal(t, http.StatusNotFound, f.do("GET", bad, "").Code, bad)
	}
}

func TestStaticAssetsRevalidateWithETags(t *testing.T) {
	f := newFixture(t, Options{})
	w := f.do("GET", "/static/app.js", "")
	require.Equal(t, http.StatusOK, w.Code)
	tag := w.Header().Get("ETag")
	require.NotEmpty(t, tag)
	assert.Equal(t, "no-cache", w.Header().Get("Cache-Control"))
	again := f.do("GET", "/static/app.js", "", "If-None-Match", tag)
	assert.Equal(t, http.StatusNotModified, again.Code)
	assert.Empty(t, again.Body.String())
	assert.Equal(t, http.StatusNotFound, f.do("GET", "/static/nope.js", "").Code)
}

func TestSpecsListsOnlySpecsWithValidity(t *testing.T) {
	f := newFixture(t, Options{})
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(f.root, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(f.root, name), []byte(text), 0o644))
	}
	write("specs/loop.yaml", loopSpec)
	write("specs/bad.yaml", "lpp: 1\nname: bad\ninitial: nowhere\nstates:\n  a: {final: true}\n")
	write("skills/x/demo.yaml", "replies:\n  - text: hello\n")
	write("config/tools_config.yaml", "tools: {}\n")
	body := f.do("GET", "/specs", "").Body.String()
	assert.Contains(t, body, `<tr data-spec="specs/loop.yaml"><td><a href="/spec?path=specs%2floop.yaml">specs/loop.yaml</a></td><td><span class="badge v-PASS">valid</span></td>`)
	assert.Contains(t, body, `<tr data-spec="specs/bad.yaml">`)
	assert.Contains(t, body, `<span class="badge v-FAIL">`)
	assert.NotContains(t, body, "demo.yaml")
	assert.NotContains(t, body, "tools_config.yaml")
}

func TestSpecsListsTheSpecsValidateFindsWhateverTheirLineEndsOrBreakage(t *testing.T) {
	f := newFixture(t, Options{})
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(f.root, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(f.root, name), []byte(text), 0o644))
	}
	write("specs/mac.yaml", "lpp: 1\rname: mac\rinitial: a\rstates:\r  a: {final: true}\r")
	write("specs/nostates.yaml", "lpp: 1\nname: nostates\ninitial: a\n")
	write("specs/unclosed.yaml", "lpp: 1\nname: u\ninitial: a\n  states: {a: {final: true}\n")
	write("skills/x/demo.yaml", "replies:\n  - text: hello\n")
	body := f.do("GET", "/specs", "").Body.String()
	for _, name := range []string{"specs/mac.yaml", "specs/nostates.yaml", "specs/unclosed.yaml"} {
		assert.Contains(t, body, `<tr data-spec="`+name+`">`, "lppctl validate reports %s as a spec", name)
	}
	assert.NotContains(t, body, "demo.yaml")
}

func TestSpecPageShowsItsStartFormAndRuns(t *testing.T) {
	f := newFixture(t, Options{Exe: "/nonexistent/lppctl"})
	spec := `lpp: 1
name: pick
description: picks a colour
context:
  colour: {type: string, enum: [red, green], default: red, doc: the colour to pick}
  n: {type: int, default: 3}
  tags: {type: list, default: []}
initial: a
states:
  a: {final: true}
`
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "specs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "specs/pick.yaml"), []byte(spec), 0o644))
	body := f.do("GET", "/spec?path=specs/pick.yaml", "").Body.String()
	for _, want := range []string{
		`<p class="description" id="description">picks a colour</p>`,
		`<select name="var.colour" id="var-colour"><option selected>red</option><option>green</option></select>`,
		`<div class="hint">the colour to pick</div>`,
		`<input type="text" inputmode="decimal" name="var.n" id="var-n" value="3">`,
		`<textarea name="var.tags" id="var-tags" rows="2" placeholder="JSON">[]</textarea>`,
		`<code class="cli" id="start-cli">lppctl run --spec specs/pick.yaml</code>`,
		`<ol class="src">`,
		`No runs of it in the store.`,
	} {
		assert.Contains(t, body, want)
	}
	// A value that does not fit its variable is refused on its field, the
	// typed values kept; nothing is started (the binary does not exist).
	w := f.do("POST", "/start", "path=specs%2Fpick.yaml&var.colour=green&var.n=three&var.tags=%5B1%5D")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	page := w.Body.String()
	assert.Contains(t, page, `<p class="notice err" id="start-error">cannot start the run: a value does not fit its variable (see the field)</p>`)
	assert.Contains(t, page, `<option selected>green</option>`)
	assert.Contains(t, page, `id="var-n" value="three">`)
	assert.Contains(t, page, `<div class="err field-error" id="err-n">`)
	assert.Contains(t, page, `<code class="cli" id="start-cli">lppctl run --spec specs/pick.yaml --var colour=green --var &#39;tags=[1]&#39;</code>`)
}

func TestActionsNeedTheBinary(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(2, nil)
	body := f.do("GET", "/runs/"+id, "").Body.String()
	assert.NotContains(t, body, `id="actions"`, "a UI without Exe shows no buttons")
	w := f.do("POST", "/runs/"+id+"/cancel", "")
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Contains(t, w.Body.String(), "cannot cancel run "+id+": this UI runs no commands (it does not know where lppctl is)")

	g := newFixture(t, Options{Exe: "/nonexistent/lppctl"})
	id = g.addRun(2, nil) // interrupted: resumable
	body = g.do("GET", "/runs/"+id, "").Body.String()
	assert.Contains(t, body, `<button id="resume" class="go">Resume</button> <code class="cli">lppctl resume `+id+`</code>`)
}

func TestEventFormIsTypedAndKeepsWhatWasTyped(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(2, &machine.PauseError{Kind: machine.PauseEvent, Prompt: "waits for GO", Options: []string{"GO"},
		Events: []machine.EventInfo{{Name: "GO", Payload: []machine.FieldInfo{{Name: "speed", Type: "int", Required: true}, {Name: "note", Type: "string"}}}}})
	tests := []struct {
		name, form  string
		status      int
		want        []string
		wantDecided []Decision
	}{
		{"a value that does not fit its type is refused on its field, kept", "pause_step=2&kind=event&event=GO&p.speed=fast&p.note=hello+%3Cthere%3E",
			http.StatusBadRequest, []string{
				`<span id="error-message">cannot fire event &#34;GO&#34;: payload field &#34;speed&#34;: the string &#34;fast&#34; is not an int</span>`,
				`<input name="p.speed" value="fast" inputmode="decimal">`,
				`<input name="p.note" value="hello &lt;there&gt;" placeholder="left out: &#34;&#34;">`,
				`<span class="err field-error" id="err-p-speed">payload field &#34;speed&#34;: the string &#34;fast&#34; is not an int</span>`,
			}, nil},
		{"a required field left empty is refused on its field, the rest kept", "pause_step=2&kind=event&event=GO&p.speed=&p.note=hi",
			http.StatusBadRequest, []string{
				`<span id="error-message">cannot fire event &#34;GO&#34;: its payload lacks the required field &#34;speed&#34; (int)</span>`,
				`<input name="p.note" value="hi" placeholder="left out: &#34;&#34;">`,
				`<span class="err field-error" id="err-p-speed">its payload lacks the required field &#34;speed&#34; (int)</span>`,
			}, nil},
		{"typed values become the payload", "pause_step=2&kind=event&event=GO&p.speed=3&p.note=",
			http.StatusSeeOther, nil, []Decision{{Run: id, PauseStep: 2, Kind: "event", Event: "GO", Payload: `{"speed":3}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.got = nil
			w := f.do("POST", "/runs/"+id+"/decide", tt.form)
			assert.Equal(t, tt.status, w.Code)
			for _, want := range tt.want {
				assert.Contains(t, w.Body.String(), want)
			}
			assert.Equal(t, tt.wantDecided, f.got)
		})
	}

	// resume's refusal (409) keeps an answer's text too.
	g := newFixture(t, Options{})
	pid := g.addRun(3, approval())
	g.decide = func(Decision) (string, error) { return "", &Refusal{Msg: "the plan is not JSON"} }
	w := g.do("POST", "/runs/"+pid+"/decide", "pause_step=3&kind=answer&text=my+%3Cedited%3E+plan")
	assert.Equal(t, http.StatusConflict, w.Code)
	assert.Contains(t, w.Body.String(), `<span id="error-message">the plan is not JSON</span>`)
	assert.Contains(t, w.Body.String(), `placeholder="your answer (feedback, guidance, an edited plan as JSON)">my &lt;edited&gt; plan</textarea>`)
}

func TestRunsPagePagesTheNewestFirst(t *testing.T) {
	f := newFixture(t, Options{})
	for range runsPerPage + 5 {
		f.addRun(1, nil)
	}
	runs, err := f.store.List()
	require.NoError(t, err)
	require.Len(t, runs, runsPerPage+5)
	newest, oldest := runs[len(runs)-1].Meta.ID, runs[0].Meta.ID
	first := f.do("GET", "/", "").Body.String()
	assert.Contains(t, first, `data-run="`+newest+`"`)
	assert.NotContains(t, first, `data-run="`+oldest+`"`)
	assert.Contains(t, first, `105 runs, page 1 of 2 (newest first) <a href="/?page=2">older</a>`)
	second := f.do("GET", "/?page=2&q=loop", "").Body.String()
	assert.Contains(t, second, `data-run="`+oldest+`"`)
	assert.Equal(t, 5, strings.Count(second, `<tr class="st-`))
	assert.Contains(t, second, `<a href="/?page=1&amp;q=loop">newer</a>`)
}

func TestActionsRefuseOtherSites(t *testing.T) {
	// Exe is a script that would leave a mark: none of these requests may run it.
	mark := filepath.Join(t.TempDir(), "ran")
	exe := filepath.Join(t.TempDir(), "lppctl")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755))
	f := newFixture(t, Options{Exe: exe})
	id := f.addRun(2, nil)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "loop.yaml"), []byte(loopSpec), 0o644))
	for _, target := range []string{"/runs/" + id + "/cancel", "/runs/" + id + "/resume", "/runs/" + id + "/fork", "/start"} {
		for _, hdr := range [][]string{
			{"Origin", "http://evil.example"},
			{"Origin", "", "Sec-Fetch-Site", "cross-site"},
			{"Host", "evil.example:8780"},
		} {
			w := f.do("POST", target, "path=loop.yaml&step=1", hdr...)
			assert.Equal(t, http.StatusForbidden, w.Code, "%s %v", target, hdr)
		}
	}
	_, err := os.Stat(mark)
	assert.True(t, os.IsNotExist(err), "a refused request ran lppctl")
}

func TestATemporalRunIsCancelledWithRunsCancel(t *testing.T) {
	// Exe echoes the command it was given, as lppctl runs cancel would answer.
	exe := filepath.Join(t.TempDir(), "lppctl")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\necho \"ran: $*\"\n"), 0o755))
	src := &fakeSource{runs: []*RemoteRun{remoteLoop("tmp-1", time.Now().Add(-time.Minute), 3, false)}}
	src.runs[0].Status = string(machine.StatusRunning)
	f := newFixture(t, Options{Source: src, Exe: exe})
	body := f.do("GET", "/temporal/tmp-1", "").Body.String()
	assert.Contains(t, body, `<form method="post" action="/temporal/tmp-1/cancel"><button id="cancel" class="stop">Cancel</button> <code class="cli">lppctl runs cancel tmp-1 --temporal 127.0.0.1:7233</code></form>`)
	w := f.do("POST", "/temporal/tmp-1/cancel", "")
	require.Equal(t, http.StatusSeeOther, w.Code, w.Body.String())
	page := f.do("GET", w.Header().Get("Location"), "").Body.String()
	assert.Contains(t, page, `<p class="notice" id="notice">ran: runs cancel --temporal 127.0.0.1:7233 -- tmp-1</p>`)

	src.runs[0].Status = string(machine.StatusCompleted)
	assert.NotContains(t, f.do("GET", "/temporal/tmp-1", "").Body.String(), `id="cancel"`, "an ended run has no Cancel")
}

func TestLaunchReadsTheOutputAndLeavesNoFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	exe := filepath.Join(t.TempDir(), "lppctl")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\necho \"out: $*\"\necho 'lppctl: cannot frob: no such run' >&2\nexit 2\n"), 0o755))
	p, err := Launch(exe, t.TempDir(), []string{"runs", "cancel", "x"})
	require.NoError(t, err)
	require.True(t, p.Wait(context.Background()))
	code, out, errs := p.Result()
	assert.Equal(t, 2, code)
	assert.Equal(t, "out: runs cancel x\n", out)
	assert.Equal(t, "lppctl: cannot frob: no such run\n", errs)
	assert.Equal(t, "cannot frob: no such run", p.Message())
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "Launch left its output files behind")
}

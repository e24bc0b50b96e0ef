package ui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

func TestRunsPageListsAndFiltersByStatus(t *testing.T) {
	f := newFixture(t, Options{})
	paused := f.addRun(3, approval())
	stopped := f.addRun(2, nil)
	w := f.do("GET", "/", "")
	if w.Code != 200 {
		t.Fatalf("%d: %s", w.Code, w.Body)
	}
	for _, want := range []string{
		`<tr class="st-paused" data-run="` + paused + `">`,
		`<span class="badge st-paused">paused</span> <span class="why">approval</span>`,
		`<tr class="st-interrupted" data-run="` + stopped + `">`,
		`<option value="paused">paused (1)</option>`,
	} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("the runs page lacks %s", want)
		}
	}
	w = f.do("GET", "/?status=paused", "")
	if !strings.Contains(w.Body.String(), paused) || strings.Contains(w.Body.String(), stopped) {
		t.Errorf("?status=paused should list %s only", paused)
	}
}

// rows returns the timeline's step numbers on a run page.
func rows(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr id="step-(\d+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestRunPagePaginatesTheTimeline(t *testing.T) {
	f := newFixture(t, Options{PageSize: 50})
	id := f.addRun(120, nil)
	tests := []struct {
		query, first, last, note string
	}{
		// the latest page by default, full: pages are cut from the newest step back
		{"", "71", "120", "120 transitions, page 3 of 3"},
		{"?page=1", "1", "20", "120 transitions, page 1 of 3"},
		{"?page=2", "21", "70", "page 2 of 3"},
		{"?page=99", "71", "120", "page 3 of 3"},
	}
	for _, tt := range tests {
		body := f.do("GET", "/runs/"+id+tt.query, "").Body.String()
		got := rows(body)
		if len(got) == 0 || got[0] != tt.first || got[len(got)-1] != tt.last {
			t.Errorf("%s: rows %v, want %s..%s", tt.query, got, tt.first, tt.last)
		}
		if !strings.Contains(body, tt.note) {
			t.Errorf("%s: no %q", tt.query, tt.note)
		}
	}
}

func TestRunPageEscapesWhatTheModelWrote(t *testing.T) {
	f := newFixture(t, Options{})
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	id := f.addRun(2, nil,
		machine.MemOp{Op: "append", Key: "l3", Value: mustJSON(map[string]string{"role": "assistant", "text": evil})},
		machine.MemOp{Op: "append", Key: "l2", Value: mustJSON("K=" + evil)},
	)
	body := f.do("GET", "/runs/"+id, "").Body.String()
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
		t.Fatalf("model text reached the page unescaped:\n%s", body)
	}
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the model's message is not shown (escaped)")
	}
	if !strings.Contains(body, "<span class=\"k\">l3 append · assistant</span>") {
		t.Errorf("the message's role is not shown")
	}
}

func TestRunPageShowsTheDecisionForms(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, approval())
	body := f.do("GET", "/runs/"+id, "").Body.String()
	for _, want := range []string{
		`<p class="prompt">approval in <b>b</b>: approve the plan of 2 steps</p>`,
		`<input type="hidden" name="pause_step" value="3"><input type="hidden" name="kind" value="approve"><button id="approve" class="go">Approve</button>`,
		`<button id="reject" class="stop">Reject</button>`,
		`<textarea name="text"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page lacks %s", want)
		}
	}
	wait := f.addRun(2, &machine.PauseError{Kind: machine.PauseEvent, Prompt: "waits for GO or STOP", Options: []string{"GO", "STOP"},
		Events: []machine.EventInfo{{Name: "GO", Payload: []machine.FieldInfo{{Name: "speed", Type: "int", Required: true}}}, {Name: "STOP"}}})
	body = f.do("GET", "/runs/"+wait, "").Body.String()
	for _, want := range []string{
		`<input type="hidden" name="pause_step" value="2"><input type="hidden" name="kind" value="event"><input type="hidden" name="event" value="GO">`,
		`<label class="field">speed <small>int, required</small><input name="p.speed" value="" inputmode="decimal">`, // a field per payload field, typed
		`<button id="fire-GO">Fire GO</button>`,
		`<button id="fire-STOP">Fire STOP</button>`,
		`--event NAME --payload JSON`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the waiting run's page lacks %s", want)
		}
	}
	if strings.Contains(body, `id="approve"`) {
		t.Errorf("a run waiting for an event offers Approve")
	}
	done := f.addRun(2, nil)
	if body := f.do("GET", "/runs/"+done, "").Body.String(); strings.Contains(body, "Waiting for a decision") {
		t.Errorf("a run that does not wait shows a decision")
	}
}

func TestDecidePostsExactlyTheResumeDecision(t *testing.T) {
	tests := []struct {
		name, form string
		want       Decision
	}{
		{"approve", "pause_step=3&kind=approve", Decision{PauseStep: 3, Kind: "approve"}},
		{"reject", "pause_step=3&kind=reject", Decision{PauseStep: 3, Kind: "reject"}},
		{"answer", "pause_step=3&kind=answer&text=use+Bob", Decision{PauseStep: 3, Kind: "answer", Text: "use Bob"}},
		{"event", "pause_step=3&kind=event&event=GO&payload=%7B%22x%22%3A1%7D", Decision{PauseStep: 3, Kind: "event", Event: "GO", Payload: `{"x":1}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			id := f.addRun(3, approval())
			w := f.do("POST", "/runs/"+id+"/decide", tt.form)
			if w.Code != http.StatusSeeOther {
				t.Fatalf("%d: %s", w.Code, w.Body)
			}
			f.srv.Wait()
			tt.want.Run = id
			if len(f.got) != 1 || f.got[0] != tt.want {
				t.Fatalf("Decide got %+v, want %+v", f.got, tt.want)
			}
			loc := w.Header().Get("Location")
			body := f.do("GET", loc, "").Body.String()
			if !strings.Contains(body, `<p class="notice" id="notice">completed in done after 3 steps</p>`) {
				t.Errorf("the page after the decision lacks its outcome")
			}
			if body := f.do("GET", loc, "").Body.String(); strings.Contains(body, `id="notice"`) {
				t.Errorf("the outcome is shown twice")
			}
		})
	}
}

func TestDecideShowsARefusalAs409(t *testing.T) {
	f := newFixture(t, Options{})
	id := f.addRun(3, approval())
	f.decide = func(Decision) (string, error) {
		return "", &Refusal{Msg: "run X no longer waits for this decision <b>"}
	}
	w := f.do("POST", "/runs/"+id+"/decide", "pause_step=3&kind=approve")
	if w.Code != http.StatusConflict {
		t.Fatalf("%d, want 409", w.Code)
	}
	if !strings.Contains(w.Body.String(), `<span id="error-message">run X no longer waits for this decision &lt;b&gt;</span>`) {
		t.Errorf("the refusal is not shown (escaped):\n%s", w.Body)
	}
}

func TestDecideRefusesBadForms(t *testing.T) {
	tests := []struct{ form, msg string }{
		{"kind=approve", `cannot decide for run RUN: the form names no pause (pause_step &#34;&#34;); reload the run&#39;s page`},
		{"pause_step=3&kind=frob", `cannot decide for run RUN: unknown decision &#34;frob&#34; (want approve, reject, answer or event)`},
		{"pause_step=3&kind=answer&text=+", `cannot answer run RUN with nothing: type the answer first`},
		{"pause_step=3&kind=event", `cannot fire an event at run RUN: choose which`},
	}
	for _, tt := range tests {
		f := newFixture(t, Options{})
		id := f.addRun(3, approval())
		w := f.do("POST", "/runs/"+id+"/decide", tt.form)
		want := strings.ReplaceAll(tt.msg, "RUN", id)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d, want 400 with %q:\n%s", tt.form, w.Code, want, w.Body)
		}
		if len(f.got) != 0 {
			t.Errorf("%s reached Decide", tt.form)
		}
	}
}

func TestEventsSignalChanges(t *testing.T) {
	f := newFixture(t, Options{Poll: 10 * time.Millisecond})
	id := f.addRun(2, nil)
	ts := httptest.NewServer(f.h)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/events?run="+id, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(res.Body)
	next := func() string {
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				return sc.Text()
			}
		}
		t.Fatalf("the stream ended: %v", sc.Err())
		return ""
	}
	if ev := next(); ev != "event: hello" {
		t.Fatalf("first event %q", ev)
	}
	r, err := f.store.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	j, err := r.OpenJournal(runstore.FsyncNever)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.OnStep(ctx, &machine.Record{Seq: 3, From: "a", To: "b", Via: "next[0]", Action: "noop", Start: time.Now()}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if ev := next(); ev != "event: change" {
		t.Fatalf("after a step: %q, want a change", ev)
	}
}

func TestSpecPage(t *testing.T) {
	f := newFixture(t, Options{})
	// Draw with Mermaid whether or not go generate ./ui embedded it here (the
	// drawing without it has its own test).
	f.srv.mermaid = true
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(f.root, "specs"), 0o755))
	must(os.WriteFile(filepath.Join(f.root, "specs", "loop.yaml"), []byte(loopSpec), 0o644))
	must(os.WriteFile(filepath.Join(f.root, "specs", "bad.yaml"), []byte(strings.Replace(loopSpec, "next: a", "next: aa", 1)), 0o644))
	must(os.WriteFile(filepath.Join(f.root, "secret.txt"), []byte("no"), 0o644))

	list := f.do("GET", "/specs", "").Body.String()
	for _, want := range []string{`<a href="/spec?path=specs%2fbad.yaml">specs/bad.yaml</a>`, `<a href="/spec?path=specs%2floop.yaml">specs/loop.yaml</a>`} {
		if !strings.Contains(list, want) {
			t.Errorf("the specs page lacks %s:\n%s", want, list)
		}
	}
	if body := f.do("GET", "/spec?path=specs/loop.yaml", "").Body.String(); !strings.Contains(body, "valid: no problems found.") || !strings.Contains(body, "stateDiagram-v2") {
		t.Errorf("a valid spec is not drawn as valid")
	}
	bad := f.do("GET", "/spec?path=specs/bad.yaml", "").Body.String()
	if !strings.Contains(bad, `<li class="sev-error"><b>error</b> specs/bad.yaml:13:23: transition to unknown state &#34;aa&#34; <i>(did you mean &#34;a&#34;?)</i></li>`) {
		t.Errorf("the invalid spec's diagnostic is not shown inline:\n%s", bad)
	}
	for _, p := range []string{"../x.yaml", "/etc/passwd.yaml", "secret.txt", "specs/../../x.yaml", "../x.json"} {
		w := f.do("GET", "/spec?path="+p, "")
		want := fmt.Sprintf("cannot show spec &#34;%s&#34;: give a .yaml or .yml spec or a .json L&#43;&#43; blueprint inside the project root (the Specs page lists them)", p)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d, want 400 %q", p, w.Code, want)
		}
	}
}

func TestDiagramWithoutMermaid(t *testing.T) {
	f := newFixture(t, Options{})
	spec, diags := mspec.Parse("loop.yaml", []byte(loopSpec))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f.srv.mermaid, f.srv.dot = false, ""
	d := f.srv.drawSpec(context.Background(), spec, []string{"a", "b"}, "b")
	if d.SVG != "" || !strings.Contains(d.Source, `"b" [class="current", style="rounded,filled,bold", fillcolor="#ffe08a", color="#d35400", penwidth=4];`) {
		t.Errorf("without Mermaid and dot: want the DOT source with b lit, got %+v", d)
	}
	if !strings.HasPrefix(d.Hint, "This lppctl was built without the Mermaid library") {
		t.Errorf("hint %q", d.Hint)
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("LPPCTL_REQUIRE_RENDERERS") != "" {
			t.Fatal("Graphviz is not installed (LPPCTL_REQUIRE_RENDERERS is set)")
		}
		t.Skip("Graphviz is not installed")
	}
	f.srv.dot = dot
	d = f.srv.drawSpec(context.Background(), spec, []string{"a", "b"}, "b")
	if !strings.HasPrefix(string(d.SVG), "<svg") || !regexp.MustCompile(`<g id="node\d+" class="node current">\s*<title>b</title>`).MatchString(string(d.SVG)) {
		t.Errorf("dot's SVG does not light b as current:\n%s", d.SVG)
	}
}

func TestMermaidCurrent(t *testing.T) {
	tests := []struct{ src, current, want string }{
		{"stateDiagram-v2\n    a --> b\n", "b", "    classDef current fill:#ffe08a,stroke:#d35400,stroke-width:4px\n    class b current\n"},
		{"stateDiagram-v2\n    state \"end\" as s_end\n    a --> s_end\n", "end", "    classDef current fill:#ffe08a,stroke:#d35400,stroke-width:4px\n    class s_end current\n"},
		{"stateDiagram-v2\n    a --> b\n", "", ""},
		{"stateDiagram-v2\n    a --> b\n", "zz", ""},
		{"flowchart TD\n    n_a[\"a\"]\n    n_b(((\"b\")))\n    n_a --> n_b\n", "b", "    classDef current fill:#ffe08a,stroke:#d35400,stroke-width:4px\n    class n_b current\n"},
		{"flowchart TD\n    n_a[\"a<br/><small>note</small>\"]\n    n_a --> n_a\n", "a", "    classDef current fill:#ffe08a,stroke:#d35400,stroke-width:4px\n    class n_a current\n"},
		{"flowchart TD\n    n_a[\"a\"]\n", "n_a", ""},
	}
	for _, tt := range tests {
		if got := mermaidCurrent(tt.src, tt.current); got != tt.want {
			t.Errorf("mermaidCurrent(%q, %q) = %q, want %q", tt.src, tt.current, got, tt.want)
		}
	}
}

func TestEndStreamsEndsTheEventStreams(t *testing.T) {
	f := newFixture(t, Options{Poll: 10 * time.Millisecond})
	ts := httptest.NewServer(f.h)
	defer ts.Close()
	res, err := http.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, res.Body)
		close(done)
	}()
	f.srv.EndStreams()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
}

package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// fakeSource is a RunSource over runs held in memory.
type fakeSource struct {
	mu      sync.Mutex
	runs    []*RemoteRun
	listErr error
	got     []Decision
	decide  func(Decision) (string, error)
}

func (f *fakeSource) Name() string        { return "Temporal" }
func (f *fakeSource) ResumeFlags() string { return "--temporal 127.0.0.1:7233" }

func (f *fakeSource) List(context.Context) ([]RemoteRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	var out []RemoteRun
	for _, r := range f.runs {
		s := *r
		s.SpecSrc, s.Records, s.Vars, s.Memory = nil, nil, nil, nil
		out = append(out, s)
	}
	return out, nil
}

func (f *fakeSource) find(id string) (*RemoteRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.runs {
		if r.ID == id {
			c := *r
			return &c, nil
		}
	}
	return nil, fmt.Errorf("cannot find run %s on Temporal: %w", id, runstore.ErrNotFound)
}

func (f *fakeSource) Summary(_ context.Context, id string) (*RemoteRun, error) { return f.find(id) }
func (f *fakeSource) Run(_ context.Context, id string) (*RemoteRun, error)     { return f.find(id) }

func (f *fakeSource) Decide(_ context.Context, d Decision) (string, error) {
	f.mu.Lock()
	f.got = append(f.got, d)
	f.mu.Unlock()
	if f.decide != nil {
		return f.decide(d)
	}
	return "completed in done after 4 steps", nil
}

// remoteLoop is a run of loopSpec on the source: steps transitions from a,
// paused for approval when pause is set.
func remoteLoop(id string, start time.Time, steps int, pause bool) *RemoteRun {
	r := &RemoteRun{ID: id, Status: string(machine.StatusRunning), Spec: "loop", Start: start, SpecPath: "specs/loop.yaml", SpecSrc: []byte(loopSpec)}
	state := "a"
	for i := 1; i <= steps; i++ {
		to := map[string]string{"a": "b", "b": "a"}[state]
		r.Records = append(r.Records, &machine.Record{Seq: i, From: state, To: to, Via: "next[0]", Action: "noop", Start: start.Add(time.Duration(i) * time.Millisecond), Duration: time.Millisecond})
		state = to
	}
	r.State, r.Steps = state, steps
	r.Vars = map[string]any{"n": 7}
	if pause {
		r.Status = string(machine.StatusPaused)
		r.Pause = approval()
		r.Pause.State = state
	}
	return r
}

func TestRunsPageListsTheSourcesRunsMarkedAsSuch(t *testing.T) {
	src := &fakeSource{}
	f := newFixture(t, Options{Source: src})
	local := f.addRun(2, nil) // started 2026-11-22 03:11:36
	src.runs = []*RemoteRun{
		remoteLoop("tmp-newer", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), 3, true),
		remoteLoop("tmp-older", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), 1, false),
	}
	body := f.do("GET", "/", "").Body.String()
	for _, want := range []string{
		`<h1>Runs <small>local and Temporal</small></h1>`,
		`<tr class="st-paused" data-run="tmp-newer">
<td><a href="/temporal/tmp-newer">tmp-newer</a> <span class="badge engine">Temporal</span></td>
<td><span class="badge st-paused">paused</span> <span class="why">approval</span></td>
<td>loop</td>`,
		`<td><a href="/runs/` + local + `">` + local + `</a></td>`,
		`<option value="paused">paused (1)</option>`,
		`<option value="running">running (1)</option>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the runs page lacks\n%s\n---\n%s", want, body)
		}
	}
	// Newest first, whichever engine ran them.
	order := []string{`data-run="tmp-newer"`, `data-run="` + local + `"`, `data-run="tmp-older"`}
	for i := 1; i < len(order); i++ {
		if a, b := strings.Index(body, order[i-1]), strings.Index(body, order[i]); a < 0 || b < 0 || a > b {
			t.Errorf("%s should come before %s", order[i-1], order[i])
		}
	}
	body = f.do("GET", "/?status=paused", "").Body.String()
	if !strings.Contains(body, `data-run="tmp-newer"`) || strings.Contains(body, `data-run="tmp-older"`) || strings.Contains(body, local) {
		t.Errorf("?status=paused should list tmp-newer only:\n%s", body)
	}
}

func TestRunsPageSaysWhyTheSourceCannotList(t *testing.T) {
	src := &fakeSource{listErr: errors.New("cannot list the runs on Temporal: connection refused")}
	f := newFixture(t, Options{Source: src})
	local := f.addRun(2, nil)
	w := f.do("GET", "/", "")
	if w.Code != 200 {
		t.Fatalf("%d: %s", w.Code, w.Body)
	}
	if want := `<p class="err" id="source-error">cannot list the runs on Temporal: connection refused</p>`; !strings.Contains(w.Body.String(), want) {
		t.Errorf("the runs page lacks %s", want)
	}
	if !strings.Contains(w.Body.String(), `data-run="`+local+`"`) {
		t.Errorf("the store's runs should be listed all the same")
	}
}

func TestSourceRunPageShowsDiagramTimelineAndDecision(t *testing.T) {
	src := &fakeSource{runs: []*RemoteRun{remoteLoop("tmp-1", time.Now().Add(-time.Minute), 3, true)}}
	src.runs[0].Memory = machine.NewMemory()
	if err := src.runs[0].Memory.Apply([]machine.MemOp{{Key: "l2", Op: "append", Value: mustJSON("greet in French")}}); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Source: src})
	f.srv.mermaid = false
	w := f.do("GET", "/temporal/tmp-1", "")
	if w.Code != 200 {
		t.Fatalf("%d: %s", w.Code, w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{
		`<h1>Run <code>tmp-1</code> <span class="badge engine">Temporal</span></h1>`,
		`data-live="/events?temporal=tmp-1"`,
		`<span class="badge st-paused" id="run-status">paused</span>`,
		`&#34;b&#34; [class=&#34;current&#34;`, // the DOT source lights b, where it stands
		`&#34;a&#34; [class=&#34;visited&#34;];`,
		`<form method="post" action="/temporal/tmp-1/decide"><input type="hidden" name="pause_step" value="3"><input type="hidden" name="kind" value="approve">`,
		`lppctl resume tmp-1 --temporal 127.0.0.1:7233 --approve`,
		`<th>n</th><td><code class="j-lit">7</code></td>`,
		`<li><code>greet in French</code></li>`,
		`3 transitions`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page lacks %s", want)
		}
	}
	if got := rows(body); strings.Join(got, ",") != "1,2,3" {
		t.Errorf("timeline rows %v, want 1,2,3", got)
	}
}

func TestSourceRunPageRefusesUnknownRuns(t *testing.T) {
	tests := []struct {
		name   string
		source RunSource
		status int
		msg    string
	}{
		{"unknown run", &fakeSource{}, 404, "cannot find run nope on Temporal: no such run"},
		{"no source", nil, 404, "cannot show run nope: lppctl ui was started without --temporal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{Source: tt.source})
			w := f.do("GET", "/temporal/nope", "")
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.msg) {
				t.Errorf("got %d %s, want %d with %q", w.Code, w.Body, tt.status, tt.msg)
			}
		})
	}
}

func TestSourceDecisionGoesThroughTheSource(t *testing.T) {
	src := &fakeSource{runs: []*RemoteRun{remoteLoop("tmp-1", time.Now(), 3, true)}}
	f := newFixture(t, Options{Source: src})
	w := f.do("POST", "/temporal/tmp-1/decide", url.Values{"pause_step": {"3"}, "kind": {"approve"}}.Encode())
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/temporal/tmp-1?n=") {
		t.Fatalf("got %d to %q, want 303 to the run's page", w.Code, w.Header().Get("Location"))
	}
	if want := []Decision{{Run: "tmp-1", PauseStep: 3, Kind: "approve"}}; fmt.Sprint(src.got) != fmt.Sprint(want) {
		t.Errorf("the source got %v, want %v", src.got, want)
	}
	if len(f.got) != 0 {
		t.Errorf("the store's Decide got %v, want nothing", f.got)
	}
	page := f.do("GET", w.Header().Get("Location"), "").Body.String()
	if !strings.Contains(page, `<p class="notice" id="notice">completed in done after 4 steps</p>`) {
		t.Errorf("the run page does not show the outcome")
	}

	msg := "run tmp-1 no longer waits for this decision (it paused after step 3; it is completed in done after 4 steps now): the decision was already taken; reload to see what it waits for"
	src.decide = func(Decision) (string, error) { return "", &Refusal{Msg: msg} }
	w = f.do("POST", "/temporal/tmp-1/decide", url.Values{"pause_step": {"3"}, "kind": {"approve"}}.Encode())
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), msg) || !strings.Contains(w.Body.String(), `action="/temporal/tmp-1/decide"`) {
		t.Errorf("a refusal: got %d %s", w.Code, w.Body)
	}
}

func TestEventsSignalASourceRunsMoves(t *testing.T) {
	src := &fakeSource{runs: []*RemoteRun{remoteLoop("tmp-1", time.Now(), 3, true)}}
	f := newFixture(t, Options{Source: src, Poll: 10 * time.Millisecond, SourcePoll: 10 * time.Millisecond})
	ts := httptest.NewServer(f.h)
	defer ts.Close()
	for _, q := range []string{"?temporal=tmp-1", ""} {
		t.Run("events"+q, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/events"+q, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
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
			src.mu.Lock()
			src.runs[0].Steps++
			src.runs[0].Status = "running"
			src.mu.Unlock()
			if ev := next(); ev != "event: change" {
				t.Fatalf("after a step: %q, want a change", ev)
			}
		})
	}
}

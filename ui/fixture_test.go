package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// loopSpec alternates between a and b until n reaches its bound.
const loopSpec = `lpp: 1
name: loop
context:
  n: {type: int, default: 0}
initial: a
states:
  a:
    do: noop
    set: {n: n + 1}
    next:
      - {to: b, when: n < 1000000}
      - {to: done}
  b: {do: noop, next: a}
  done: {final: true}
`

// fixture is a project root with a run store, and the server over it.
type fixture struct {
	t     testing.TB
	root  string
	store *runstore.Store
	srv   *Server
	h     http.Handler
	got   []Decision // the decisions Decide received
	// decide answers the decisions (default: "completed in done after 3 steps").
	decide func(Decision) (string, error)
}

func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir()}
	f.store = runstore.New(f.root + "/.lppctl/runs")
	opts.Root, opts.RunDir = f.root, f.store.Dir
	if opts.Dot == "" {
		opts.Dot = "-"
	}
	opts.Decide = func(_ context.Context, d Decision) (string, error) {
		f.got = append(f.got, d)
		if f.decide != nil {
			return f.decide(d)
		}
		return "completed in done after 3 steps", nil
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.h = srv, srv.Handler()
	return f
}

// addRun writes a run of loopSpec with steps transitions; pause, when not
// nil, leaves it paused (else it is completed when the steps end in done,
// interrupted otherwise). mem, when set, is the memory ops of step 1.
func (f *fixture) addRun(steps int, pause *machine.PauseError, mem ...machine.MemOp) string {
	f.t.Helper()
	start := time.Date(2026, 11, 22, 3, 11, 36, 0, time.UTC)
	r, err := f.store.Create(runstore.Meta{Spec: "specs/loop.yaml", SpecName: "loop", Start: start, State: "a", Fsync: runstore.FsyncNever}, []byte(loopSpec))
	if err != nil {
		f.t.Fatal(err)
	}
	j, err := r.OpenJournal(runstore.FsyncNever)
	if err != nil {
		f.t.Fatal(err)
	}
	state := "a"
	for i := 1; i <= steps; i++ {
		to := map[string]string{"a": "b", "b": "a"}[state]
		rec := &machine.Record{Seq: i, From: state, To: to, Via: "next[0]", Action: "noop", Start: start.Add(time.Duration(i) * time.Millisecond), Duration: 500 * time.Microsecond}
		if state == "a" {
			rec.Guard = "n < 1000000"
			rec.Vars = map[string]any{"n": (i + 1) / 2}
		}
		if i == 1 {
			rec.Memory = mem
		}
		if err := j.OnStep(context.Background(), rec); err != nil {
			f.t.Fatal(err)
		}
		state = to
	}
	r.Meta.Steps, r.Meta.State, r.Meta.Status = steps, state, machine.StatusInterrupted
	if pause != nil {
		pause.State = state
		if err := j.Mark(&runstore.Entry{Type: runstore.EntryPause, State: state, Pause: pause}); err != nil {
			f.t.Fatal(err)
		}
		r.Meta.Status, r.Meta.Pause = machine.StatusPaused, pause
	}
	if err := j.Close(); err != nil {
		f.t.Fatal(err)
	}
	if err := r.SaveMeta(); err != nil {
		f.t.Fatal(err)
	}
	r.Unlock()
	return r.Meta.ID
}

// do sends a request from the UI's own page (loopback Host, same Origin
// for writes) unless the headers say otherwise.
func (f *fixture) do(method, target string, body string, hdr ...string) *httptest.ResponseRecorder {
	f.t.Helper()
	req := httptest.NewRequest(method, "http://127.0.0.1:8780"+target, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://127.0.0.1:8780")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	return w
}

// approval is a plan-approval pause like human.approve's.
func approval() *machine.PauseError {
	return &machine.PauseError{Kind: "approval", Prompt: "approve the plan of 2 steps", Options: []string{"approve", "reject", "answer"}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return b
}

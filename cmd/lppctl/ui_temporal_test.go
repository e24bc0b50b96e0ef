package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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
	"github.com/lppctl/lppctl/temporal"
	"github.com/lppctl/lppctl/ui"
)

// TestUITemporalRunApprovedThroughTheUI: against a real Temporal dev server
// and an lppctl worker, a scripted Skills Agent run started with --engine
// temporal pauses for approval; lppctl ui --temporal lists it on the Runs
// page, marked Temporal and paused; its page draws the diagram with
// approve_plan current and offers Approve; Approve (resume --temporal's
// Update) completes the run, and a second Approve for the same pause is
// refused with resume's message.
func TestUITemporalRunApprovedThroughTheUI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	t.Setenv(runstore.EnvDir, "")
	t.Setenv("LPPCTL_TEMPORAL", "")
	root := newProject(t, "hello_skill")
	addr, tc := devServer(t, root)
	t.Chdir(root) // the scripted model's file is relative to it, for the run and the worker

	// A worker, as a process of its own (in the root, the test's current
	// folder) until the test ends: two in-process apps at once race on
	// urfave/cli's package-level help flag.
	startWorker(t, lppctlExe(t), addr, root)

	scriptedRun(t, root, exitPaused, "--engine", "temporal", "--temporal", addr)
	sums, err := temporal.ListRuns(context.Background(), tc, 0)
	if err != nil || len(sums) != 1 {
		t.Fatalf("want one run on Temporal, got %v (%v)", sums, err)
	}
	id := sums[0].RunID
	// lppctl runs says paused without asking a worker (the workflow's memo).
	eventually(t, 10*time.Second, "runs does not list the run paused", func() bool {
		sums, err := temporal.ListRuns(context.Background(), tc, 0)
		return err == nil && len(sums) == 1 && sums[0].Status == string(machine.StatusPaused)
	})

	runDir := root + "/" + runstore.DefaultDir
	srv, err := ui.New(ui.Options{Root: root, RunDir: runDir, Decide: uiDecide(lppctlExe(t), root, runDir), Dot: "-", Source: newTemporalSource(tc, addr, "default", root)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	get := func(path string) string {
		t.Helper()
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
		}
		return string(b)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", ts.URL)
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	runs := get("/")
	if want := fmt.Sprintf(`<tr class="st-paused" data-run="%s">
<td><a href="/temporal/%s">%s</a> <span class="badge engine">Temporal</span></td>
<td><span class="badge st-paused">paused</span> <span class="why">approval</span></td>
<td>skills_agent</td>`, id, id, id); !strings.Contains(runs, want) {
		t.Fatalf("the runs page lacks\n%s\n---\n%s", want, runs)
	}

	page := get("/temporal/" + id)
	m := regexp.MustCompile(`action="/temporal/` + regexp.QuoteMeta(id) + `/decide"><input type="hidden" name="pause_step" value="(\d+)"><input type="hidden" name="kind" value="approve">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the run page has no Approve form:\n%s", page)
	}
	step := m[1]
	for _, want := range []string{`<tr id="step-1"`, `lppctl resume ` + id + ` --temporal ` + addr + ` --approve`} {
		if !strings.Contains(page, want) {
			t.Errorf("the run page lacks %s", want)
		}
	}
	// The current state is lit in Mermaid (go generate ./ui embedded it, as
	// .ci/run does) or in Graphviz's DOT otherwise.
	if !strings.Contains(page, "class approve_plan current") && !strings.Contains(page, `&#34;approve_plan&#34; [class=&#34;current&#34;`) {
		t.Errorf("the run page does not light approve_plan:\n%s", page)
	}

	// A template broken while the run waits: the run keeps the one it
	// started with (pinned in its input), as a local resume refuses it.
	user := filepath.Join(root, "specs", "prompts", "optimizer_user.md")
	tmpl, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, append(tmpl, "\n{{ .EditedWhileTheRunWaited }}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}

	code, body := post("/temporal/"+id+"/decide", url.Values{"pause_step": {step}, "kind": {"approve"}})
	if code != http.StatusSeeOther {
		t.Fatalf("Approve: %d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := tc.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
		t.Fatalf("after Approve the run did not complete: %v", err)
	}
	p, err := temporal.Result(ctx, tc, id) // the records by reference
	if err != nil || p.Status != machine.StatusCompleted {
		t.Fatalf("after Approve the run is %v (%v), want completed", p, err)
	}
	approved := false
	for _, rec := range p.Records {
		approved = approved || (rec.Input != nil && rec.Input.Kind == "approve")
	}
	if !approved {
		t.Errorf("no step of the run took the approval")
	}

	code, body = post("/temporal/"+id+"/decide", url.Values{"pause_step": {step}, "kind": {"approve"}})
	// The run has ended: resume refuses any answer for that first.
	want := fmt.Sprintf("cannot resume run %s: it has completed in done after %d steps; a run that has ended takes no answer or event", id, p.Steps)
	if code != http.StatusConflict || !strings.Contains(body, want) {
		t.Errorf("a second Approve: %d, want 409 with %q:\n%s", code, want, body)
	}
	if runs := get("/?status=completed"); !strings.Contains(runs, `data-run="`+id+`"`) {
		t.Errorf("the run is not listed as completed")
	}
}

// TestUIDecideForAStoreRunIgnoresLPPCTL_TEMPORAL: with LPPCTL_TEMPORAL set
// (lppctl ui then lists that server's runs too), a decision for a run of the
// store is still resume's on the store, not a resume on Temporal.
func TestUIDecideForAStoreRunIgnoresLPPCTL_TEMPORAL(t *testing.T) {
	root, id := pausedRun(t)
	t.Setenv("LPPCTL_TEMPORAL", "127.0.0.1:1")
	out, err := uiDecide(lppctlExe(t), root, root+"/"+runstore.DefaultDir)(context.Background(), ui.Decision{Run: id, PauseStep: 1, Kind: "approve"})
	if err != nil || out != "completed in done after 28 steps" {
		t.Fatalf("approve: %q, %v; want %q", out, err, "completed in done after 28 steps")
	}
}

// TestUITemporalRunWaitingForAnEventSaysHowToResumeItOnTheServer: the
// prompt of a Temporal run that waits for an event names the server in
// its resume command, as runs show --temporal does (it read lppctl resume
// ID --event NAME, a command for a local run).
func TestUITemporalRunWaitingForAnEventSaysHowToResumeItOnTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	t.Setenv(runstore.EnvDir, "")
	t.Setenv("LPPCTL_TEMPORAL", "")
	root := t.TempDir()
	addr, tc := devServer(t, root)
	startWorker(t, lppctlExe(t), addr, root)
	src := []byte(waitGoSpec)
	require.NoError(t, temporal.StartRun(context.Background(), tc, "", temporal.Start{RunID: "waits-ui", SpecPath: "waitgo.yaml", Spec: src, SpecHash: temporal.SpecHash(src)}))
	eventually(t, time.Minute, "the run does not pause", func() bool {
		p, err := temporal.Query(context.Background(), tc, "waits-ui", -1)
		return err == nil && p.Pause != nil
	})

	runDir := root + "/" + runstore.DefaultDir
	srv, err := ui.New(ui.Options{Root: root, RunDir: runDir, Decide: uiDecide(lppctlExe(t), root, runDir), Dot: "-", Source: newTemporalSource(tc, addr, "default", root)})
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := http.Get(ts.URL + "/temporal/waits-ui")
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	assert.Contains(t, string(b), "waiting for an event: GO; deliver one with: lppctl resume waits-ui --temporal "+addr+" --event NAME")
}

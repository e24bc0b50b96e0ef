package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/internal/testenv"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/ui"
)

// failsSpec fails in check until ready.txt exists under the root.
const failsSpec = `lpp: 1
name: fails
description: fails until ready.txt exists (for the retry test)
context:
  ok: {type: bool, default: false, doc: whether ready.txt was there}
initial: check
states:
  check:
    do: script.run
    with: {script: scripts/ready.py, output: {ok: ok}}
    next: [{to: done}]
  done: {final: true}
`

const readyScript = `import json, os, sys
if not os.path.exists("ready.txt"):
    sys.exit("ready.txt is missing: create it, then resume")
print(json.dumps({"ok": True}))
`

// reviewSpec waits for a VERDICT whose payload is typed and documented.
const reviewSpec = `lpp: 1
name: review
description: waits for a VERDICT with a typed payload (for the event form test)
context:
  score: {type: int, default: 0}
initial: review
states:
  review:
    on:
      VERDICT:
        - {to: done, set: {score: event.payload.score}}
  done: {final: true}
events:
  VERDICT:
    payload:
      score: {type: int, doc: the reviewer's score out of 100}
      grade: {type: string, enum: [pass, fail], doc: the verdict}
`

// parentSpec runs child.yaml (three ticks) as a child machine.
const parentSpec = `lpp: 1
name: parent
description: runs child.yaml as a child machine
context:
  m: {type: int, default: 0}
initial: call
states:
  call:
    do: spec.run
    with: {spec: child.yaml, output: {m: n}}
    next: [{to: done}]
  done: {final: true}
`

// consoleLoopSpec alternates a and b, n counting the visits of a.
const consoleLoopSpec = `lpp: 1
name: loop
description: alternates a and b (the runs of the width tests are written, not run)
context:
  n: {type: int, default: 0}
  reply: {type: string, default: ""}
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

// askSpec asks the model one question with a system prompt (its replies
// are ask/demo.yaml's: no LLM is configured).
const askSpec = `lpp: 1
name: ask
description: asks the model for a title (for the model call test)
context:
  topic: {type: string, default: "lamps & <wicks>"}
  title: {type: string, default: ""}
initial: ask
states:
  ask:
    do: llm.generate
    with: {system: sys.md, prompt: q.md, output: title}
    next: [{to: done}]
  done: {final: true}
`

// consoleProject is a project root with the specs of the console test.
func consoleProject(t *testing.T) string {
	t.Helper()
	testenv.Python(t) // the spec runs scripts/ready.py
	root := t.TempDir()
	files := map[string]string{"long.yaml": longSpec, "fails.yaml": failsSpec, "loop.yaml": consoleLoopSpec, "review.yaml": reviewSpec, "parent.yaml": parentSpec,
		"child.yaml": strings.ReplaceAll(strings.ReplaceAll(longSpec, "default: 1500", "default: 3"), "name: long", "name: child"), "scripts/ready.py": readyScript,
		"ask/ask.yaml": askSpec, "ask/sys.md": "You name <b>books</b>.\n", "ask/q.md": "Name a book about {{.topic}}.\nOne line.\n",
		"ask/demo.yaml": "replies:\n  - state: ask\n    text: \"\\\"Hand-lit\\\" <i>&</i>\\nA history\"\n"}
	for name, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
	copyTree(t, filepath.Join(repoRoot(t), "config", "tools_config.yaml"), filepath.Join(root, "config", "tools_config.yaml"))
	return root
}

// serveUIAt serves the UI of root on addr ("127.0.0.1:0": any port) with
// its buttons running this test binary as lppctl; stop ends it (the runs its
// buttons started go on).
func serveUIAt(t *testing.T, root, addr string) (base string, stop func()) {
	t.Helper()
	runDir := filepath.Join(root, runstore.DefaultDir)
	exe := lppctlExe(t)
	srv, err := ui.New(ui.Options{Root: root, RunDir: runDir, Exe: exe, Decide: uiDecide(exe, root, runDir), Check: uiCheck(root), Compile: uiCompile(root), Poll: 100 * time.Millisecond})
	require.NoError(t, err)
	var ln net.Listener
	for i := 0; ; i++ { // the port of a server just stopped may linger an instant
		if ln, err = net.Listen("tcp", addr); err == nil || i == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUI(ctx, ln, srv) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			assert.NoError(t, <-done)
		}
	}
	t.Cleanup(stop)
	return "http://" + ln.Addr().String(), stop
}

// writeRun writes a run of loop.yaml with steps transitions straight into
// the store (as the interpreter journals them); step 1 sets reply to big
// and adds it to memory as the model's message. It returns the run's ID.
func writeRun(t *testing.T, root string, steps int, big string) string {
	t.Helper()
	store := runstore.New(filepath.Join(root, runstore.DefaultDir))
	start := time.Now().Add(-time.Minute)
	r, err := store.Create(runstore.Meta{Spec: "loop.yaml", SpecAbs: filepath.Join(root, "loop.yaml"), SpecName: "loop", Start: start, State: "a", Fsync: runstore.FsyncNever}, []byte(consoleLoopSpec))
	require.NoError(t, err)
	j, err := r.OpenJournal(runstore.FsyncNever)
	require.NoError(t, err)
	state := "a"
	for i := 1; i <= steps; i++ {
		to := map[string]string{"a": "b", "b": "a"}[state]
		rec := &machine.Record{Seq: i, From: state, To: to, Via: "next[0]", Action: "noop", Start: start.Add(time.Duration(i) * time.Millisecond), Duration: 500 * time.Microsecond}
		if state == "a" {
			rec.Guard = "n < 1000000"
			rec.Vars = map[string]any{"n": (i + 1) / 2}
		}
		if i == 1 && big != "" {
			rec.Vars["reply"] = big
			msg, _ := json.Marshal(map[string]string{"role": "assistant", "text": big})
			rec.Memory = []machine.MemOp{{Key: "l3", Op: "append", Value: msg}}
		}
		require.NoError(t, j.OnStep(context.Background(), rec))
		state = to
	}
	r.Meta.Steps, r.Meta.State, r.Meta.Status = steps, state, machine.StatusInterrupted
	require.NoError(t, j.Close())
	require.NoError(t, r.SaveMeta())
	r.Unlock()
	return r.Meta.ID
}

// waitText waits until the text of sel satisfies ok (the page updates
// itself); only a broken page makes it wait out the patience.
func waitText(t *testing.T, ctx context.Context, sel string, ok func(string) bool) string {
	t.Helper()
	within := patience
	deadline := time.Now().Add(within)
	last := ""
	for time.Now().Before(deadline) {
		if s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel))); err == nil {
			last = strings.TrimSpace(s)
			if ok(last) {
				return last
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s reads %q after %s", sel, last, within)
	return ""
}

// textOf reads the text of sel in one evaluation (a live part of the page
// may be swapped between two protocol calls); "" when there is none.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel)))
	require.NoError(t, err)
	return strings.TrimSpace(s)
}

// do runs browser actions, each within a minute; on a failure it says what
// the page showed.
func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	for _, a := range actions {
		actx, cancel := context.WithTimeout(ctx, time.Minute)
		err := chromedp.Do(actx, a)
		cancel()
		if err != nil {
			where, _ := chromedp.Run(ctx, chromedp.Location())
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 3000) : ""`))
			t.Fatalf("%v at %s; the page shows:\n%s", err, where, text)
		}
	}
}

// clickJS clicks the element sel in one evaluation in the page: a live
// page may replace a part between chromedp finding a node and clicking it.
func clickJS(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); if (!e) return false; e.click(); return true })()`))
	require.NoError(t, err)
	require.True(t, ok, "no %s on the page to click", sel)
}

// pageWidths returns the page's scroll width and the viewport's width.
func pageWidths(t *testing.T, ctx context.Context) (scroll, viewport int) {
	t.Helper()
	w, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
	require.NoError(t, err)
	return w[0], w[1]
}

// TestUIConsoleInBrowser drives the console in headless Chromium at 1400
// px: a run started from the spec's form (a bad value refused, what was
// typed kept), the UI server restarted mid-run (the run goes on in its own
// process, the page recovers), the run cancelled from its page (journaled,
// interrupted), a failed run found by its error text, shown failed, and
// retried after fixing its cause; a model call expanded to its messages
// as sent and its reply; the step slider; a 120 KB reply and a
// 10,000-step run inside the viewport's width; a deleted run shown gone.
// With -update it takes docs/ui.md's screenshots (docs/img/console-*.png).
func TestUIConsoleInBrowser(t *testing.T) {
	ctx := browser(t)
	do(t, ctx, chromedp.EmulateViewport(1400, 900))
	img := filepath.Join(repoRoot(t), "docs", "img")
	t.Setenv(runstore.EnvDir, "")
	t.Setenv("LPPCTL_TEMPORAL", "")
	for _, k := range []string{"LPPCTL_LLM", "OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST"} {
		t.Setenv(k, "") // the runs' model is ask/demo.yaml's script
	}
	root := consoleProject(t)
	store := runstore.New(filepath.Join(root, runstore.DefaultDir))
	base, stop := serveUIAt(t, root, "127.0.0.1:0")
	addr := strings.TrimPrefix(base, "http://")

	// Start a run from the form: a bad value is refused on its field and
	// kept; a good one starts the run as its own process.
	do(t, ctx, chromedp.Navigate(base+"/spec?path=long.yaml"), chromedp.WaitVisible(`#start-form`))
	assert.Equal(t, "lppctl run --spec long.yaml", textOf(t, ctx, `#start-cli`))
	assert.Equal(t, "valid", textOf(t, ctx, `#validity`))
	screenshotView(t, ctx, filepath.Join(img, "console-spec.png"))
	do(t, ctx, chromedp.SetValue(`#var-bound`, "many"), chromedp.Click(`#start-run`), chromedp.WaitVisible(`#start-error`))
	assert.Equal(t, "cannot start the run: a value does not fit its variable (see the field)", textOf(t, ctx, `#start-error`))
	assert.NotEmpty(t, textOf(t, ctx, `#err-bound`))
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("var-bound").value`))
	require.NoError(t, err)
	assert.Equal(t, "many", kept, "the refused value is kept in its field")
	runs, err := store.List()
	require.NoError(t, err)
	assert.Empty(t, runs, "a refused form starts no run")

	do(t, ctx, chromedp.SetValue(`#var-bound`, "1400"), chromedp.Click(`#start-run`), chromedp.WaitVisible(`#run-status`))
	url, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	id := strings.TrimPrefix(strings.SplitN(url, "?", 2)[0], base+"/runs/")
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "running" })
	assert.Contains(t, textOf(t, ctx, `#actions`), "lppctl runs cancel "+id)
	r, err := store.Open(id)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"bound": 1400}, r.Meta.Vars, "the form's changed value is the run's --var")

	// Restart the UI server mid-run: the run goes on; the page reconnects
	// and follows it again.
	do(t, ctx, chromedp.WaitVisible(`#live-dot.on`))
	stop()
	waitText(t, ctx, `#live-dot`, func(string) bool {
		off, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.body.classList.contains("offline")`))
		return off
	})
	before, err := store.Open(id)
	require.NoError(t, err)
	require.True(t, before.Working(), "stopping the UI stopped the run")
	shown := textOf(t, ctx, `#run-steps`)
	base, stop = serveUIAt(t, root, addr)
	_ = stop
	do(t, ctx, chromedp.WaitVisible(`#live-dot.on`))
	waitText(t, ctx, `#run-steps`, func(s string) bool { return s != shown })
	assert.Equal(t, "running", textOf(t, ctx, `#run-status`))

	// Cancel from the page: the run stops at a clean point, journaled,
	// interrupted; Resume is offered with its command.
	clickJS(t, ctx, `#cancel`)
	waitText(t, ctx, `#notice`, func(s string) bool { return strings.HasPrefix(s, "run "+id+" cancelled: interrupted in tick after ") })
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "interrupted" })
	assert.Contains(t, textOf(t, ctx, `#actions`), "lppctl resume "+id)
	r, err = store.Open(id)
	require.NoError(t, err)
	l, err := r.ReadJournal()
	require.NoError(t, err)
	assert.Equal(t, runstore.EntryInterrupt, l.Last().Type)

	// A failed run: shown failed (its error on its last timeline row, its
	// state lit as failed), found by its error text, retried once fixed.
	do(t, ctx, chromedp.Navigate(base+"/spec?path=fails.yaml"), chromedp.Click(`#start-run`), chromedp.WaitVisible(`#run-status`))
	url, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	failed := strings.TrimPrefix(strings.SplitN(url, "?", 2)[0], base+"/runs/")
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "failed" })
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(`#end-error`))
	assert.Contains(t, textOf(t, ctx, `#end-error`), "ready.txt is missing: create it, then resume")
	assert.Equal(t, "Retry", textOf(t, ctx, `#resume`))
	lit, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("#diagram[data-rendered=svg] svg .failed") || document.querySelector("#diagram").textContent.includes('class="failed"') || document.querySelector("#diagram").textContent.includes("class check failed")`))
	require.NoError(t, err)
	assert.True(t, lit, "the state the run failed in is lit as failed")
	screenshotView(t, ctx, filepath.Join(img, "console-run-failed.png"))

	do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#q`),
		chromedp.SetValue(`#q`, "ready.txt is missing"), chromedp.Submit(`#q`), chromedp.WaitVisible(`table.runs`))
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("table.runs tbody tr")).map(r => r.dataset.run)`))
	require.NoError(t, err)
	assert.Equal(t, []string{failed}, listed, "searching the error's text finds the failed run only")
	assert.Contains(t, textOf(t, ctx, `tr[data-run="`+failed+`"] .err-line`), "ready.txt is missing")
	url, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.Contains(t, url, "q=ready.txt+is+missing", "the search is in the URL")
	screenshot(t, ctx, filepath.Join(img, "console-runs.png"))

	require.NoError(t, os.WriteFile(filepath.Join(root, "ready.txt"), []byte("yes\n"), 0o644))
	do(t, ctx, chromedp.Navigate(base+"/runs/"+failed), chromedp.WaitVisible(`#resume`))
	clickJS(t, ctx, `#resume`)
	do(t, ctx, chromedp.WaitVisible(`#notice`))
	assert.Equal(t, "completed in done after 2 steps", textOf(t, ctx, `#notice`))
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "completed" })

	// The event form: a field per payload field, typed; a bad value is
	// refused on its field and kept; a good one delivers the event.
	do(t, ctx, chromedp.Navigate(base+"/spec?path=review.yaml"), chromedp.Click(`#start-run`), chromedp.WaitVisible(`#event-VERDICT`))
	assert.Contains(t, textOf(t, ctx, `#event-VERDICT`), "the reviewer's score out of 100")
	do(t, ctx, chromedp.SetValue(`#event-VERDICT input[name="p.score"]`, "high"), chromedp.Click(`#fire-VERDICT`), chromedp.WaitVisible(`#error-message`))
	assert.Contains(t, textOf(t, ctx, `#error-message`), `cannot fire event "VERDICT": payload field "score": the string "high" is not an int`)
	typed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#event-VERDICT input[name="p.score"]').value`))
	require.NoError(t, err)
	assert.Equal(t, "high", typed, "the refused value is kept")
	assert.NotEmpty(t, textOf(t, ctx, `#err-p-score`))
	do(t, ctx, chromedp.SetValue(`#event-VERDICT input[name="p.score"]`, "70"), chromedp.Click(`#fire-VERDICT`), chromedp.WaitVisible(`#notice`))
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "completed" })
	screenshotView(t, ctx, filepath.Join(img, "console-event.png"))

	// A child machine (spec.run) has its own page, linked from the step
	// that ran it, and linking back.
	do(t, ctx, chromedp.Navigate(base+"/spec?path=parent.yaml"), chromedp.Click(`#start-run`), chromedp.WaitVisible(`#run-status`))
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "completed" })
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(`a.child-link`))
	clickJS(t, ctx, `a.child-link`)
	do(t, ctx, chromedp.WaitVisible(`#parent-link`))
	url, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.Regexp(t, `/runs/[^/]+/children/call-1$`, url)
	assert.Equal(t, "completed", textOf(t, ctx, `#run-status`))
	assert.Equal(t, "child", textOf(t, ctx, `#spec-name`))
	assert.Contains(t, textOf(t, ctx, `#timeline`), "4 transitions")
	screenshotView(t, ctx, filepath.Join(img, "console-child.png"))

	// A model call expands to its messages exactly as sent and its reply.
	do(t, ctx, chromedp.Navigate(base+"/spec?path=ask/ask.yaml"), chromedp.Click(`#start-run`), chromedp.WaitVisible(`#run-status`))
	waitText(t, ctx, `#run-status`, func(s string) bool { return s == "completed" })
	waitText(t, ctx, `#step-1 details.sent > summary`, func(s string) bool { return s == "messages as sent (2) and reply" })
	// Clicked in one evaluation: a live refresh may swap the timeline (keeping its folds) at any time.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#step-1 details.sent > summary").click(); true`))
	require.NoError(t, err)
	do(t, ctx, chromedp.WaitVisible(`#step-1 details.sent ol.sent`))
	sent, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#step-1 details.sent ol.sent > li")).map(li => li.querySelector(".k").textContent + ": " + li.querySelector("pre.text").textContent)`))
	require.NoError(t, err)
	assert.Equal(t, []string{"system: You name <b>books</b>.\n", "user: Name a book about lamps & <wicks>.\nOne line.\n"}, sent)
	assert.Equal(t, "reply", textOf(t, ctx, `#step-1 details.sent .reply > .k`))
	assert.Equal(t, "\"Hand-lit\" <i>&</i>\nA history", textOf(t, ctx, `#step-1 details.sent .reply pre.text`))
	scroll, view := pageWidths(t, ctx)
	assert.LessOrEqual(t, scroll, view, "the expanded model call is wider than the viewport")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#timeline").scrollIntoView({block: "start"}); true`))
	require.NoError(t, err)
	screenshotView(t, ctx, filepath.Join(img, "console-model-call.png"))

	// A 120 KB reply and a 10,000-step run stay inside the viewport's width.
	big := strings.Repeat("<b>unbroken_reply_text_", 6000)[:120<<10] + "\nlast line"
	wide := writeRun(t, root, 3, big)
	long := writeRun(t, root, 10000, "")
	for _, page := range []string{"/runs/" + wide, "/runs/" + long, "/", "/specs", "/spec?path=loop.yaml"} {
		do(t, ctx, chromedp.Navigate(base+page), chromedp.WaitVisible(`main`))
		scroll, view := pageWidths(t, ctx)
		assert.LessOrEqual(t, scroll, view, "%s is wider than the viewport", page)
	}
	do(t, ctx, chromedp.Navigate(base+"/specs"), chromedp.WaitVisible(`table.specs`))
	screenshot(t, ctx, filepath.Join(img, "console-specs.png"))
	do(t, ctx, chromedp.Navigate(base+"/runs/"+wide), chromedp.WaitVisible(`#context`))
	screenshotView(t, ctx, filepath.Join(img, "console-run-long-value.png"))
	shownReply, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#context .capped pre.text").textContent`))
	require.NoError(t, err)
	assert.Equal(t, []rune(big)[:2000], []rune(shownReply), "a long string shows its first 2,000 characters as text, unescaped")
	clickJS(t, ctx, `#context details.more > summary`)
	scroll, view = pageWidths(t, ctx)
	assert.LessOrEqual(t, scroll, view, "the expanded 120 KB reply is wider than the viewport")
	// A live refresh keeps each fold as the person left it: the reply
	// opened stays open, the step's memory changes closed stay closed.
	folds := `[document.querySelector("#context details.more").open, document.querySelector("#step-1 > td > details").open]`
	foldsBefore, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](folds))
	require.NoError(t, err)
	require.Equal(t, []bool{true, false}, foldsBefore)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.refreshed = false; refresh().then(() => { window.refreshed = true }); true`))
	require.NoError(t, err)
	waitText(t, ctx, `body`, func(string) bool {
		done, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.refreshed`))
		return done
	})
	after, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](folds))
	require.NoError(t, err)
	assert.Equal(t, foldsBefore, after, "a refresh changed the folds")

	// The step slider: the context after step 7 of the 10,000 (n counts a's visits).
	do(t, ctx, chromedp.Navigate(base+"/runs/"+long), chromedp.WaitVisible(`#at`))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const r = document.getElementById("at"); r.value = "7"; r.dispatchEvent(new Event("change", {bubbles: true})); return true })()`))
	require.NoError(t, err)
	waitText(t, ctx, `#at-label`, func(s string) bool { return s == "after step 7 of 10000" })
	n, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("#context tr")).find(r => r.querySelector("th").textContent === "n").querySelector("td").textContent.trim()`))
	require.NoError(t, err)
	assert.Equal(t, "4", n, "after step 7, a was entered 4 times")
	do(t, ctx, chromedp.Navigate(base+"/runs/"+long+"?at=7#state"), chromedp.WaitVisible(`#fork`))
	screenshotView(t, ctx, filepath.Join(img, "console-run-slider.png"))

	// Fork from step 7: a new run standing there, recorded as a fork.
	clickJS(t, ctx, `#fork`)
	waitText(t, ctx, `#notice`, func(s string) bool { return strings.HasPrefix(s, "forked from run "+long+" after step 7, in b") })
	assert.Equal(t, long, textOf(t, ctx, `#fork-of`))
	assert.Equal(t, "7", textOf(t, ctx, `#run-steps`))
	assert.Equal(t, "Resume", textOf(t, ctx, `#resume`))
	n, err = chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("#context tr")).find(r => r.querySelector("th").textContent === "n").querySelector("td").textContent.trim()`))
	require.NoError(t, err)
	assert.Equal(t, "4", n, "the fork's context is the run's after step 7")

	// A deleted run's open page says it is gone.
	do(t, ctx, chromedp.Navigate(base+"/runs/"+wide), chromedp.WaitVisible(`#live-dot.on`))
	require.NoError(t, os.RemoveAll(filepath.Join(root, runstore.DefaultDir, wide)))
	do(t, ctx, chromedp.WaitVisible(`#gone`))
	assert.Equal(t, "deleted", textOf(t, ctx, `#run-status`))
}

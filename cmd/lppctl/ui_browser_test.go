package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
	"github.com/lppctl/lppctl/ui"
)

// pausedRun starts the Skills Agent on a fresh copy of hello_skill with its
// scripted replies and no terminal: it pauses for plan approval (exit 4).
// It returns the project root and the run's ID.
func pausedRun(t *testing.T) (root, id string) {
	t.Helper()
	t.Setenv(runstore.EnvDir, "")
	root = newProject(t, "hello_skill")
	t.Chdir(root) // the run records the spec's path as given: specs/skills_agent.yaml
	scriptedRun(t, root, exitPaused)
	runs, err := runstore.New(filepath.Join(root, runstore.DefaultDir)).List()
	if err != nil || len(runs) != 1 {
		t.Fatalf("want one run, got %d (%v)", len(runs), err)
	}
	return root, runs[0].Meta.ID
}

// scriptedRun runs the Skills Agent in root (the current directory) on
// hello_skill with its scripted replies and wants exit code want.
func scriptedRun(t *testing.T, root string, want int, extra ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"lppctl", "run", "--spec", "specs/skills_agent.yaml", "--skill", "skills/hello_skill",
		"--root", root, "--llm", "script:skills/hello_skill/demo.yaml", "-q"}, extra...)
	if code := run(args, strings.NewReader(""), &out, &errb); code != want {
		t.Fatalf("run: exit %d, want %d\n%s%s", code, want, out.String(), errb.String())
	}
}

// lppctlExe is the lppctl that the UI's buttons run as processes of their
// own: this test binary, which TestMain puts on PATH as lppctl.
func lppctlExe(t testing.TB) string {
	t.Helper()
	exe, err := exec.LookPath("lppctl")
	if err != nil {
		t.Fatalf("cannot find lppctl on PATH (TestMain puts it there): %v", err)
	}
	return exe
}

// startUI serves the UI of root on a free loopback port, as lppctl ui does,
// until the test ends; it returns its base URL.
func startUI(t *testing.T, root string) string {
	t.Helper()
	runDir := filepath.Join(root, runstore.DefaultDir)
	srv, err := ui.New(ui.Options{Root: root, RunDir: runDir, Exe: lppctlExe(t), Decide: uiDecide(lppctlExe(t), root, runDir), Check: uiCheck(root), Compile: uiCompile(root), Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUI(ctx, ln, srv) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// browser returns a headless Chromium context, or skips the test when
// Chromium is not installed (fails when LPPCTL_REQUIRE_BROWSER says it must be).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("LPPCTL_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium is not installed (LPPCTL_REQUIRE_BROWSER is set)")
		}
		t.Skip("chromium is not installed: the UI's browser test needs it (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900), // the width of docs/ui.md's screenshots
		// rebind.test resolves to loopback, as a DNS rebinding attack's name would.
		chromedp.Flag("host-resolver-rules", "MAP rebind.test 127.0.0.1"),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 6*time.Minute)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("cannot start chromium: %v", err)
	}
	return ctx
}

// clickLive clicks sel on a live page. The page reads itself again when its
// event stream says hello (app.js live), which replaces the node found
// between finding and clicking it ("Could not find node with given id"):
// such a click, which clicked nothing, is tried again on the new node.
func clickLive(ctx context.Context, sel string) error {
	var err error
	for range 10 {
		err = chromedp.Do(ctx, chromedp.WaitVisible(sel), chromedp.Click(sel))
		if err == nil || !strings.Contains(err.Error(), "Could not find node") {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// TestUIInBrowser drives the UI in headless Chromium: the runs page lists a
// paused scripted run; its page draws the spec as SVG with the current
// state lit; another site's form posting the decision and a rebinding Host
// are refused; clicking Approve completes the run through resume's code
// (its journal holds the approval); an open page follows a run live. With -update it rewrites the README's
// screenshots (docs/img/ui-runs.png, docs/img/ui-run.png).
func TestUIInBrowser(t *testing.T) {
	ctx := browser(t)
	img := filepath.Join(repoRoot(t), "docs", "img") // before pausedRun changes directory
	root, id := pausedRun(t)
	scriptedRun(t, root, exitOK, "--yes") // a completed run beside it
	base := startUI(t, root)

	// The runs page lists the paused run, and the completed one.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`tr[data-run="`+id+`"]`)); err != nil {
		t.Fatal(err)
	}
	if status := pageText(t, ctx, `tr[data-run="`+id+`"] .badge`); status != "paused" {
		t.Errorf("the runs page lists run %s as %q, want paused", id, status)
	}
	if rows := pageText(t, ctx, `table.runs tbody`); strings.Count(rows, "completed") != 1 || strings.Count(rows, "specs/skills_agent.yaml") != 2 {
		t.Errorf("the runs page should list the paused and the completed run:\n%s", rows)
	}
	screenshot(t, ctx, filepath.Join(img, "ui-runs.png"))

	// Its page draws the diagram as SVG (Mermaid's, or Graphviz's in a
	// build without Mermaid), approve_plan lit as current.
	if err := clickLive(ctx, `a[href="/runs/`+id+`"]`); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`#diagram[data-rendered] svg`)); err != nil {
		t.Fatal(err)
	}
	current, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#diagram svg .current")).map(e => (e.querySelector("title") || e).textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	if len(current) != 1 || current[0] != "approve_plan" {
		t.Errorf("the diagram lights %q as current, want [approve_plan]", current)
	}
	screenshot(t, ctx, filepath.Join(img, "ui-run.png"))

	// Another site's page posting the decision form is refused, and so is
	// the UI under another host name (DNS rebinding).
	evil := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<form id="f" method="post" action="` + base + `/runs/` + id + `/decide"><input name="pause_step" value="1"><input name="kind" value="approve"></form>`))
	})}
	eln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go evil.Serve(eln)
	defer evil.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+eln.Addr().String()+"/"), chromedp.Submit(`#f`), chromedp.WaitVisible(`//body[contains(., "Forbidden")]`)); err != nil {
		t.Fatal(err)
	}
	crossSite := pageText(t, ctx, `body`)
	if err := chromedp.Do(ctx, chromedp.Navigate(strings.Replace(base, "127.0.0.1", "rebind.test", 1)+"/runs/"+id), chromedp.WaitVisible(`//body[contains(., "Forbidden")]`)); err != nil {
		t.Fatal(err)
	}
	rebound := pageText(t, ctx, `body`)
	if want := "Forbidden: cross-origin request from Origin \"http://" + eln.Addr().String() + "\""; !strings.Contains(crossSite, want) {
		t.Errorf("another site's form got %q, want %q", crossSite, want)
	}
	if want := "Forbidden: invalid Host header \"rebind.test:"; !strings.Contains(rebound, want) {
		t.Errorf("the rebinding host got %q, want %q", rebound, want)
	}
	if st := runStatusOf(t, root, id); st != "paused" {
		t.Fatalf("after the refused requests the run is %s, want still paused", st)
	}

	// Approve completes the run, and the journal holds the approval.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/runs/"+id)); err != nil {
		t.Fatal(err)
	}
	if err := clickLive(ctx, `#approve`); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.WaitVisible(`//*[@id="notice" or @id="error-message"]`)); err != nil {
		t.Fatalf("no outcome after Approve (%v); the page says:\n%s", err, pageText(t, ctx, "body"))
	}
	// The notice is the resume's outcome, or, when it takes longer than the
	// UI waits (a loaded machine), that the run goes on and the page
	// follows it: then the page shows completed once the run is.
	notice, final := pageText(t, ctx, `#notice`), pageText(t, ctx, `#run-status`)
	following := notice == "decision taken; the run goes on (this page follows it)"
	for deadline := time.Now().Add(30 * time.Second); following && final != "completed" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		final = pageText(t, ctx, `#run-status`)
	}
	if final != "completed" || !following && !strings.Contains(notice, "completed in done") {
		t.Errorf("after Approve the page says %q with notice %q, want completed", final, notice)
	}
	// A page follows a run live: another run, paused, approved on the
	// command line while its page is open, shows completed with its path
	// drawn to done, without a reload.
	scriptedRun(t, root, exitPaused)
	runs, err := runstore.New(filepath.Join(root, runstore.DefaultDir)).List()
	if err != nil || len(runs) != 3 {
		t.Fatalf("want 3 runs, got %d (%v)", len(runs), err)
	}
	other := "" // the new paused one (the first was approved above)
	for _, r := range runs {
		if r.Meta.Status == machine.StatusPaused {
			other = r.Meta.ID
		}
	}
	live, cancelLive := context.WithTimeout(ctx, 60*time.Second)
	defer cancelLive()
	if err := chromedp.Do(live, chromedp.Navigate(base+"/runs/"+other), chromedp.WaitVisible(`#diagram[data-rendered] svg`), chromedp.WaitVisible(`#live-dot.on`)); err != nil {
		t.Fatalf("the run page does not open its live stream: %v", err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"lppctl", "resume", other, "--approve", "-q", "--run-dir", filepath.Join(root, runstore.DefaultDir)}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errb.String())
	}
	if err := chromedp.Do(live, chromedp.WaitVisible(`//span[@id="run-status" and text()="completed"]`), chromedp.WaitVisible(`#step-28`)); err != nil {
		t.Fatalf("the open page did not follow the run (%v):\n%s", err, pageText(t, ctx, "#summary"))
	}

	journal, err := os.ReadFile(filepath.Join(root, runstore.DefaultDir, id, runstore.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(journal, []byte(`"type":"resume"`)) || !bytes.Contains(journal, []byte(`"answer":{"kind":"approve"}`)) || !bytes.Contains(journal, []byte(`"input":{"kind":"approve"}`)) {
		t.Errorf("the journal does not record the approval:\n%s", journal)
	}
}

// pageText returns the text of the element sel selects.
// It reads in one evaluation, as a live page may swap the element between
// two protocol calls, and waits up to 10 s for the element to be there.
func pageText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? [true, e.innerText] : [false, ""] })()`, sel)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](js))
		if err == nil && len(got) == 2 && got[0] == true {
			s, _ := got[1].(string)
			return strings.TrimSpace(s)
		}
		if time.Now().After(deadline) {
			t.Fatalf("cannot read %s: %v", sel, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runStatusOf reads a run's status from its run.json.
func runStatusOf(t *testing.T, root, id string) string {
	t.Helper()
	r, err := runstore.New(filepath.Join(root, runstore.DefaultDir)).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	return string(r.Meta.Status)
}

// screenshotView writes the viewport (1400 × 900) to the PNG file path
// with -update: for pages too long to show whole.
func screenshotView(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if !*updateScripts {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// screenshot writes the page to the PNG file path with -update.
func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if !*updateScripts {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

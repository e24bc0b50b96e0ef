package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestUISpecCheckInBrowser drives the Spec page in headless Chromium: a spec
// of the model checker's corpus with a seeded deadlock (review → retry,
// where no event's guard holds) is listed, Check finds the deadlock, and the
// diagram draws the counterexample as SVG: review on its path, retry lit as
// where it fails, the transition between them highlighted.
func TestUISpecCheckInBrowser(t *testing.T) {
	ctx := browser(t)
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "machine", "testdata", "check", "wait_payload_dead_end.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "specs", "dead.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	base := startUI(t, root)

	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(wait, chromedp.Navigate(base+"/specs"), chromedp.Click(`a[href="/spec?path=specs%2fdead.yaml"]`),
		chromedp.WaitVisible(`#check-button`), chromedp.Click(`#check-button`),
		chromedp.WaitVisible(`#check-result`), chromedp.WaitVisible(`#diagram[data-rendered] svg`)); err != nil {
		t.Fatalf("cannot check the spec (%v):\n%s", err, pageText(t, ctx, "body"))
	}
	if got := pageText(t, ctx, `#prop-deadlock`); !strings.HasPrefix(got, "FAIL") || !strings.Contains(got, "specs/dead.yaml:15:3: state \"retry\" is stuck") ||
		!strings.Contains(got, "review → retry specs/dead.yaml:14:11 event VERDICT {score: 0}") {
		t.Errorf("the deadlock's verdict reads %q", got)
	}
	lit := func(class string) []string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#diagram svg .node.`+class+`")).map(e => (e.querySelector("title") || e).textContent.trim())`))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	visited, current := lit("visited"), lit("current")
	// Mermaid lights retry as visited and current; Graphviz as current only.
	if len(current) != 1 || current[0] != "retry" || !slices.Contains(visited, "review") || slices.ContainsFunc(visited, func(s string) bool { return s != "review" && s != "retry" }) {
		t.Errorf("the counterexample lights %q as its path and %q as current, want review (and retry), and retry", visited, current)
	}
	edges, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll("#diagram svg .edge path, #diagram svg path.flowchart-link")).filter(p => /#1e8449|rgb\(30, 132, 73\)/i.test((p.getAttribute("style") || "") + " " + (p.getAttribute("stroke") || ""))).length`))
	if err != nil {
		t.Fatal(err)
	}
	if edges != 2 { // the start's arrow to review, and review → retry
		t.Errorf("%d transitions are highlighted in the SVG, want the counterexample's 2", edges)
	}
}

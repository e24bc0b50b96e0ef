package export

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// renderResult is what the page reports for one diagram.
type renderResult struct {
	Error  string   `json:"error"`
	Labels []string `json:"labels"` // text of every rendered edge label
	Nodes  []string `json:"nodes"`  // text of every rendered node (state, note)
	Text   string   `json:"text"`   // all the text of the diagram
}

// TestExportedMermaidRendersInChromium renders every exported diagram with
// the real Mermaid library in headless Chromium (when both are installed) and
// checks that it renders and that every edge label shows exactly the text
// its source asks for. Parsing alone does not catch a label cut short (a raw
// ";" ends a state-diagram statement) or entity placeholders ("ﬂ°quot¶ß").
func TestExportedMermaidRendersInChromium(t *testing.T) {
	names, diagrams := renderCorpus(t)
	results := renderMermaid(t, diagrams)
	for i, r := range results {
		if r.Error != "" {
			t.Errorf("%s: Mermaid cannot render it: %s", names[i], r.Error)
			continue
		}
		want := expectedLabels(diagrams[i])
		got := append([]string(nil), r.Labels...)
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: rendered edge labels differ from the source\n got: %q\nwant: %q", names[i], got, want)
		}
		for _, l := range r.Labels {
			if strings.ContainsAny(l, "ﬂ¶") {
				t.Errorf("%s: label rendered with entity placeholders: %q", names[i], l)
			}
		}
	}
}

// renderMermaid renders diagrams with the real Mermaid library in headless
// Chromium and returns one result per diagram. It skips the test when
// Chromium or Mermaid is not installed (fails instead when
// LPPCTL_REQUIRE_BROWSER or LPPCTL_REQUIRE_RENDERERS says they must be).
func renderMermaid(t *testing.T, diagrams []string) []renderResult {
	t.Helper()
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("LPPCTL_REQUIRE_BROWSER") != "" {
			t.Fatal("chromium is not installed (LPPCTL_REQUIRE_BROWSER is set)")
		}
		t.Skip("chromium is not installed")
	}
	lib, err := filepath.Abs("testdata/mermaid/node_modules/mermaid/dist/mermaid.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		skipRenderer(t, "mermaid is not installed: cd machine/testdata/mermaid && npm ci")
	}
	page := filepath.Join(t.TempDir(), "render.html")
	src, _ := json.Marshal(diagrams)
	html := `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="file://` + lib + `"></script></head>
<body><pre id="out">pending</pre><script>
const diagrams = ` + string(src) + `;
mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
(async () => {
  const res = [];
  const text = e => e.textContent.replace(/\s+/g, " ").trim();
  for (let i = 0; i < diagrams.length; i++) {
    try {
      const {svg} = await mermaid.render("d" + i, diagrams[i]);
      const div = document.createElement("div");
      div.innerHTML = svg;
      document.body.appendChild(div);
      const labels = Array.from(div.querySelectorAll("g.edgeLabel")).map(text).filter(t => t);
      const nodes = Array.from(div.querySelectorAll("g.node")).map(text).filter(t => t);
      res.push({error: "", labels, nodes, text: text(div)});
      div.remove();
    } catch (e) {
      res.push({error: String(e.message || e), labels: []});
    }
  }
  document.getElementById("out").textContent = btoa(unescape(encodeURIComponent(JSON.stringify(res))));
})();
</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--allow-file-access-from-files", "--virtual-time-budget=120000",
		"--dump-dom", "file://"+page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<pre id="out">([A-Za-z0-9+/=]+)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the page did not finish rendering:\n%.2000s", out)
	}
	raw, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	var results []renderResult
	if err := json.Unmarshal(raw, &results); err != nil || len(results) != len(diagrams) {
		t.Fatalf("cannot read results (%v): %s", err, raw)
	}
	return results
}

var (
	stateEdgeRE  = regexp.MustCompile(`(?m)^\s+\S+ --> \S+ : (.*)$`)
	flowEdgeRE   = regexp.MustCompile(`(?m)^\s+\S+ (?:-->|-\.->|==>)\|"(.*?)"\|`)
	mermaidEntRE = regexp.MustCompile(`#(\w+);`)
)

// expectedLabels returns the edge labels a diagram's source asks for, as a
// reader should see them: Mermaid entity codes and HTML entities decoded.
func expectedLabels(src string) []string {
	decode := func(s string) string {
		s = mermaidEntRE.ReplaceAllStringFunc(s, func(m string) string {
			code := m[1 : len(m)-1]
			if code[0] >= '0' && code[0] <= '9' {
				return "&#" + code + ";"
			}
			return "&" + code + ";"
		})
		return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
	}
	var out []string
	for _, m := range stateEdgeRE.FindAllStringSubmatch(src, -1) {
		out = append(out, decode(m[1]))
	}
	for _, m := range flowEdgeRE.FindAllStringSubmatch(src, -1) {
		out = append(out, decode(m[1]))
	}
	return out
}

// renderCorpus returns the golden diagrams and every spec of the project
// exported in both Mermaid formats.
func renderCorpus(t *testing.T) (names, diagrams []string) {
	files, _ := filepath.Glob("testdata/export/*.mmd")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		names, diagrams = append(names, f), append(diagrams, string(b))
	}
	specs, _ := filepath.Glob("../../specs/*.yaml")
	more, _ := filepath.Glob("../../specs/*/*.yaml")
	if len(specs) == 0 {
		t.Fatal("no project specs under ../../specs")
	}
	for _, path := range append(specs, more...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := mspec.Parse(path, src)
		if spec == nil {
			continue
		}
		for _, format := range []string{"mermaid", "mermaid-flowchart"} {
			out, err := Export(spec, format, ExportOptions{ShowSet: true, Path: spec.StateNames()})
			if err != nil {
				t.Fatal(err)
			}
			names, diagrams = append(names, fmt.Sprintf("%s (%s)", path, format)), append(diagrams, string(out))
		}
	}
	return names, diagrams
}

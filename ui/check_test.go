package ui

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// writeFiles writes files (slash paths → content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// corpus reads a spec of the model checker's seeded-defect corpus.
func corpus(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "machine", "testdata", "check", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// twoFailures fails deadlock (retry is stuck) and an invariant (done is
// reached with a score of 50 or more).
const twoFailures = `lpp: 1
name: two_failures
context:
  score: {type: int, default: 0}
invariants:
  low: {expr: score < 50, in: [done]}
initial: review
states:
  review:
    on:
      VERDICT:
        - {to: done, when: event.payload.score >= 50, set: {score: event.payload.score}}
        - {to: retry}
  retry:
    next:
      - {to: done, when: score > 100}
  done: {final: true}
events:
  VERDICT:
    payload:
      score: int
`

func TestSpecPageCheckShowsVerdictsAndCounterexamples(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.mermaid = true
	writeFiles(t, f.root, map[string]string{"specs/dead.yaml": corpus(t, "wait_payload_dead_end.yaml")})

	plain := f.do("GET", "/spec?path=specs/dead.yaml", "").Body.String()
	for _, want := range []string{`<button type="submit" id="check-button" class="go">Check</button>`, `<input type="hidden" name="path" value="specs/dead.yaml">`} {
		if !strings.Contains(plain, want) {
			t.Errorf("the spec page lacks %s", want)
		}
	}
	if strings.Contains(plain, `id="check-result"`) || strings.Contains(plain, "class review") {
		t.Errorf("the spec page checks before Check is clicked")
	}

	w := f.do("GET", "/spec?path=specs/dead.yaml&check=1", "")
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("%d: %s", w.Code, body)
	}
	for _, want := range []string{
		`<p class="err" id="check-summary">a property fails: 3 (state, context) pairs, 9 transitions, depth 1, `,
		`<tr id="prop-deadlock" class="verdict-FAIL"><td><span class="badge v-FAIL">FAIL</span></td><td>no deadlock</td>`,
		`<td><code>specs/dead.yaml:15:3</code>: state &#34;retry&#34; is stuck: it waits for an event, and no event&#39;s guard holds`,
		`<b>shortest counterexample (2 steps)</b> <span class="badge drawn">drawn below</span>`,
		`<li><b>review → retry</b> <code>specs/dead.yaml:14:11</code> event VERDICT {score: 0}</li><li><b>retry</b> stops here</li>`,
		`<tr id="prop-reachable" class="verdict-PASS"><td><span class="badge v-PASS">PASS</span></td><td>every state reachable</td>`,
		`<small>the counterexample of “no deadlock”</small>`,
		// the trace drawn as a flowchart: its states and transitions (the
		// start, review → retry: links 0 and 2) lit, the stuck state as current
		"<pre class=\"mermaid-src\" hidden>flowchart TD\n",
		"    n_review ==&gt;|&#34;VERDICT&#34;| n_retry\n",
		"    class n_review,n_retry visited\n",
		"    linkStyle 0,2 stroke:#1e8449,stroke-width:3px\n",
		"    class n_retry current\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the checked spec page lacks %q", want)
		}
	}
}

func TestSpecPageCheckDrawsTheCounterexampleAsked(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.mermaid = true
	writeFiles(t, f.root, map[string]string{"specs/two.yaml": twoFailures})
	tests := []struct {
		query, drawn, current string
	}{
		{"", "no deadlock", "retry"}, // the first FAIL by default
		{"&cex=deadlock", "no deadlock", "retry"},
		{"&cex=invariants", "invariants", "done"},
		{"&cex=nosuch", "no deadlock", "retry"},
	}
	for _, tt := range tests {
		body := f.do("GET", "/spec?path=specs/two.yaml&check=1"+tt.query, "").Body.String()
		if !strings.Contains(body, "<small>the counterexample of “"+tt.drawn+"”</small>") || !strings.Contains(body, "    class n_"+tt.current+" current\n") {
			t.Errorf("%q: want the counterexample of %s drawn, %s current:\n%s", tt.query, tt.drawn, tt.current, body)
		}
	}
	body := f.do("GET", "/spec?path=specs/two.yaml&check=1", "").Body.String()
	if want := `<a class="draw" href="/spec?cex=invariants&amp;check=1&amp;path=specs%2Ftwo.yaml#graph">draw it on the diagram</a>`; !strings.Contains(body, want) {
		t.Errorf("the second FAIL has no link to draw it: want %s in\n%s", want, body)
	}
}

func TestSpecPageCheckIsBounded(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		busy    bool
		want    string
		verdict string
	}{
		{"max states", Options{CheckMaxStates: 100}, false,
			`<p class="warn" id="check-stopped">stopped early: max-states: 100 distinct (state, context) pairs explored; raise --max-states</p>`, "UNKNOWN"},
		// not "no property fails" in green while verdicts are UNKNOWN
		{"max states, undecided", Options{CheckMaxStates: 100}, false,
			`<p class="warn" id="check-summary">undecided: the check stopped early; 5 of 7 properties are UNKNOWN (no deadlock, every state reachable, termination (no trap), bounds (ranges, max_transitions), expressions evaluate), none fails in what it explored: 100 (state, context) pairs, `, "UNKNOWN"},
		{"time limit", Options{CheckTimeout: time.Nanosecond}, false,
			`<p class="warn" id="check-stopped">stopped early: the UI&#39;s time limit of 1ns ran out (lppctl ui --check-timeout raises it; lppctl check specs/loop.yaml has none)</p>`, "UNKNOWN"},
		{"busy", Options{CheckTimeout: 20 * time.Millisecond}, true,
			`<p class="err" id="check-error">cannot check specs/loop.yaml: another check kept the checker busy for 20ms; try again</p>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.opts)
			writeFiles(t, f.root, map[string]string{"specs/loop.yaml": loopSpec})
			if tt.busy {
				f.srv.checks <- struct{}{}
			}
			body := f.do("GET", "/spec?path=specs/loop.yaml&check=1", "").Body.String()
			if !strings.Contains(body, tt.want) {
				t.Errorf("want %s in\n%s", tt.want, body)
			}
			if tt.verdict != "" && !strings.Contains(body, `<tr id="prop-deadlock" class="verdict-`+tt.verdict+`">`) {
				t.Errorf("want deadlock %s", tt.verdict)
			}
		})
	}
}

func TestSpecPageCheckRefusesAnInvalidSpec(t *testing.T) {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{"specs/bad.yaml": strings.Replace(loopSpec, "next: a", "next: aa", 1)})
	body := f.do("GET", "/spec?path=specs/bad.yaml&check=1", "").Body.String()
	if want := `<p class="err" id="check-error">cannot check specs/bad.yaml: the spec has 1 error: fix them (see above), then check again</p>`; !strings.Contains(body, want) {
		t.Errorf("want %s in\n%s", want, body)
	}
}

func TestSpecPageCheckUsesTheCompileOption(t *testing.T) {
	var compiled []string
	f := newFixture(t, Options{
		Check: func(path string, src []byte) (*mspec.Spec, mspec.Diagnostics) {
			return validate.Check(path, src, countRegistry(), validate.WithoutFiles())
		},
		Compile: func(spec *mspec.Spec) (*machine.Machine, error) {
			compiled = append(compiled, spec.Name)
			return machine.Compile(spec, countRegistry())
		},
	})
	f.srv.mermaid = true
	writeFiles(t, f.root, map[string]string{"specs/two.yaml": corpus(t, "deadlock_two_counters.yaml")})
	body := f.do("GET", "/spec?path=specs/two.yaml&check=1", "").Body.String()
	if len(compiled) != 1 || compiled[0] != "deadlock_two_counters" {
		t.Errorf("Options.Compile compiled %q, want the spec once", compiled)
	}
	for _, want := range []string{
		`<li><b>round → round</b> <code>specs/two.yaml:15:9</code> next[1]; wrote n=0; set i=1</li>`,
		`<li><b>round → split</b> <code>specs/two.yaml:14:9</code> next[0] when i &gt;= 2; wrote n=1; set i=2</li>`,
		`<li><b>split</b> stops here</li>`,
		`<li><code>specs/two.yaml:18:9: state &#34;split&#34; next[0] → done, when i != 2</code></li>`,
		`<li><code>n ∈ {0, 1, 2} (range)</code></li>`,
		"    class n_round,n_split visited\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the checked spec page lacks %s", want)
		}
	}
}

// countRegistry has the count action of the checker's corpus.
func countRegistry() *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "count", Run: func(context.Context, *machine.Call) error { return nil }, Writes: []machine.VarSpec{{Name: "n", Type: mspec.TypeInt}}})
	return reg
}

func TestCounterexampleWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("LPPCTL_REQUIRE_RENDERERS") != "" {
			t.Fatal("Graphviz is not installed (LPPCTL_REQUIRE_RENDERERS is set)")
		}
		t.Skip("Graphviz is not installed")
	}
	f := newFixture(t, Options{Dot: dot})
	f.srv.mermaid = false
	writeFiles(t, f.root, map[string]string{"specs/dead.yaml": corpus(t, "wait_payload_dead_end.yaml")})
	body := f.do("GET", "/spec?path=specs/dead.yaml&check=1", "").Body.String()
	for _, re := range []string{
		`<g id="node\d+" class="node visited">\s*<title>review</title>`,
		`<g id="node\d+" class="node current">\s*<title>retry</title>`,
	} {
		if !regexp.MustCompile(re).MatchString(body) {
			t.Errorf("Graphviz's SVG lacks %s:\n%s", re, body)
		}
	}
}

func TestDotVisited(t *testing.T) {
	src := []byte("digraph x {\n    a;\n}\n")
	got := string(dotVisited(src, []string{"a", `b"c`, "a", "d"}, "d"))
	want := "digraph x {\n    a;\n    \"a\" [class=\"visited\"];\n    \"b\\\"c\" [class=\"visited\"];\n}\n"
	if got != want {
		t.Errorf("dotVisited = %q, want %q", got, want)
	}
	if got := string(dotVisited(src, nil, "")); got != string(src) {
		t.Errorf("no path: %q", got)
	}
}

// TestACheckIsNotStartedByAnotherSite: another site's page (an <img>, a
// link) does not start a model check; the UI's own Check button, a typed URL
// and a client without Sec-Fetch-Site do.
func TestACheckIsNotStartedByAnotherSite(t *testing.T) {
	f := newFixture(t, Options{})
	writeFiles(t, f.root, map[string]string{"specs/loop.yaml": loopSpec})
	tests := []struct {
		site    string
		code    int
		checked bool
	}{
		{"cross-site", http.StatusForbidden, false},
		{"same-site", http.StatusForbidden, false}, // another port of localhost
		{"same-origin", http.StatusOK, true},
		{"none", http.StatusOK, true},
		{"", http.StatusOK, true},
	}
	for _, tt := range tests {
		t.Run(tt.site, func(t *testing.T) {
			var hdr []string
			if tt.site != "" {
				hdr = []string{"Sec-Fetch-Site", tt.site}
			}
			w := f.do("GET", "/spec?path=specs/loop.yaml&check=1", "", hdr...)
			assert.Equal(t, tt.code, w.Code)
			body := w.Body.String()
			assert.Equal(t, tt.checked, strings.Contains(body, `id="check-summary"`))
			if !tt.checked {
				assert.Contains(t, body, `<p class="err" id="check-error">cannot check specs/loop.yaml: the request came from another site (Sec-Fetch-Site: `+tt.site+`); press Check on this page to run it</p>`)
				assert.Contains(t, body, `<button type="submit" id="check-button" class="go">Check</button>`)
			}
		})
	}
}

package check_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// declaredFailures reads the "# fails: a, b" header line of a corpus spec.
func declaredFailures(t *testing.T, file string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(src)) {
		if rest, ok := strings.CutPrefix(line, "# fails:"); ok {
			var out []string
			for p := range strings.SplitSeq(rest, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
			slices.Sort(out)
			return out
		}
	}
	t.Fatalf("%s has no \"# fails: PROPERTY\" header", file)
	return nil
}

// TestCheckCorpusFindsSeededDefects checks every spec of the seeded-defect
// corpus: exactly the properties its header names fail, and the whole report
// (shortest counterexamples with positions) matches its golden file.
func TestCheckCorpusFindsSeededDefects(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("want at least 20 seeded-defect specs, got %d (%v)", len(files), err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			m := spectest.SpecFile(t, file)
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			var failed []string
			for _, p := range r.Properties {
				if p.Verdict == check.Fail {
					failed = append(failed, p.Property)
				}
			}
			slices.Sort(failed)
			if want := declaredFailures(t, file); !slices.Equal(failed, want) {
				t.Errorf("failed properties = %v, want %v\n%s", failed, want, report.Text(r, report.Options{NoTimes: true}))
			}
			if !r.Complete || r.Unknowns() > 0 {
				t.Errorf("the check did not complete: %s", r.Stopped)
			}
			spectest.Golden(t, strings.TrimSuffix(file, ".yaml")+".golden", []byte(report.Text(r, report.Options{NoTimes: true})))
		})
	}
}

// TestModelCheckStoppedEarlyDecidesNothingItDidNotSee: a check stopped by
// MaxStates reports UNKNOWN, never a trap at the pair it was expanding; the
// properties the spec declares nothing for (invariants, final_requires)
// pass vacuously.
func TestModelCheckStoppedEarlyDecidesNothingItDidNotSee(t *testing.T) {
	m := spectest.Compile(t, `lpp: 1
name: long
limits: {max_transitions: 1000}
context:
  i: {type: int, default: 0}
initial: a
states:
  a:
    set: {i: i + 1}
    next:
      - {to: done, when: i >= 500}
      - {to: a}
  done: {final: true}
`, nil)
	tests := []struct {
		name      string
		maxStates int
		want      check.Verdict
		stopped   string
	}{
		{"stopped at max-states", 10, check.Unknown, "max-states: 10 distinct (state, context) pairs explored; raise --max-states"},
		{"complete", 0, check.Pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: tt.maxStates})
			if r.Stopped != tt.stopped {
				t.Errorf("stopped = %q, want %q", r.Stopped, tt.stopped)
			}
			for _, p := range r.Properties {
				want := tt.want
				if p.Property == check.PropInvariants || p.Property == check.PropFinalRequires {
					want = check.Pass
					if p.Message != "none declared" {
						t.Errorf("%s: %s %q, want the note \"none declared\"", p.Property, p.Verdict, p.Message)
					}
				}
				if p.Verdict != want {
					t.Errorf("%s: %s %s, want %s", p.Property, p.Verdict, p.Message, want)
				}
			}
			if tt.maxStates > 0 && r.Stats.States > tt.maxStates {
				t.Errorf("explored %d states, more than the bound %d", r.Stats.States, tt.maxStates)
			}
		})
	}
}

// TestModelCheckInterruptedIsPartial: a cancelled context stops the check
// with UNKNOWN verdicts and statistics of what was explored.
func TestModelCheckInterruptedIsPartial(t *testing.T) {
	m := spectest.Compile(t, genCheckSpec(20, 4, 3), spectest.Registry())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := check.ModelCheck(ctx, m, check.CheckOptions{})
	if r.Stopped != "interrupted" || r.Complete || r.Unknowns() == 0 {
		t.Fatalf("stopped = %q, complete = %v, unknowns = %d", r.Stopped, r.Complete, r.Unknowns())
	}
	if r.Stats.States < 1 {
		t.Errorf("no partial statistics: %+v", r.Stats)
	}
	if !r.Passed() {
		t.Errorf("an interrupted check failed a property:\n%s", report.Text(r, report.Options{NoTimes: true}))
	}
}

// TestModelCheckIgnoresCountersNoVerdictReads: a counter only its own set
// reads does not multiply the pairs (cone of influence), but one a guard
// reads, or one with a range, is tracked.
func TestModelCheckIgnoresCountersNoVerdictReads(t *testing.T) {
	spec := func(counter, guard string) string {
		return `lpp: 1
name: loop
limits: {max_transitions: 200}
context:
  ok: {type: bool, default: false}
  calls: ` + counter + `
initial: work
states:
  work:
    do: flag
    set: {calls: calls + 1}
    next:
      - {to: done, when: ` + guard + `}
      - {to: work}
  done: {final: true}
`
	}
	tests := []struct {
		name    string
		src     string
		states  int
		failing string // a property that must fail, or ""
	}{
		{"only its own set reads it", spec("{type: int, default: 0}", "ok"), 2, ""},
		{"a guard reads it", spec("{type: int, default: 0}", "ok || calls >= 5"), 6, ""},
		{"it has a range", spec("{type: int, default: 0, range: [0, 3]}", "ok"), 5, check.PropBounds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := spectest.Compile(t, tt.src, spectest.Registry())
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			if r.Stats.States != tt.states {
				t.Errorf("explored %d states, want %d\n%s", r.Stats.States, tt.states, report.Text(r, report.Options{NoTimes: true}))
			}
			for _, p := range r.Properties {
				if want := p.Property == tt.failing; (p.Verdict == check.Fail) != want {
					t.Errorf("%s: %s %s", p.Property, p.Verdict, p.Message)
				}
			}
		})
	}
}

// TestModelCheckDoesNotPassOnValuesItDidNotTry: a range wider than the values
// the check gives one write, or an event whose payloads were sampled, leaves
// values untried; a property those values could break is UNKNOWN, never
// PASS, and a FAIL found on the values tried stays a FAIL.
func TestModelCheckDoesNotPassOnValuesItDidNotTry(t *testing.T) {
	spec := func(rng, inv string) string {
		return `lpp: 1
name: wide
context:
  n: {type: int, default: 0, range: ` + rng + `}
invariants:
  small: ` + inv + `
initial: a
states:
  a:
    do: count
    next: done
  done: {final: true}
`
	}
	tests := []struct {
		name    string
		src     string
		verdict check.Verdict // of the invariant
		message string
	}{
		{"a range the check covers", spec("[0, 1023]", "n < 2000"), check.Pass, "1 invariant holds"},
		{"a range wider than the check covers", spec("[0, 100000]", "n < 2000"), check.Unknown,
			"not every value was tried (n: the first 1024 of the 100001 values of its range); narrow the range to decide it"},
		{"a failure among the values tried", spec("[0, 100000]", "n < 10"), check.Fail, ""},
		{"an event with more payloads than the check tries", strings.Replace(spec("[0, 3]", "n < 2000"), "    next: done\n",
			"    on:\n      GO: {to: done, when: 'event.payload.a || event.payload.b || event.payload.c || event.payload.d || event.payload.e || event.payload.f || event.payload.g'}\n", 1) +
			"events:\n  GO: {payload: {a: bool, b: bool, c: bool, d: bool, e: bool, f: bool, g: bool}}\n",
			check.Unknown, "not every value was tried (event GO: the first 64 of its payloads); narrow the ranges, or the payload fields' values, to decide it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := spectest.Compile(t, tt.src, spectest.Registry())
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			for _, p := range r.Properties {
				if p.Property != check.PropInvariants {
					continue
				}
				if p.Verdict != tt.verdict || (tt.message != "" && p.Message != tt.message) {
					t.Errorf("invariants: %s %q, want %s %q", p.Verdict, p.Message, tt.verdict, tt.message)
				}
			}
		})
	}
}

// A run may enter a final state with its last allowed transition (see
// budget.go); the check agrees with the run instead of failing bounds.
func TestModelCheckLetsTheLastTransitionEnterAFinalState(t *testing.T) {
	const spec = `lpp: 1
name: exact
limits: {max_transitions: %d}
initial: a
states:
  a: {next: b}
  b: {next: done}
  done: {final: true}
`
	for _, tt := range []struct {
		budget int
		want   check.Verdict
	}{{2, check.Pass}, {1, check.Fail}} {
		m := spectest.Compile(t, fmt.Sprintf(spec, tt.budget), nil)
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{})
		if got := r.Property(check.PropBounds).Verdict; got != tt.want {
			t.Errorf("max_transitions %d: bounds %v, want %v\n%s", tt.budget, got, tt.want, report.Text(r, report.Options{NoTimes: true}))
		}
	}
}

package check_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/validate"
)

// FuzzModelCheck checks every valid spec the fuzzer makes from the
// seeded-defect corpus, at small bounds: the check never panics, every FAIL
// says what and where, every counterexample starts in the initial state
// and is no longer than the exploration went deep, and the report is the
// one of a check that evaluates every expression with expr (compiled
// evaluation decides nothing differently).
func FuzzModelCheck(f *testing.F) {
	files, _ := filepath.Glob("testdata/check/*.yaml")
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src)
		}
	}
	reg := spectest.Registry()
	f.Fuzz(func(t *testing.T, src []byte) {
		spec, diags := validate.Check("fuzz.yaml", src, reg, validate.WithoutFiles())
		if spec == nil || diags.HasErrors() {
			return
		}
		m, err := machine.Compile(spec, reg)
		if err != nil {
			return
		}
		r := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: 2000, MaxDepth: 40})
		if r.Stats.States > 2000 {
			t.Fatalf("explored %d states, over the bound 2000", r.Stats.States)
		}
		text := report.Text(r, report.Options{NoTimes: true})
		slow := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: 2000, MaxDepth: 40, Interpreted: true})
		if got := report.Text(slow, report.Options{NoTimes: true}); got != text {
			t.Fatalf("compiled and interpreted evaluation disagree:\n--- compiled\n%s\n--- interpreted\n%s", text, got)
		}
		for _, p := range r.Properties {
			if p.Verdict != check.Fail {
				continue
			}
			if p.Message == "" {
				t.Errorf("%s fails with no message", p.Property)
			}
			if p.Trace == nil || p.Property == check.PropReachable {
				continue
			}
			if got := p.Trace.States(); len(got) > 0 && got[0] != spec.Initial {
				t.Errorf("%s: the counterexample starts in %q, not the initial state %q", p.Property, got[0], spec.Initial)
			}
			if len(p.Trace.Steps) > r.Stats.Depth+1 {
				t.Errorf("%s: a counterexample of %d steps, deeper than the exploration (%d)", p.Property, len(p.Trace.Steps), r.Stats.Depth)
			}
		}
	})
}

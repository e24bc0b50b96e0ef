package check_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestTrapSearchForwardPassesAgreeWithReverseEdges: the trap search marks
// the pairs that can reach a final state by passes over the forward edges,
// falling back to reverse edges when the passes run out; whatever the bound
// (0: reverse edges only, 1: a pass then the fallback on what it marked), the
// report is the one of the reverse-edge search, traps and counterexamples
// included.
func TestTrapSearchForwardPassesAgreeWithReverseEdges(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.yaml")
	require.NoError(t, err)
	specs := map[string]func(t *testing.T) *check.CheckReport{}
	for _, file := range files {
		specs[filepath.Base(file)] = func(t *testing.T) *check.CheckReport {
			return check.ModelCheck(context.Background(), spectest.SpecFile(t, file), check.CheckOptions{})
		}
	}
	specs["generated"] = func(t *testing.T) *check.CheckReport {
		m := spectest.Compile(t, genCheckSpec(5, 2, 3), spectest.Registry())
		return check.ModelCheck(context.Background(), m, check.CheckOptions{})
	}
	old := *check.TrapForwardPasses
	defer func() { *check.TrapForwardPasses = old }()
	for name, run := range specs {
		t.Run(name, func(t *testing.T) {
			*check.TrapForwardPasses = 0
			want := report.Text(run(t), report.Options{NoTimes: true})
			for _, passes := range []int{1, 2, old} {
				*check.TrapForwardPasses = passes
				require.Equal(t, want, report.Text(run(t), report.Options{NoTimes: true}), "forward passes: %d", passes)
			}
		})
	}
}

// TestATrapsCounterexampleHighlightsThePathAndTheCycle: the states a trap's
// counterexample goes through (what --counterexample-format mermaid
// highlights) are those of its steps and of the cycle it names, even when
// the run is trapped from its first pair.
func TestATrapsCounterexampleHighlightsThePathAndTheCycle(t *testing.T) {
	r := check.ModelCheck(context.Background(), spectest.SpecFile(t, "testdata/check/trap_from_initial.yaml"), check.CheckOptions{})
	for _, p := range r.Properties {
		if p.Property == check.PropTermination {
			require.Equal(t, []string{"start", "p", "p", "q", "p"}, p.Trace.States())
			return
		}
	}
	t.Fatal("no termination property")
}

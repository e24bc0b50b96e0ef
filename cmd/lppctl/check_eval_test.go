package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
)

// TestCheckCompiledEvaluationAgreesWithExpr: lppctl check evaluates the
// guards and sets it can compile as Go closures (machine/check's
// check_fast.go) and the rest with expr. Checked both ways (the second with
// CheckOptions.Interpreted: every expression in expr, as the run evaluates
// it), every spec of the repository, bench/spin's 100,000-pair models and
// the real L++ blueprints give the same report: the same pairs,
// transitions, verdicts and counterexamples (machine/check's
// TestCompiledEvaluationKeepsTheCorpusReports does the seeded-defect corpus).
func TestCheckCompiledEvaluationAgreesWithExpr(t *testing.T) {
	t.Parallel() // no environment, no working directory: each spec is checked on its own
	root := repoRoot(t)
	var files []string
	for _, glob := range []string{"specs/*.yaml", "specs/*/*.yaml", "specs/*/*/*.yaml", "bench/spin/gen-1e5*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 10)
	files = append(files, lppRealFiles(t)...)
	reg, err := buildRegistry(agentConfig{}, nil)
	require.NoError(t, err)
	compiled := 0
	for _, path := range files {
		name, _ := filepath.Rel(root, path)
		if lppRealRefused[filepath.Base(path)] {
			continue
		}
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		spec, diags, _, err := checkInput(path, src, reg)
		if err != nil || spec == nil || diags.HasErrors() {
			continue // not a spec (a demo's inputs) or refused on purpose
		}
		m, err := machine.Compile(spec, reg)
		if err != nil {
			continue
		}
		compiled++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fast := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: 200000})
			slow := check.ModelCheck(context.Background(), m, check.CheckOptions{MaxStates: 200000, Interpreted: true})
			assert.Equal(t, slow.Stats.States, fast.Stats.States, "pairs")
			assert.Equal(t, slow.Stats.Transitions, fast.Stats.Transitions, "transitions")
			assert.Equal(t, report.Text(slow, report.Options{NoTimes: true}), report.Text(fast, report.Options{NoTimes: true}))
		})
	}
	require.GreaterOrEqual(t, compiled, 7, "specs checked both ways")
}

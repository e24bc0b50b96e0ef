package check_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
)

// TestCompiledEvaluationKeepsTheCorpusReports: the seeded-defect corpus,
// the nullable specs and the generated models give the same report with
// compiled evaluation (the default) and with every expression evaluated by
// expr (CheckOptions.Interpreted): the same pairs, transitions, verdicts
// and counterexamples.
func TestCompiledEvaluationKeepsTheCorpusReports(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.yaml")
	require.NoError(t, err)
	require.Greater(t, len(files), 20)
	models := map[string]*machine.Machine{}
	for _, file := range files {
		models[strings.TrimSuffix(filepath.Base(file), ".yaml")] = spectest.SpecFile(t, file)
	}
	models["gen-25k"] = spectest.Compile(t, genSpec(25, 5, 3, false), spectest.Registry())
	models["gen-deadlock"] = spectest.Compile(t, genSpec(13, 4, 3, true), spectest.Registry())
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			fast := check.ModelCheck(context.Background(), m, check.CheckOptions{})
			slow := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: true})
			assert.Equal(t, slow.Stats.States, fast.Stats.States, "pairs")
			assert.Equal(t, slow.Stats.Transitions, fast.Stats.Transitions, "transitions")
			assert.Equal(t, report.Text(slow, report.Options{NoTimes: true}), report.Text(fast, report.Options{NoTimes: true}))
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real L++ blueprints of ../shared/lpp-real (beside the worktree), as
// lppctl's commands read them. machine/lpp's lppreal_test.go checks the
// reading, the translation, the diagrams and the gate semantics; these run
// the commands an L++ user runs.

// lppRealFiles returns the folder's documents; it skips the test when the
// folder is absent (fails instead when LPPCTL_REQUIRE_LPP_REAL=1).
func lppRealFiles(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "..", "shared", "lpp-real")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("LPPCTL_REQUIRE_LPP_REAL") == "1" {
			t.Fatalf("%s is absent (LPPCTL_REQUIRE_LPP_REAL=1)", dir)
		}
		t.Skipf("%s is absent: the real-blueprint conformance tests need it", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		if filepath.Base(f) != "gate-semantics.json" {
			out = append(out, f)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// lppRealRefused are the documents lpp's loader refuses
// (lpp-real/README.md): a transition to an undefined state, a policy under
// a blueprint $schema, a string terminal_states, an assembly, a policy.
var lppRealRefused = map[string]bool{
	"utils_legacy_extractor_results_test_extracted_blueprint.json": true,
	"src_lpp_policies_service_router.json":                         true,
	"utils_schema_migrator_tests_old_v011_blueprint.json":          true,
	"examples_assembly_payment_workflow_payment_workflow.json":     true,
	"src_lpp_policies_llm_governance.json":                         true,
}

var (
	verdictRE  = regexp.MustCompile(`(?m)^  (PASS|FAIL|UNKNOWN) +(.+)$`)
	positionRE = regexp.MustCompile(`(?m)^\S+\.json:\d+:\d+: error: `)
)

// TestRealBlueprintsValidateAndCheck: every real blueprint lpp's loader
// accepts validates (warnings allowed, no compute mapping needed), imports,
// draws (export; machine/lpp's tests parse the diagrams with the real
// Mermaid parser) and is
// checked (a verdict for each of the seven properties; a FAIL is a finding
// about the blueprint, never a crash or an expression lppctl cannot
// evaluate); the ones lpp refuses are refused with a position.
func TestRealBlueprintsValidateAndCheck(t *testing.T) {
	for _, f := range lppRealFiles(t) {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "validate", f)
			if lppRealRefused[name] {
				assert.Equal(t, exitInvalidSpec, code, "lpp refuses it:\n%s%s", out, errOut)
				assert.Regexp(t, positionRE, out+errOut, "refused without a position")
				return
			}
			require.Equal(t, 0, code, "lpp's loader accepts it:\n%s%s", out, errOut)
			code, out, errOut = runCLI(t, "import", "lpp", f)
			require.Equal(t, 0, code, "import lpp:\n%s", errOut)
			require.Contains(t, out, "\nstates:\n")
			code, out, errOut = runCLI(t, "export", f)
			require.Equal(t, 0, code, "export:\n%s", errOut)
			require.True(t, strings.HasPrefix(out, "stateDiagram-v2\n"), "export draws no state diagram:\n%s", out)
			code, out, errOut = runCLI(t, "check", "--max-states", "20000", f)
			require.Contains(t, []int{0, exitFailed}, code, "%s%s", out, errOut)
			verdicts := verdictRE.FindAllStringSubmatch(out, -1)
			assert.Len(t, verdicts, 7, "a verdict per property:\n%s%s", out, errOut)
			for _, bad := range []string{"cannot evaluate", "panic", "internal error"} {
				assert.NotContains(t, out+errOut, bad)
			}
			if strings.Contains(out, "FAIL    expressions evaluate") {
				t.Errorf("an expression fails to evaluate:\n%s", out)
			}
		})
	}
}

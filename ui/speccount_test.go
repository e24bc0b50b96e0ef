package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/validate"
)

// TestTheSpecsErrorCountsAreValidates: a spec with the same two mistakes in
// 15 states (validate folds those after the 11th into "and N more like it")
// has, on the Specs list and on its page, the count validate gives.
func TestTheSpecsErrorCountsAreValidates(t *testing.T) {
	var b strings.Builder
	b.WriteString("lpp: 1\nname: many\ninitial: s1\nstates:\n")
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&b, "  s%d: {next: nowhere%d}\n", i, i)
	}
	b.WriteString("  done: {final: true}\n")
	f := newFixture(t, Options{})
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "specs"), 0o755))
	path := filepath.Join(f.root, "specs", "many.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	_, diags := validate.Check(path, []byte(b.String()), machine.NewBuiltinRegistry(), validate.WithRoot(f.root))
	require.Len(t, diags.Errors(), 22, "validate folds the alike errors")
	require.Contains(t, diags.PrettyAll([]byte(b.String())), "30 errors, 0 warnings")

	list := f.do("GET", "/specs", "").Body.String()
	assert.Contains(t, list, `<tr data-spec="specs/many.yaml"><td><a href="/spec?path=specs%2fmany.yaml">specs/many.yaml</a></td><td><span class="badge v-FAIL">30 error(s)</span></td>`)
	page := f.do("GET", "/spec?path=specs/many.yaml", "").Body.String()
	assert.Contains(t, page, `<section id="diagnostics"><h2>30 error(s), 0 warning(s)</h2>`)
	check := f.do("GET", "/spec?path=specs/many.yaml&check=1", "").Body.String()
	assert.Contains(t, check, "cannot check specs/many.yaml: the spec has 30 errors: fix them (see above), then check again")
}

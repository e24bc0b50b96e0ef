package lpp

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// TestImportAndValidateAllocateAFewTimesTheInput: what `lppctl import lpp`
// and `lppctl validate` do with a blueprint holding one long text (in the
// description, a state's description, a property's doc or a string default)
// allocates a bounded multiple of the input, whatever its size: the text
// is not copied into a YAML text and decoded from it again (the YAML
// decoder reads a scalar a character at a time; validation decoded the
// spec twice: 22 times the input in all).
func TestImportAndValidateAllocateAFewTimesTheInput(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation budgets are measured without the race detector")
	}
	blueprint := func(desc, state, doc, def string) []byte {
		return []byte(`{"$schema": "lpp/v0.2.0", "id": "bp", "name": "BP", "description": "` + desc + `",
 "context_schema": {"properties": {"p": {"type": "string", "description": "` + doc + `", "default": "` + def + `"}}},
 "states": {"x": {"description": "` + state + `"}, "y": {"description": "y"}},
 "entry_state": "x", "terminal_states": {"y": {}}, "gates": {}, "actions": {},
 "transitions": [{"id": "xy", "from": "x", "to": "y", "on_event": "GO"}], "version": "1"}`)
	}
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	const importBudget, validateBudget = 4, 4
	for _, size := range []int{2 << 20, 8 << 20} {
		long := strings.Repeat("A", size)
		lines := strings.Repeat("A", size/2) + `\n` + strings.Repeat("é", size/4)
		tests := []struct {
			name string
			src  []byte
		}{
			{"a long description", blueprint(long, "x", "p", "v")},
			{"a long description of several lines", blueprint(lines, "x", "p", "v")},
			{"a long state description", blueprint("d", long, "p", "v")},
			{"a long doc", blueprint("d", "x", lines, "v")},
			{"a long default", blueprint("d", "x", "p", lines)},
		}
		for _, tt := range tests {
			n := uint64(len(tt.src))
			var text []byte
			imp := allocated(func() {
				bp, ds := Parse("bp.json", tt.src)
				require.False(t, ds.HasErrors(), "%v", ds)
				var err error
				text, err = ToSpecYAML(bp, nil)
				require.NoError(t, err)
			})
			var spec *mspec.Spec
			val := allocated(func() {
				require.True(t, HasSchema(tt.src))
				bp, ds := Parse("bp.json", tt.src)
				require.False(t, ds.HasErrors(), "%v", ds)
				tr, err := Translate(bp, nil)
				require.NoError(t, err)
				var sd mspec.Diagnostics
				spec, sd = tr.Spec()
				require.False(t, sd.HasErrors(), "%v", sd)
				validate.Validate(spec, machine.NewRegistry())
			})
			t.Logf("%s, %d bytes: import %.1fx, validate %.1fx", tt.name, n, float64(imp)/float64(n), float64(val)/float64(n))
			assert.LessOrEqual(t, imp, importBudget*n, "import of %s (%d bytes)", tt.name, n)
			assert.LessOrEqual(t, val, validateBudget*n, "validate of %s (%d bytes)", tt.name, n)
			// The texts are all there, in the spec and in the spec's text.
			whole, ds := mspec.Parse("bp.spec.yaml", text)
			require.False(t, ds.HasErrors(), "%v", ds)
			assert.Equal(t, whole.Description, spec.Description)
			assert.Equal(t, whole.States[0].Note, spec.States[0].Note)
			assert.Equal(t, whole.Context[0].Doc, spec.Context[0].Doc)
			assert.Equal(t, whole.Context[0].Default, spec.Context[0].Default)
		}
	}
}

// TestRecognisingABlueprintKeepsNoTextButItsSchema: HasSchema, IsLPP and
// IsBlueprint (validate calls them twice before decoding) decoded the whole
// file, a copy of every text; they now keep only "$schema".
func TestRecognisingABlueprintKeepsNoTextButItsSchema(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation budgets are measured without the race detector")
	}
	long := strings.Repeat("A", 8<<20)
	src := []byte(`{"$schema": "lpp/v0.2.0", "description": "` + long + `", "states": {"x": {"description": "` + long + `\n"}}, "id": "x", "name": "x", "version": "1"}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ok := IsBlueprint(src) && HasSchema(src) && IsLPP(src)
	runtime.ReadMemStats(&after)
	assert.True(t, ok)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "no text is copied")
	assert.False(t, IsBlueprint([]byte(`{"$schema": "lpp/v0.2.0", "x": "unclosed}`)), "the whole file is still checked")
	assert.False(t, HasSchema([]byte(`{"a": {"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1"}}`)), "only the top-level $schema counts")
}

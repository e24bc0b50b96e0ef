package lpp

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASchemaLppDoesNotCheckIsReadWithAWarning: lpp's loader requires the
// $schema key but never checks its value (it looks for "v0.1" in it, for the
// terminal-state rule). A blueprint under "lpp/v0.3.0", "LPP/v0.2.0" or a
// URL was refused ("unsupported L++ blueprint version lpp/v0.3.0", "… is
// not an L++ blueprint schema"); now it is read with a warning, while an
// assembly, a policy and a document that is no blueprint stay refused.
func TestASchemaLppDoesNotCheckIsReadWithAWarning(t *testing.T) {
	const body = `"id": "x", "name": "x", "version": "1", "states": {"a": {}, "b": {}}, "entry_state": "a", "terminal_states": %s, "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]}`
	for _, tt := range []struct {
		schema, terminals, want string
		blueprint               bool
	}{
		{"lpp/v0.3.0", `{"b": {}}`, `warning: $schema "lpp/v0.3.0" is not a blueprint version lppctl knows (lpp/v0.1.x, lpp/v0.2.0): lppctl reads the blueprint as lpp/v0.2.0 (lpp's loader does not check $schema)`, true},
		{"lpp/v1", `{"b": {}}`, `warning: $schema "lpp/v1" is not a blueprint version lppctl knows (lpp/v0.1.x, lpp/v0.2.0): lppctl reads the blueprint as lpp/v0.2.0 (lpp's loader does not check $schema)`, true},
		{"LPP/v0.2.0", `{"b": {}}`, `warning: $schema "LPP/v0.2.0" is not a blueprint version lppctl knows (lpp/v0.1.x, lpp/v0.2.0): lppctl reads the blueprint as lpp/v0.2.0 (lpp's loader does not check $schema)`, true},
		{"https://example.com/lpp/v0.1.json", `["b"]`, `warning: $schema "https://example.com/lpp/v0.1.json" is not a blueprint version lppctl knows (lpp/v0.1.x, lpp/v0.2.0): lppctl reads the blueprint as lpp/v0.1.x (lpp's loader does not check $schema)`, true},
		{"lpp/assembly/v0.1", `{"b": {}}`, `error: lpp/assembly/v0.1 is an L++ assembly, not a blueprint`, false},
	} {
		t.Run(tt.schema, func(t *testing.T) {
			src := []byte(`{"$schema": "` + tt.schema + `", ` + fmt.Sprintf(body, tt.terminals))
			assert.Equal(t, tt.blueprint, IsBlueprint(src))
			_, diags := Parse("s.json", src)
			require.NotEmpty(t, diags)
			assert.Equal(t, tt.want, diags[0].Severity.String()+": "+diags[0].Msg)
			assert.Equal(t, !tt.blueprint, diags.HasErrors(), "%v", diags)
		})
	}
	other := []byte(`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}`)
	assert.False(t, IsBlueprint(other), "a JSON Schema is no blueprint")
	_, diags := Parse("o.json", other)
	require.True(t, diags.HasErrors())
	assert.Equal(t, "http://json-schema.org/draft-07/schema# is not an L++ blueprint schema", diags[0].Msg)
}

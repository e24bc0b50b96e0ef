package lpp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestASetWithBothValueAndValueFromReadsAsLppsCompiledOperatorDoes: lpp's
// loader accepts a set action with both keys (its compiled operator uses
// value unless it is null, then value_from); lppctl refused it ("has both
// value and value_from"). Now it reads as the compiled operator does, with
// a warning.
func TestASetWithBothValueAndValueFromReadsAsLppsCompiledOperatorDoes(t *testing.T) {
	for _, tt := range []struct {
		name, value, want string
		hasValue          bool
		valueFrom         string
	}{
		{"a value wins", `"x"`, `action "s" has both value and value_from: lpp's compiled operator (its interactive tools) uses value, which is not null, and lppctl does too; its run_frame uses value_from`, true, ""},
		{"a null value gives way", `null`, `action "s" has both value and value_from: its value is null, so lpp reads value_from (lppctl too)`, false, "event.payload.k"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", "context_schema": {"properties": {"k": {"type": "string"}}},
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
"actions": {"s": {"type": "set", "target": "k", "value": ` + tt.value + `, "value_from": "event.payload.k"}},
"transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO", "actions": ["s"]}]}`
			bp, diags := Parse("b.json", []byte(src))
			require.False(t, diags.HasErrors(), "%v", diags)
			require.Len(t, diags, 1)
			assert.Equal(t, tt.want, diags[0].Msg)
			a := bp.Action("s")
			assert.Equal(t, tt.hasValue, a.HasValue)
			assert.Equal(t, tt.valueFrom, a.ValueFrom)
		})
	}
}

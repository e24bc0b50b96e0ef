package lpp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLpp010KeysAreNamedWithTheirNewSpelling: a transition's "event" and
// the top-level "context" are lpp/v0.1.0's spellings of "on_event" and
// "context_schema". lppctl said `transition "t" has no "on_event"` beside
// `unknown key "event"`, and kept "context" silently; now the message names
// the key and its v0.1.1 spelling.
func TestLpp010KeysAreNamedWithTheirNewSpelling(t *testing.T) {
	for _, tt := range []struct {
		name, top, trans string
		want             string
	}{
		{"event", `"context_schema": {"properties": {}}`, `"event": "GO"`,
			`x.json:3:53: error: transition "t" has "event", the lpp/v0.1.0 spelling of "on_event" (renamed in lpp/v0.1.1): lpp's loader requires "on_event"; rename "event" to "on_event"`},
		{"context", `"context": {"properties": {"n": {"type": "number"}}}`, `"on_event": "GO"`,
			`x.json:1:67: warning: "context" is the lpp/v0.1.0 spelling of "context_schema" (renamed in lpp/v0.1.1): lpp reads no property from it, nor does lppctl; the names its gates and actions use are undeclared (below); rename "context" to "context_schema"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", ` + tt.top + `,
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
"transitions": [{"id": "t", "from": "a", "to": "b", ` + tt.trans + `}]}`
			_, diags := Parse("x.json", []byte(src))
			require.Len(t, diags, 1, "%v", diags)
			assert.Equal(t, tt.want, diags[0].String())
		})
	}
}

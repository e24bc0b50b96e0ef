package lpp

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongStringsWithEscapesDecodeInAboutTheirSize: a long string with
// one escape (a "\n" in a prompt) kept 8 bytes of column table a character
// and grew its text by doubling (about 11 times the input); a long value
// of the wrong type was converted whole to runes to be described. Decoding
// allocates about the input once more, whatever the string's length.
func TestLongStringsWithEscapesDecodeInAboutTheirSize(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation budgets are measured without the race detector")
	}
	blueprint := func(desc, state string) []byte {
		return []byte(`{"$schema": "lpp/v0.2.0", "id": "bp", "name": "bp", "version": "1", "description": "` + desc + `",
 "context_schema": {"properties": {}}, "states": {"x": ` + state + `, "y": {"description": "y"}},
 "entry_state": "x", "terminal_states": {"y": {}}, "gates": {}, "actions": {},
 "transitions": [{"id": "xy", "from": "x", "to": "y", "on_event": "GO"}]}`)
	}
	for _, size := range []int{2 << 20, 8 << 20} {
		long := strings.Repeat("A", size/2) + `\n` + strings.Repeat("é", size/4)
		tests := []struct {
			name    string
			src     []byte
			invalid bool
		}{
			{"a long description with an escape", blueprint(long, `{"description": "x"}`), false},
			{"a long string where an object is expected", blueprint("d", `"`+long+`"`), true},
		}
		for _, tt := range tests {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, ds := Parse("bp.json", tt.src)
			runtime.ReadMemStats(&after)
			require.Equal(t, tt.invalid, ds.HasErrors(), "%v", ds)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s, %d bytes: %d allocated (x%.1f)", tt.name, len(tt.src), allocated, float64(allocated)/float64(len(tt.src)))
			assert.LessOrEqual(t, allocated, 2*uint64(len(tt.src)), "%s of %d bytes", tt.name, len(tt.src))
		}
	}
}

package lpp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestARepeatedKeyKeepsItsLastValueAsPythonsJSONDoes: lpp reads a blueprint
// with Python's json, which keeps the last value of a repeated key (in the
// place of the first). A repeated key at the top was refused, and one inside
// a gate kept its first value, so lppctl ran another gate than lpp's.
func TestARepeatedKeyKeepsItsLastValueAsPythonsJSONDoes(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "d", "name": "d", "version": "1",
 "states": {"idle": {}, "b": {}, "idle": {"name": "Idle"}},
 "gates": {"g": {"type": "expression", "expression": "x == 1", "expression": "True"}},
 "transitions": [{"id": "t", "from": "idle", "to": "b", "on_event": "GO"}],
 "transitions": [{"id": "t", "from": "idle", "to": "done", "on_event": "GO", "gates": ["g"]}],
 "entry_state": "idle", "terminal_states": {"done": {}}}`
	bp, ds := Parse("d.json", []byte(src))
	require.NotNil(t, bp)
	require.False(t, ds.HasErrors(), "%v", ds)
	var dups []string
	for _, d := range ds {
		if strings.HasPrefix(d.Msg, "duplicate key") {
			dups = append(dups, d.Where()+": "+d.Msg)
		}
	}
	assert.Equal(t, []string{
		`d.json:2:34: duplicate key "idle": lpp (Python's json) keeps the last one, and so does lppctl`,
		`d.json:3:64: duplicate key "expression": lpp (Python's json) keeps the last one, and so does lppctl`,
		`d.json:5:2: duplicate key "transitions": lpp (Python's json) keeps the last one, and so does lppctl`,
	}, dups)
	require.Len(t, bp.States, 3) // idle, b and the terminal done
	assert.Equal(t, "idle", bp.States[0].ID, "the first place")
	assert.Equal(t, "Idle", bp.States[0].Name, "the last value")
	assert.Equal(t, "True", bp.Gate("g").Expression)
	require.Len(t, bp.Transitions, 1)
	assert.Equal(t, "done", bp.Transitions[0].To)
}

package lpp

import (
	"fmt"
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

// TestAnObjectOfManyKeysIsReadInLinearTime: finding a repeated key scans
// an object's keys only while they are few.
func TestAnObjectOfManyKeysIsReadInLinearTime(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$schema": "lpp/v0.2.0", "id": "d", "name": "d", "version": "1", "states": {"a": {}}, "entry_state": "a", "terminal_states": {"a": {}}, "transitions": [], "display": {`)
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, `"k%d": 1, `, i)
	}
	b.WriteString(`"k7": 2}}`)
	root, sc, err := scanJSON([]byte(b.String()), false)
	require.NoError(t, err)
	disp := root.get("display")
	require.Len(t, disp.members, 40000)
	assert.Equal(t, "2", disp.get("k7").str)
	require.Len(t, sc.dups, 1)
}

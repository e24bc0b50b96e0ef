package lpp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// TestARepeatedTransitionIDIsReadAsLppReadsIt: lpp keeps transitions in a
// list and never looks one up by id, so it reads (and runs) a blueprint two
// of whose transitions share an id; lppctl refused it ("duplicate transition
// id"). Now the later one gets a name of its own (ID_2, or the next free
// one), with a warning, and export writes the id back as written.
func TestARepeatedTransitionIDIsReadAsLppReadsIt(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "p", "name": "p", "version": "1",
"context_schema": {"properties": {"n": {"type": "number"}}},
"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}, "c": {}, "d": {}},
"gates": {"big": {"expression": "n is not None and n > 100"}, "small": {"expression": "n is not None and n < 5"}},
"transitions": [
  {"id": "t_big", "from": "a", "to": "b", "on_event": "DECIDE", "gates": ["big"]},
  {"id": "t_big", "from": "a", "to": "c", "on_event": "DECIDE", "gates": ["small"]},
  {"id": "t_big_2", "from": "a", "to": "d", "on_event": "DECIDE"}]}`
	bp, diags := Parse("t.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags)
	require.Len(t, diags, 1)
	assert.Equal(t, `t.json:7:10: duplicate transition id "t_big": lpp reads both transitions (it never looks one up by id); lppctl calls this one "t_big_3", and export writes "t_big" back = give each transition its own id`,
		diags[0].Where()+": "+diags[0].Msg+" = "+diags[0].Hint)
	var ids []string
	for _, tr := range bp.Transitions {
		ids = append(ids, tr.ID)
	}
	assert.Equal(t, []string{"t_big", "t_big_3", "t_big_2"}, ids)

	out, err := ToSpecYAML(bp, nil)
	require.NoError(t, err)
	spec, sd := mspec.Parse("t.yaml", out)
	require.False(t, sd.HasErrors(), "%v", sd)
	var to []string
	for _, st := range spec.States {
		for _, on := range st.On {
			for _, tr := range on.Transitions {
				to = append(to, tr.To)
			}
		}
	}
	assert.Equal(t, []string{"b", "c", "d"}, to, "both transitions, in the blueprint's order")

	back, err := FromSpec(spec)
	require.NoError(t, err)
	var doc struct {
		Transitions []struct {
			ID string `json:"id"`
			To string `json:"to"`
		} `json:"transitions"`
	}
	require.NoError(t, json.Unmarshal(back, &doc))
	require.Len(t, doc.Transitions, 3)
	for i, want := range [][2]string{{"t_big", "b"}, {"t_big", "c"}, {"t_big_2", "d"}} {
		assert.Equal(t, want, [2]string{doc.Transitions[i].ID, doc.Transitions[i].To}, "export writes the ids as written")
	}
}

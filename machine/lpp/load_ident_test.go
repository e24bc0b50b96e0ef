package lpp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdentityAndStateHooksAreCheckedAsLppsLoaderChecksThem: lpp's loader
// requires id, name and version (of any JSON type) and refuses on_enter or
// on_exit naming an action it does not declare; lppctl refuses the same,
// at the place, with a hint. They used to read without an error. A value
// of the wrong JSON kind says what to write (a null transition had no hint).
func TestIdentityAndStateHooksAreCheckedAsLppsLoaderChecksThem(t *testing.T) {
	const rest = `"states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
 "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]`
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"no id, name or version", `{"$schema": "lpp/v0.2.0", ` + rest + `}`, []string{
			`x.json:1:1: missing "id": lpp's loader requires the blueprint's id, name and version | add "id": "my_blueprint" at the top`,
			`x.json:1:1: missing "name": lpp's loader requires the blueprint's id, name and version | add "name": "My blueprint" at the top`,
			`x.json:1:1: missing "version": lpp's loader requires the blueprint's id, name and version | add "version": "1.0.0" at the top`}},
		{"on_enter naming an undeclared action",
			`{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", "actions": {"seta": {"target": "s", "value": 1}},
 "states": {"a": {"on_enter": ["set_a"], "on_exit": "seta"}}, "entry_state": "a", "terminal_states": {"b": {}},
 "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]}`, []string{
				`x.json:2:32: on_enter of state "a" names "set_a", which is not declared in actions (lpp's loader refuses it too) | did you mean "seta"?`,
				`x.json:2:53: on_exit of state "a" must be a list of action ids, not the string "seta" (lpp's loader refuses it) | write "on_exit": ["ACTION_ID"]`}},
		{"a null transition", `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", "states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
 "transitions": [null]}`, []string{
			`x.json:2:18: transition 1 must be an object, not null | remove the null, or write an object here ({"key": ...})`}},
		{"states given as a list", `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1", "states": [], "entry_state": "a", "terminal_states": {"b": {}},
 "transitions": []}`, []string{
			`x.json:1:77: states must be an object, not an array | write an object here, as lpp's loader reads one ({"key": ...})`,
			`x.json:1:96: entry_state "a" is not a state (lpp's loader refuses it too) | did you mean "b"?`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Parse("x.json", []byte(c.src))
			var got []string
			for _, d := range diags.Errors() {
				got = append(got, d.Where()+": "+d.Msg+" | "+d.Hint)
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestAnIdentityOfAnyJSONTypeIsReadAndWrittenBack: "any JSON values in
// practice" (lpp-format.md §3): a number id, a null name and a list
// version read, and export writes them back as they were.
func TestAnIdentityOfAnyJSONTypeIsReadAndWrittenBack(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": 5, "name": null, "version": [1, "a"],
 "states": {"a": {}}, "entry_state": "a", "terminal_states": {"b": {}},
 "transitions": [{"id": "t", "from": "a", "to": "b", "on_event": "GO"}]}`
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags.Errors().Err())
	assert.Equal(t, "5", bp.ID)
	assert.Equal(t, `[1, "a"]`, bp.Version)
	tr, err := Translate(bp, nil)
	require.NoError(t, err)
	assert.Contains(t, string(tr.YAML), `(lpp/v0.2.0 blueprint version [1, "a"])`)
	spec, sd := tr.Spec()
	require.False(t, sd.HasErrors(), "%v", sd.Errors().Err())
	back, err := FromSpec(spec)
	require.NoError(t, err)
	assert.Contains(t, string(back), "\"$schema\": \"lpp/v0.2.0\",\n  \"id\": 5,\n  \"name\": null,\n  \"version\": [\n    1,\n    \"a\"\n  ],")
}

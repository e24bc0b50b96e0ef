package lpp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNamesOfDifferentKindsNeverShareAnInternalName: a state, an event and
// a property whose ids are not identifiers (CJK ids, "a-b" and "a b") got
// the same internal name (开始, 处理, 数量 were all "__"), and the one map
// of internal names to the blueprint's spelling kept one of them: the
// state 处理 was exported as 决定, and `run --var 数量=3` found no
// variable. Each name now spells back as the blueprint wrote it.
func TestNamesOfDifferentKindsNeverShareAnInternalName(t *testing.T) {
	src := `{"$schema": "lpp/v0.2.0", "id": "x", "name": "x", "version": "1",
 "context_schema": {"properties": {"数量": {"type": "number"}, "名字": {"type": "string"}, "a-b": {"type": "string"}}},
 "states": {"开始": {}, "处理": {}, "a b": {}},
 "gates": {"大": {"type": "expression", "expression": "数量 > 1"}},
 "actions": {"设": {"type": "set", "target": "名字", "value_from": "event.payload.name"}},
 "transitions": [
  {"id": "一", "from": "开始", "to": "处理", "on_event": "开始", "actions": ["设"]},
  {"id": "二", "from": "处理", "to": "完成", "on_event": "决定", "gates": ["大"]},
  {"id": "三", "from": "处理", "to": "a b", "on_event": "a:b"},
  {"id": "四", "from": "a b", "to": "完成", "on_event": "决定"}],
 "entry_state": "开始", "terminal_states": {"完成": {}}}`
	bp, diags := Parse("x.json", []byte(src))
	require.False(t, diags.HasErrors(), "%v", diags.Errors().Err())
	var states, events, props []string
	for _, s := range bp.States {
		states = append(states, bp.Spelling(s.ID))
	}
	for _, tr := range bp.Transitions {
		events = append(events, bp.Spelling(tr.Event))
	}
	for _, p := range bp.Context {
		props = append(props, bp.Spelling(p.Name))
	}
	assert.ElementsMatch(t, []string{"开始", "处理", "a b", "完成"}, states)
	assert.Equal(t, []string{"开始", "决定", "a:b", "决定"}, events)
	assert.ElementsMatch(t, []string{"数量", "名字", "a-b"}, props)
	for _, orig := range []string{"数量", "名字", "a-b", "开始", "处理", "决定"} {
		assert.Equal(t, orig, bp.Spelling(bp.InternalName(orig)), orig)
	}
}

// TestAnIdThatIsNotASCIIGetsAReadableInternalName: CJK ids were all
// underscores (开始 and 处理 both "__": a run printed `[1] __ → ___2`),
// accented ones lost the letter (révision: r_vision). An accented letter
// is now its base letter, another character u and its code point.
func TestAnIdThatIsNotASCIIGetsAReadableInternalName(t *testing.T) {
	for orig, want := range map[string]string{
		"开始": "u5f00_u59cb", "开 始": "u5f00_u59cb", "名字2": "u540d_u5b57_2", "a开b": "a_u5f00_b",
		"révision": "revision", "Ünïcödé": "Unicode", "ß": "u00df", "t_🔁": "t_u1f501",
		"to-state-name": "to_state_name", "TO-X_DONE": "TO_X_DONE", "1é": "_1e", "event": "lpp_event",
	} {
		assert.Equal(t, want, internalName(orig), orig)
	}
}

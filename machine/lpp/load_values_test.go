package lpp

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBlueprintsOfTooManyValuesAreRefusedWithAPosition: 15 MB of `[],`
// decoded into 5 million values took 2 GB and 21 s to validate; a
// blueprint of more than MaxValues values is refused where the first one
// too many starts, and it is still known as a blueprint (so validate says
// this, not a YAML error).
func TestBlueprintsOfTooManyValuesAreRefusedWithAPosition(t *testing.T) {
	head := `{"$schema": "lpp/v0.2.0", "id": "bp", "name": "bp", "version": "1", "context_schema": {"properties": {"p": {"type": "array", "default": [`
	tail := `]}}}, "states": {"x": {}}, "entry_state": "x", "terminal_states": {"x": {}}, "transitions": []}`
	items := func(n int) string { return strings.TrimSuffix(strings.Repeat("[],", n), ",") }
	// Values before the array: the object, $schema, id, name, version,
	// context_schema, properties, p, type, default's array = 10.
	fits := []byte(head + items(jsonpos.MaxValues-10-6) + tail) // the tail's 6 values
	_, ds := Parse("bp.json", fits)
	require.False(t, ds.HasErrors(), "%v", ds)

	src := []byte(head + items(2*jsonpos.MaxValues) + tail)
	require.True(t, HasSchema(src))
	require.True(t, IsBlueprint(src))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	bp, ds := Parse("bp.json", src)
	runtime.ReadMemStats(&after)
	assert.Nil(t, bp)
	require.Len(t, ds, 1)
	col := len(head) + 3*(jsonpos.MaxValues-10) + 1
	assert.Equal(t, "bp.json:1:"+strconv.Itoa(col)+": the blueprint holds more than 100000 JSON values, more than lppctl reads", ds[0].Where()+": "+ds[0].Msg)
	assert.Equal(t, "every string, number, true, false, null, array and object counts; the largest of lpp's own blueprints holds 827", ds[0].Hint)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(40<<20), "reading stops at the limit")
}

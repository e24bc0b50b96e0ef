package lpp

import (
	"runtime"
	"strings"
	"testing"
)

// TestLongStringsDecodeInAboutTheirSize: a blueprint holding an 8 MB string
// allocates a few times its size to decode (it cost 8 bytes of column
// table and a rune-by-rune copy a character: 50 times the input), and about
// the same again to translate.
func TestLongStringsDecodeInAboutTheirSize(t *testing.T) {
	const size = 8 << 20
	src := []byte(`{"$schema": "lpp/v0.2.0", "id": "bp", "name": "BP", "version": "1.0.0", "description": "` + strings.Repeat("A", size) + `",
 "context_schema": {"properties": {}}, "states": {"x": {"description": "x"}, "y": {"description": "y"}},
 "entry_state": "x", "terminal_states": ["y"], "gates": {}, "actions": {},
 "transitions": [{"id": "xy", "from": "x", "to": "y", "on_event": "GO"}]}`)
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	if raceEnabled {
		t.Skip("allocation budgets are measured without the race detector (it makes sync.Pool drop items)")
	}
	var bp *Blueprint
	parse := allocated(func() {
		b, ds := Parse("bp.json", src)
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		bp = b
	})
	t.Logf("parse: %d bytes allocated for %d bytes of input (x%.1f)", parse, len(src), float64(parse)/float64(len(src)))
	if parse > 3*uint64(len(src)) {
		t.Errorf("decoding allocated %.1f times the input", float64(parse)/float64(len(src)))
	}
	translate := allocated(func() {
		if _, err := ToSpecYAML(bp, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("translate: %d bytes allocated (x%.1f)", translate, float64(translate)/float64(len(src)))
	if translate > 8*uint64(len(src)) {
		t.Errorf("translating allocated %.1f times the input", float64(translate)/float64(len(src)))
	}
}

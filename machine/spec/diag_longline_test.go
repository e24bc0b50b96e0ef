package spec

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPrettyOfManyDiagnosticsOnOneLongLineIsLinear: a blueprint written on
// one line (JSON often is) with a thousand warnings converted the whole
// line to runes for each of them (5 MB of JSON, 1,000 warnings: 16 s and
// 25 GB allocated). Rendering them now costs about the line once plus a
// snippet each.
func TestPrettyOfManyDiagnosticsOnOneLongLineIsLinear(t *testing.T) {
	const lineLen, n = 1 << 20, 200
	src := []byte(strings.Repeat("é", lineLen/4) + strings.Repeat("a", lineLen/2)) // one line, not all ASCII
	cols := len([]rune(string(src)))
	var ds Diagnostics
	for i := range n {
		ds = append(ds, Diagnostic{Severity: SevWarning, File: "bp.json", Pos: Pos{Line: 1, Col: 1 + i*(cols/n)}, Span: 3, Msg: "w"})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := ds.PrettyAll(src)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d diagnostics on a line of %d bytes: %d bytes allocated", n, len(src), allocated)
	assert.Less(t, allocated, uint64(4*len(src)+n*4096), "rendering allocates about the line once, not once per diagnostic")
	// The snippets still show the right place.
	first := ds[n/2].Pretty(src)
	assert.Contains(t, out, first)
	assert.Contains(t, first, "^^^")
}

// TestSnippetOfALongLineShowsTheWindowAroundTheColumn: the window, the
// caret and the ellipses of a long line are what they were.
func TestSnippetOfALongLineShowsTheWindowAroundTheColumn(t *testing.T) {
	line := strings.Repeat("é", 100) + "\tTARGET" + strings.Repeat("b", 200)
	d := Diagnostic{Severity: SevError, File: "f", Pos: Pos{Line: 1, Col: 102}, Span: 6, Msg: "m"}
	got := d.Pretty([]byte(line))
	want := "f:1:102: error: m\n 1 | …" + strings.Repeat("é", 39) + "    TARGET" + strings.Repeat("b", 74) + "…\n   | " +
		strings.Repeat(" ", 1+39+4) + "^^^^^^"
	assert.Equal(t, want, got)
}

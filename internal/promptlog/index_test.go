package promptlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// values returns the JSON of what each ID stands for, as Read gives it.
func values(t *testing.T, m map[string]json.RawMessage) map[string]string {
	t.Helper()
	out := map[string]string{}
	for id, v := range m {
		out[id] = string(v)
	}
	return out
}

// The index gives what Read gives, as the file grows, is cut, is replaced
// and is rewritten in place, and a torn last line counts once it is whole.
func TestIndexReadsWhatReadReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	x := NewIndex(path)
	got, err := x.Read([]string{"nope"})
	require.NoError(t, err)
	assert.Empty(t, got, "no file: nothing")

	l := Open(path)
	ids, err := l.Put("first", map[string]any{"role": "user", "text": "<hi>"})
	require.NoError(t, err)
	check := func(what string, want ...string) {
		t.Helper()
		all, err := Read(path, nil)
		require.NoError(t, err)
		got, err := x.Read(want)
		require.NoError(t, err)
		expect := map[string]json.RawMessage{}
		for _, id := range want {
			if v, ok := all[id]; ok {
				expect[id] = v
			}
		}
		assert.Equal(t, values(t, expect), values(t, got), what)
	}
	check("the first values", ids...)
	more, err := l.Put("second", "third")
	require.NoError(t, err)
	check("values appended", append(ids, more...)...)

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"id":"torn","v":"x`)
	require.NoError(t, err)
	check("a torn last line holds nothing", "torn", ids[0])
	_, err = f.WriteString("\"}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	got, err = x.Read([]string{"torn"})
	require.NoError(t, err)
	assert.Equal(t, `"x"`, string(got["torn"]), "the line once whole")

	// Replaced by another file, then rewritten in place (same file, same size or more).
	require.NoError(t, os.Remove(path))
	l2 := Open(path)
	other, err := l2.Put("other")
	require.NoError(t, err)
	check("a replaced file", append(other, ids...)...)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"id\":\"pad\",\"v\":1}\n" + string(b))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	check("a file rewritten in place", append(other, "pad")...)
}

// FuzzIndexReadsWhatReadReads: whatever a prompts file holds (a torn line,
// lines of another shape, bytes that are no JSON), the index gives the
// values Read gives, and then again after more is appended.
func FuzzIndexReadsWhatReadReads(f *testing.F) {
	f.Add([]byte(`{"id":"a","v":1}`+"\n"+`{"id":"b","v":{"x":[1,2]}}`+"\n"), []byte(`{"id":"c","v":"z"}`+"\n"))
	f.Add([]byte(`{"v":2,"id":"a"}`+"\n"+"junk\n"+`{"id":"a","v":3}`), []byte("\n"+`{"id":"b","v":null}`+"\n"))
	f.Add([]byte(""), []byte(`{"id":"","v":1}`+"\n"+`{"id":"d","v":"\n"}`))
	f.Add([]byte(`{"id":"a","v":1,"x":2}`+"\n"+`{"id":"b","v":"x","v":"y"}`+"\n"), []byte(`{"id":"c","v":{} }`+"\n"))
	f.Fuzz(func(t *testing.T, first, more []byte) {
		path := filepath.Join(t.TempDir(), "prompts.jsonl")
		x := NewIndex(path)
		for _, b := range [][]byte{first, more} {
			fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			require.NoError(t, err)
			_, err = fh.Write(b)
			require.NoError(t, err)
			require.NoError(t, fh.Close())
			all, err := Read(path, nil)
			require.NoError(t, err)
			ids := []string{"a", "b", "c", "d", "nope"}
			for id := range all {
				ids = append(ids, id)
			}
			got, err := x.Read(ids)
			require.NoError(t, err)
			want := map[string]string{}
			for _, id := range ids {
				if v, ok := all[id]; ok {
					want[id] = string(v)
				}
			}
			assert.Equal(t, want, values(t, got))
		}
	})
}

package promptlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutStoresEachValueOnceAcrossReopens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	ids, err := Open(path).Put("system prompt", "question", "system prompt")
	require.NoError(t, err)
	assert.Equal(t, ids[0], ids[2], "the same value has the same ID")
	more, err := Open(path).Put("system prompt", "answer") // a resumed run
	require.NoError(t, err)
	assert.Equal(t, ids[0], more[0])

	vals, err := Read(path, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]json.RawMessage{ids[0]: json.RawMessage(`"system prompt"`), ids[1]: json.RawMessage(`"question"`), more[1]: json.RawMessage(`"answer"`)}, vals)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(b), "\n"), "three distinct values, three lines:\n%s", b)
}

func TestATornLastLineIsSkippedThenCutAndItsValueWrittenAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	ids, err := Open(path).Put("kept", "torn")
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-5], 0o644)) // killed in the middle of the last line

	vals, err := Read(path, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]json.RawMessage{ids[0]: json.RawMessage(`"kept"`)}, vals, "the torn line is skipped")

	again, err := Open(path).Put("torn", "kept")
	require.NoError(t, err)
	assert.Equal(t, ids, []string{again[1], again[0]})
	vals, err = Read(path, func(id string) bool { return id == ids[1] })
	require.NoError(t, err)
	assert.Equal(t, map[string]json.RawMessage{ids[1]: json.RawMessage(`"torn"`)}, vals, "the torn value is written again, on a line of its own")
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), "\n"), "the torn line was cut:\n%s", b)
}

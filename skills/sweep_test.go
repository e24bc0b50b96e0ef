package skills

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpeningTheLibraryRemovesTheTempFilesOfAKilledWriter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "skills.json")
	require.NoError(t, os.WriteFile(path, []byte("{}\n"), 0o644))
	left := []string{filepath.Join(dir, ".skills.json.tmp-123"), filepath.Join(dir, ".skills.json.runs.json.tmp-9")}
	for _, f := range left {
		require.NoError(t, os.WriteFile(f, []byte("{half"), 0o644))
	}
	other := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(other, nil, 0o644))

	_, err := Open(path)
	require.NoError(t, err)
	for _, f := range left {
		assert.NoFileExists(t, f)
	}
	assert.FileExists(t, other)
}

package skills

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenSkillFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "greet", "skills.md.d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "greet", "skills.md"), []byte("# Greet\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "task.md"), []byte("# Task\n"), 0o644))
	tests := []struct {
		name     string
		path     string
		wantName string
		wantText string
		wantErr  string
		is       error
	}{
		{name: "a folder's skills.md is named after the folder", path: filepath.Join(dir, "greet", "skills.md"), wantName: "greet", wantText: "# Greet\n"},
		{name: "any other markdown file is named after itself", path: filepath.Join(dir, "task.md"), wantName: "task", wantText: "# Task\n"},
		{name: "a missing file", path: filepath.Join(dir, "nope.md"), wantErr: `cannot open skill "nope": no file ` + filepath.Join(dir, "nope.md") + `: not found`, is: ErrNotFound},
		{name: "a folder", path: filepath.Join(dir, "greet"), wantErr: `cannot open skill "greet": ` + filepath.Join(dir, "greet") + ` is a folder, not a markdown file: invalid`, is: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := OpenSkillFile(tt.path)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.True(t, errors.Is(err, tt.is))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantName, doc.Name)
			assert.Equal(t, tt.wantText, doc.Text)
			assert.Equal(t, tt.path, doc.Path)
		})
	}
}

package runstore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRunPathsAreRelativeToTheRunInsideTheProject(t *testing.T) {
	project := t.TempDir()
	store := New(filepath.Join(project, DefaultDir))
	run := &Run{Dir: filepath.Join(store.Dir, "20260101-000000-abcdef")}
	tests := []struct {
		name, root, path, want string
	}{
		{"the root itself", project, project, "../../.."},
		{"a file inside the root", project, filepath.Join(project, "skills/x/skills.md"), "../../../skills/x/skills.md"},
		{"a file outside the root stays absolute", project, "/elsewhere/spec.yaml", "/elsewhere/spec.yaml"},
		{"no root: absolute", "", filepath.Join(project, "a.yaml"), filepath.Join(project, "a.yaml")},
		{"a relative path is left as it is", project, "a.yaml", "a.yaml"},
		{"empty", project, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := store.RelPath(tt.root, tt.path)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, run.RelPath(tt.root, tt.path))
			if filepath.IsAbs(tt.path) {
				assert.Equal(t, tt.path, run.AbsPath(got), "AbsPath reverses RelPath")
			}
		})
	}
	t.Run("a store outside the root keeps paths absolute", func(t *testing.T) {
		other := New(filepath.Join(t.TempDir(), "runs"))
		p := filepath.Join(project, "spec.yaml")
		assert.Equal(t, p, other.RelPath(project, p))
	})
	t.Run("a moved run reads its paths at the new place", func(t *testing.T) {
		moved := &Run{Dir: filepath.Join("/moved/project", DefaultDir, "id")}
		assert.Equal(t, "/moved/project/skills/x", moved.AbsPath("../../../skills/x"))
	})
}

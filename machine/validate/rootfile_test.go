package validate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretKey looks like a private key; no diagnostic may ever quote it.
const secretKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDZ7Xk2SECRETSECRETSECRET0000000000000000000000000000000000\n-----END OPENSSH PRIVATE KEY-----\n"

// outsideTree makes a project (fileTree) and, beside it, a folder outside
// the root holding a private key; it returns the project and that folder.
func outsideTree(t *testing.T, template func(outside string) string) (string, string) {
	t.Helper()
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "id_ed25519"), []byte(secretKey), 0o600))
	dir := fileTree(t, template(outside))
	return dir, outside
}

// TestFilesASpecNamesStayInsideTheRoot: a file parameter that names a file
// outside the project root (absolute, climbing out with "..", through a
// link) is a positioned error that quotes nothing of the file; a device or
// a FIFO is refused without reading (or waiting on) it.
func TestFilesASpecNamesStayInsideTheRoot(t *testing.T) {
	const hint = "; files a spec names must lie inside the project root; copy the file into the project and name it relative to the spec's folder"
	tests := []struct {
		name     string
		template func(outside string) string
		setup    func(t *testing.T, dir, outside string)
		want     string
	}{
		{
			name:     "absolute path",
			template: func(o string) string { return filepath.Join(o, "id_ed25519") },
			want:     `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "OUTSIDE/id_ed25519" is outside the project root` + hint,
		},
		{
			name:     "climbing out",
			template: func(o string) string { return "../../" + filepath.Base(o) + "/id_ed25519" },
			want:     `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "../../OUTBASE/id_ed25519" is outside the project root` + hint,
		},
		{
			name:     "dev zero",
			template: func(string) string { return "/dev/zero" },
			want:     `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "/dev/zero" is outside the project root` + hint,
		},
		{
			name:     "link out",
			template: func(string) string { return "prompts/key.md" },
			setup: func(t *testing.T, dir, outside string) {
				require.NoError(t, os.Symlink(filepath.Join(outside, "id_ed25519"), filepath.Join(dir, "specs", "prompts", "key.md")))
			},
			want: `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "prompts/key.md" (specs/prompts/key.md) leads out of the project root through a link: outside the project root` + hint,
		},
		{
			name:     "relative link out",
			template: func(string) string { return "prompts/key.md" },
			setup: func(t *testing.T, dir, outside string) {
				rel, err := filepath.Rel(filepath.Join(dir, "specs", "prompts"), filepath.Join(outside, "id_ed25519"))
				require.NoError(t, err)
				require.NoError(t, os.Symlink(rel, filepath.Join(dir, "specs", "prompts", "key.md")))
			},
			want: `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "prompts/key.md" (specs/prompts/key.md) leads out of the project root through a link: outside the project root` + hint,
		},
		{
			name:     "fifo",
			template: func(string) string { return "prompts/pipe.md" },
			setup: func(t *testing.T, dir, _ string) {
				require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "specs", "prompts", "pipe.md"), 0o644))
			},
			want: `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": cannot read file specs/prompts/pipe.md: it is a FIFO (not a regular file); the action reads it when the run gets there`,
		},
		{
			name:     "too large",
			template: func(string) string { return "prompts/huge.md" },
			setup: func(t *testing.T, dir, _ string) {
				f, err := os.Create(filepath.Join(dir, "specs", "prompts", "huge.md"))
				require.NoError(t, err)
				require.NoError(t, f.Truncate(mspec.MaxNamedFileBytes+1)) // sparse: no disk used
				require.NoError(t, f.Close())
			},
			want: `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": cannot read file specs/prompts/huge.md: it is 16777217 bytes, larger than the limit of 16777216 (too large); the action reads it when the run gets there`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := outsideTree(t, tt.template)
			if tt.setup != nil {
				tt.setup(t, dir, outside)
			}
			src, err := os.ReadFile("specs/t.yaml")
			require.NoError(t, err)
			done := make(chan mspec.Diagnostics, 1)
			go func() {
				_, diags := Check("specs/t.yaml", src, fileRegistry())
				done <- diags
			}()
			var diags mspec.Diagnostics
			select {
			case diags = <-done:
			case <-time.After(20 * time.Second): // a FIFO would block forever: not a timing verdict
				t.Fatal("validation blocked on the named file")
			}
			require.Len(t, diags, 1, "%v", diags)
			want := strings.NewReplacer("OUTSIDE", outside, "OUTBASE", filepath.Base(outside)).Replace(tt.want)
			assert.Equal(t, want, diags[0].String())
			assert.NotContains(t, diags.PrettyAll(src), "SECRET")
			assert.NotContains(t, diags.PrettyAll(src), "b3BlbnNzaC1rZXktdjE")
		})
	}
}

// TestReadNamedFileRefusesWhatLocateFileWouldNot: reading goes through the
// root too, so a file swapped for a link after it was found is refused.
func TestReadNamedFileRefusesALinkSwappedIn(t *testing.T) {
	dir, outside := outsideTree(t, func(string) string { return "prompts/a.md" })
	found, _, err := mspec.LocateFile("prompts/a.md", "specs", dir)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, "specs", "prompts", "a.md")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "id_ed25519"), filepath.Join(dir, "specs", "prompts", "a.md")))
	b, err := mspec.ReadNamedFile(found, "specs", dir)
	require.ErrorIs(t, err, mspec.ErrOutsideRoot)
	assert.Nil(t, b)
	assert.NotContains(t, err.Error(), "SECRET")
}

// TestASpecOutsideTheRootNamesFilesBesideIt: a spec a person names outside
// the root may use files beside or below it, but not climb further.
func TestASpecOutsideTheRootNamesFilesBesideIt(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(other, "spec", "prompts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "spec", "prompts", "p.md"), []byte("hi"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(other, "key"), []byte(secretKey), 0o644))
	specDir := filepath.Join(other, "spec")

	found, _, err := mspec.LocateFile("prompts/p.md", specDir, root)
	require.NoError(t, err)
	b, err := mspec.ReadNamedFile(found, specDir, root)
	require.NoError(t, err)
	assert.Equal(t, "hi", string(b))

	found, tried, _ := mspec.LocateFile("../key", specDir, root)
	assert.Empty(t, found)
	assert.Equal(t, []string{filepath.Join(root, "key")}, tried) // root/specs/../key: inside the root, missing
	found, _, err = mspec.LocateFile(filepath.Join(other, "key"), specDir, root)
	require.ErrorIs(t, err, mspec.ErrOutsideRoot)
	assert.Empty(t, found)
}

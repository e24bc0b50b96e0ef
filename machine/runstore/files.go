package runstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// FileHashes returns the hex SHA-256 of every file the spec's file
// parameters (machine.TypeFile, e.g. prompt templates) name, by absolute
// path, resolved as the actions resolve them (machine.FileParams: the spec's
// folder, then root). It is recorded in Meta.Files when a run starts, so that
// resume notices a template that changed. Files that cannot be read are left
// out (validation reports them); nil when there are none.
func FileHashes(spec *mspec.Spec, reg *machine.Registry, root string) map[string]string {
	var out map[string]string
	for _, p := range machine.FileParams(spec, reg, root) {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[abs] = fileHash(b)
	}
	return out
}

func fileHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// FileChange is a file recorded in Meta.Files whose content is not what it
// was when the run began.
type FileChange struct {
	Path    string // absolute (Run.AbsPath of the recorded one)
	Missing bool   // the file is gone (or cannot be read); else it changed
	Err     error  // why it cannot be read, when Missing
}

// Show returns the path to print: relative to the current directory when
// the file is under it, else absolute.
func (f FileChange) Show() string { return ShowPath(f.Path) }

// ShowPath returns path relative to the current directory when it is under
// it, else as it is.
func ShowPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// ChangedFiles compares the files recorded in r.Meta.Files with their content
// now, sorted by path; nil when none changed (or none were recorded). A path
// recorded relative to the run (RelPath) is read where the run is now.
func (r *Run) ChangedFiles() []FileChange {
	var out []FileChange
	for recorded, sum := range r.Meta.Files {
		path := r.AbsPath(recorded)
		b, err := os.ReadFile(path)
		switch {
		case err != nil:
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
			out = append(out, FileChange{Path: path, Missing: true, Err: err})
		case fileHash(b) != sum:
			out = append(out, FileChange{Path: path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

package runstore

import (
	"path/filepath"
	"strings"
)

// Paths in run.json. A run records the files it works on (its spec, the
// templates in Meta.Files, and its caller's own, such as a project root in
// Meta.Agent) relative to its own directory when they and the store lie
// inside the same project root: a project copied or moved with its runs then
// resumes on its own files at the new place, never on the original's. Paths
// outside the root stay absolute, and so do the paths of runs made before
// (AbsPath reads both).

// RelPath returns path as a run of s records it: relative to the run's
// directory when path and the store's directory both lie inside root (a
// project root), else path as it is. Run.AbsPath reverses it.
func (s *Store) RelPath(root, path string) string {
	if path == "" || root == "" || !filepath.IsAbs(path) {
		return path
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return path
	}
	dirAbs, err := filepath.Abs(s.Dir)
	if err != nil || !within(rootAbs, path) || !within(rootAbs, dirAbs) {
		return path
	}
	// Every run directory is one level below the store's.
	rel, err := filepath.Rel(filepath.Join(dirAbs, "run"), path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

// RelPath is Store.RelPath for the store that holds r.
func (r *Run) RelPath(root, path string) string {
	return (&Store{Dir: filepath.Dir(r.Dir)}).RelPath(root, path)
}

// AbsPath returns a path the run recorded (RelPath) as an absolute path:
// a relative one is joined to the run's directory as it is now.
func (r *Run) AbsPath(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return path
	}
	return filepath.Join(dir, filepath.FromSlash(path))
}

// RelPaths returns files (Meta.Files: hashes by absolute path) with their
// paths as RelPath records them.
func (s *Store) RelPaths(root string, files map[string]string) map[string]string {
	if files == nil {
		return nil
	}
	out := make(map[string]string, len(files))
	for p, sum := range files {
		out[s.RelPath(root, p)] = sum
	}
	return out
}

// within reports whether path is dir or inside it (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// RelPaths is Store.RelPaths for the store that holds r.
func (r *Run) RelPaths(root string, files map[string]string) map[string]string {
	return (&Store{Dir: filepath.Dir(r.Dir)}).RelPaths(root, files)
}

package actions

// Prompt templates: where a template file is found (the spec's folder, then
// the project root; a run's pinned copies first), how it is read, and the
// functions templates may call.

import (
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"path/filepath"
	"strings"
	"text/template"
)

var TemplateFuncs = template.FuncMap{
	"join":  strings.Join,
	"trim":  strings.TrimSpace,
	"inc":   func(i int) int { return i + 1 },
	"lines": func(s []string) string { return strings.Join(s, "\n") },
}

// FindTemplate finds the template file name: among a run's pinned
// templates first, then relative to the spec's folder, then the root.
func (d *Deps) FindTemplate(name string) (string, error) {
	if len(d.Pinned) > 0 && filepath.IsLocal(filepath.FromSlash(name)) {
		// A run's pinned templates (the Temporal engine's) were read inside
		// the root when the run started.
		for _, dir := range []string{d.SpecDir, d.RootDir(), filepath.Join(d.RootDir(), "specs")} {
			if dir == "" {
				continue
			}
			if p := filepath.Join(dir, name); hasKey(d.Pinned, p) {
				return d.unhidden(name, p)
			}
		}
	}
	found, tried, err := mspec.LocateFile(name, d.SpecDir, d.RootDir())
	if err != nil {
		return "", fmt.Errorf("cannot use prompt template: %w", err)
	}
	if found == "" {
		return "", fmt.Errorf("cannot find prompt template %q (looked in %s)", name, strings.Join(tried, ", "))
	}
	return d.unhidden(name, found)
}

// unhidden returns path, the template name was found at, unless the run's
// policy hides it (hiddenIn).
func (d *Deps) unhidden(name, path string) (string, error) {
	if h := hiddenIn(d.hidePolicy(), path, d.RootDir()); h != "" {
		return "", fmt.Errorf("cannot use prompt template: %w", hiddenFileError(name, h))
	}
	return path, nil
}

// ReadTemplate reads a template FindTemplate found, as machine.ReadNamedFile
// reads files a spec names (inside the root, a regular file, capped).
func (d *Deps) ReadTemplate(path string) ([]byte, error) {
	src, err := mspec.ReadNamedFile(path, d.SpecDir, d.RootDir())
	if err != nil {
		return nil, fmt.Errorf("cannot read prompt template %s: %w", path, err)
	}
	return src, nil
}

func hasKey(m map[string][]byte, k string) bool {
	_, ok := m[k]
	return ok
}

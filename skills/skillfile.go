package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OpenSkillFile reads a skill from any markdown file: a folder's skills.md
// (then it is OpenSkill of the folder), or a file of another name, such as
// task.md, whose skill is named after the file (its name without the
// extension). The agent learns into that file as into a skills.md. A
// missing file is an error wrapping ErrNotFound; a folder is an error
// saying to name the file or use the folder as a skill.
func OpenSkillFile(path string) (*SkillDoc, error) {
	if filepath.Base(path) == DocFile {
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return OpenSkill(filepath.Dir(path))
		}
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot open skill %q: no file %s: %w", name, path, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open skill %q: %w", name, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("cannot open skill %q: %s is a folder, not a markdown file: %w", name, path, ErrInvalid)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open skill %q: %w", name, err)
	}
	return &SkillDoc{Path: path, Name: name, Text: string(data)}, nil
}

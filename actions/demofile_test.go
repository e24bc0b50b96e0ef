package actions

import (
	"os"
	"path/filepath"
	"testing"
)

// A general spec's scripted replies: next to the spec, else next to its
// prompt templates or in their parent folder, else the skill's.
func TestDemoFileOfAGeneralSpec(t *testing.T) {
	root := t.TempDir()
	specs := filepath.Join(root, "specs")
	prompts := filepath.Join(specs, "x", "prompts")
	if err := os.MkdirAll(prompts, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("replies: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skill := filepath.Join(root, "skills", "hello_skill", "demo.yaml")
	tests := []struct {
		name        string
		files       []string
		templateDir string
		want        string
	}{
		{"no template rendered yet: the skill's", nil, "", skill},
		{"the parent folder of the prompts", []string{filepath.Join(specs, "x", "demo.yaml")}, prompts, filepath.Join(specs, "x", "demo.yaml")},
		{"the prompts' own folder first", []string{filepath.Join(prompts, "demo.yaml")}, prompts, filepath.Join(prompts, "demo.yaml")},
		{"next to the spec wins", []string{filepath.Join(specs, "demo.yaml")}, prompts, filepath.Join(specs, "demo.yaml")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range tt.files {
				write(f)
				defer os.Remove(f)
			}
			d := &Deps{Root: root, SpecDir: specs, templateDir: tt.templateDir}
			if got := d.demoFile(); got != tt.want {
				t.Errorf("demoFile() = %s, want %s", got, tt.want)
			}
		})
	}
}

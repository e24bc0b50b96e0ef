package runstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

func TestFileHashesAndChangedFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.md", "b.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "tmpl", Run: func(context.Context, *machine.Call) error { return nil },
		Params: []machine.ParamSpec{{Name: "t", Type: mspec.TypeFile, Required: true}}})
	src := []byte("lpp: 1\nname: f\ninitial: a\nstates:\n  a: {do: tmpl, with: {t: a.md}, next: b}\n  b: {do: tmpl, with: {t: b.md}, next: c}\n  c: {do: tmpl, with: {t: a.md}, next: done}\n  done: {final: true}\n")
	spec, diags := validate.Check(filepath.Join(dir, "s.yaml"), src, reg)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	files := FileHashes(spec, reg, dir)
	if len(files) != 2 || files[filepath.Join(dir, "a.md")] != fileHash([]byte("a.md")) {
		t.Fatalf("got %v", files)
	}
	r := &Run{Meta: Meta{Files: files}}
	if c := r.ChangedFiles(); len(c) != 0 {
		t.Fatalf("nothing changed, got %v", c)
	}
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("A"), 0o644)
	os.Remove(filepath.Join(dir, "b.md"))
	c := r.ChangedFiles()
	if len(c) != 2 || c[0].Path != filepath.Join(dir, "a.md") || c[0].Missing || !c[1].Missing || c[1].Err != nil {
		t.Errorf("got %+v", c)
	}
}

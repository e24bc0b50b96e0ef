package validate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// fileRegistry is the built-ins plus an action with file parameters.
func fileRegistry() *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	reg.MustRegister(machine.Action{Name: "tmpl", Run: func(context.Context, *machine.Call) error { return nil }, Params: []machine.ParamSpec{
		{Name: "template", Type: mspec.TypeFile, Required: true},
		{Name: "extra", Type: mspec.TypeFile, Default: "prompts/extra.md"},
	}})
	return reg
}

const fileSpec = `lpp: 1
name: f
initial: a
states:
  a:
    do: tmpl
    with: {template: TEMPLATE}
    next: done
  done: {final: true}
`

// fileTree makes DIR/specs/prompts/{a.md,extra.md}, DIR/prompts/root.md and
// DIR/specs/t.yaml with the given template, and moves into DIR.
func fileTree(t *testing.T, template string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"specs/prompts/a.md", "specs/prompts/extra.md", "prompts/root.md"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("hello {{.Goal}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := strings.Replace(fileSpec, "TEMPLATE", template, 1)
	if err := os.WriteFile(filepath.Join(dir, "specs", "t.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

func TestFileParametersAreChecked(t *testing.T) {
	tests := []struct {
		template string
		want     string // Diagnostic.String() of the only diagnostic ("" for none)
	}{
		{"prompts/a.md", ""},    // in the spec's folder
		{"prompts/root.md", ""}, // in the project root
		{"prompts/aa.md", `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "prompts/aa.md" not found (looked for specs/prompts/aa.md, prompts/aa.md); did you mean "prompts/a.md"?`},
		{"promts/a.md", `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "promts/a.md" not found (looked for specs/promts/a.md, promts/a.md); did you mean "prompts/a.md"?`},
		{"prompts/zzzzzzzz.md", `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": file "prompts/zzzzzzzz.md" not found (looked for specs/prompts/zzzzzzzz.md, prompts/zzzzzzzz.md); files in specs/prompts: a.md, extra.md`},
		{"prompts", `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": cannot read file specs/prompts: it is a directory (not a regular file); the action reads it when the run gets there`},
		{`""`, `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": the file name is empty; give the file's path, relative to the spec's folder`},
		{"42", `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": int 42 is not a file path (string); tmpl takes template: file (required), extra: file = prompts/extra.md`},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			fileTree(t, tt.template)
			src, err := os.ReadFile("specs/t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			_, diags := Check("specs/t.yaml", src, fileRegistry())
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

func TestFileParameterRootOptionAndDefault(t *testing.T) {
	dir := fileTree(t, "prompts/root.md")
	src, _ := os.ReadFile("specs/t.yaml")
	other := t.TempDir()
	t.Chdir(other)
	spec := filepath.Join(dir, "specs", "t.yaml")
	// From elsewhere, prompts/root.md is found only under --root.
	if _, diags := Check(spec, src, fileRegistry(), WithRoot(dir)); len(diags) != 0 {
		t.Errorf("with the root: got %v", diags)
	}
	_, diags := Check(spec, src, fileRegistry())
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, `file "prompts/root.md" not found`) {
		t.Errorf("without the root: got %v", diags)
	}
	// A defaulted file parameter is checked too, at the action.
	if err := os.Remove(filepath.Join(dir, "specs", "prompts", "extra.md")); err != nil {
		t.Fatal(err)
	}
	_, diags = Check(spec, src, fileRegistry(), WithRoot(dir))
	if len(diags) != 1 || diags[0].Pos != (mspec.Pos{Line: 6, Col: 9}) || !strings.Contains(diags[0].Msg, `parameter "extra" of action "tmpl": file "prompts/extra.md" not found`) {
		t.Errorf("defaulted: got %v", diags)
	}
}

func TestFileParameterUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	fileTree(t, "prompts/a.md")
	if err := os.Chmod("specs/prompts/a.md", 0); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("specs/t.yaml")
	_, diags := Check("specs/t.yaml", src, fileRegistry())
	if len(diags) != 1 || diags[0].String() != `specs/t.yaml:7:22: error: parameter "template" of action "tmpl": cannot read file specs/prompts/a.md: permission denied; the action reads it when the run gets there` {
		t.Errorf("got %v", diags)
	}
}

func TestResolveFileMatchesTheActionsLookup(t *testing.T) {
	dir := fileTree(t, "prompts/a.md")
	abs := filepath.Join(dir, "specs", "prompts", "a.md")
	for _, tt := range []struct{ name, specDir, root, want string }{
		{"prompts/a.md", "specs", ".", "specs/prompts/a.md"},
		{"prompts/root.md", "specs", ".", "prompts/root.md"},
		{"prompts/a.md", "", ".", "specs/prompts/a.md"}, // root/specs
		{"prompts/a.md", "/nonexistent", dir, filepath.Join(dir, "specs", "prompts", "a.md")},
		{abs, "specs", ".", abs}, // absolute, inside the root
		{abs, "x", "y", ""},      // absolute, outside the root: refused
		{"nope.md", "specs", ".", ""},
	} {
		if got, _ := mspec.ResolveFile(tt.name, tt.specDir, tt.root); got != tt.want {
			t.Errorf("ResolveFile(%q, %q, %q) = %q, want %q", tt.name, tt.specDir, tt.root, got, tt.want)
		}
	}
}

func TestFileParams(t *testing.T) {
	fileTree(t, "prompts/root.md")
	spec, diags := Check("specs/t.yaml", mustRead(t, "specs/t.yaml"), fileRegistry())
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	got := machine.FileParams(spec, fileRegistry(), ".")
	want := []string{"prompts/root.md", "specs/prompts/extra.md"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package machine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes through Parse, Validate and Export: none may
// panic, and a spec without errors must compile.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"testdata/specs/*.yaml", "testdata/broken/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add([]byte("lpp: 1\nname: x\ninitial: a\nstates: {a: {next: [{to: a, when: 'a ?? b'}]}}\n"))
	reg := NewBuiltinRegistry()
	f.Fuzz(func(t *testing.T, src []byte) {
		spec, diags := Check("fuzz.yaml", src, reg)
		for _, d := range diags {
			_ = d.Pretty(src)
		}
		if spec == nil {
			return
		}
		_ = Validate(spec, reg)
		for _, format := range ExportFormats {
			if _, err := Export(spec, format, ExportOptions{ShowSet: true, Path: spec.StateNames()}); err != nil {
				t.Fatalf("export %s: %v", format, err)
			}
		}
		if !diags.HasErrors() {
			if _, err := Compile(spec, reg); err != nil {
				t.Fatalf("the spec validates but does not compile: %v\n%s", err, src)
			}
		}
	})
}

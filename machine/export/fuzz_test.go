package export

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

var directionLineRE = regexp.MustCompile(`direction\s+(TB|BT|LR|RL|TD)`) // Mermaid's lexer: /.*direction\s+LR[^\n]*/

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
	reg := machine.NewBuiltinRegistry()
	f.Fuzz(func(t *testing.T, src []byte) {
		spec, diags := validate.Check("fuzz.yaml", src, reg)
		lines := mspec.LineCount(src)
		for _, d := range diags {
			_ = d.Pretty(src)
			if d.Pos.Line > lines+1 || d.Pos.Line < 0 || d.Pos.Col < 0 {
				t.Fatalf("a diagnostic points outside the file (%d lines): %s\n%s", lines, d, src)
			}
		}
		if spec == nil {
			return
		}
		_ = validate.Validate(spec, reg)
		for _, format := range ExportFormats {
			out, err := Export(spec, format, ExportOptions{ShowSet: true, Path: spec.StateNames()})
			if err != nil {
				t.Fatalf("export %s: %v", format, err)
			}
			if format == "dot" {
				continue
			}
			// What real Mermaid misreads must never reach its input (see mermaidText).
			for i, line := range strings.Split(string(out), "\n") {
				if directionLineRE.MatchString(line) || i > 0 && strings.Contains(line, "%%") && !strings.HasPrefix(line, "    %% spec ") ||
					format == "mermaid" && (strings.Contains(line, "::") || strings.Contains(line, ";")) {
					t.Fatalf("export %s: line %d would be misread by Mermaid: %q", format, i+1, line)
				}
			}
		}
		if !diags.HasErrors() {
			if _, err := machine.Compile(spec, reg); err != nil {
				t.Fatalf("the spec validates but does not compile: %v\n%s", err, src)
			}
		}
	})
}

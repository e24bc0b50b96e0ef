package lpp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	"gopkg.in/yaml.v3"
)

// FuzzImport feeds arbitrary bytes to the whole importer: decoding, the
// gate translator, translation to a spec and the diagram. It must never
// panic, every error must have a position, and a blueprint that loads must
// translate to YAML.
func FuzzImport(f *testing.F) {
	for _, glob := range []string{"../testdata/lpp/*.json", "../testdata/lpp/malformed/*.json", filepath.Join(lppRealDir, "*.json")} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Add([]byte(`{"$schema":"lpp/v0.1.0"}`))
	f.Add([]byte(`[1,2,{"a":"\u00e9"}]`))
	m := &mapfile.Mapping{Units: map[string]mapfile.Unit{}, Start: []string{"START"}, Auto: []string{"DONE", "AUTO"}}
	f.Fuzz(func(t *testing.T, src []byte) {
		bp, diags := Parse("fuzz.json", src)
		if bp != nil && !IsBlueprint(src) { // recognising keeps only $schema: it must agree
			t.Fatalf("Parse read a blueprint IsBlueprint does not recognise")
		}
		for _, d := range diags {
			if d.Pos.Line < 1 || d.Pos.Col < 1 {
				t.Fatalf("diagnostic without a position: %s", d)
			}
		}
		if diags.HasErrors() {
			return
		}
		for _, g := range bp.Gates {
			if g.ComputeUnit != "" {
				m.Units[g.ComputeUnit] = mapfile.Unit{Script: "u.py", Function: "f"}
			}
		}
		for _, a := range bp.Actions {
			if a.ComputeUnit != "" {
				m.Units[a.ComputeUnit] = mapfile.Unit{Script: "u.py", Function: "f"}
			}
		}
		tr, err := Translate(bp, m)
		if err != nil {
			t.Fatalf("a loaded blueprint does not translate: %v", err)
		}
		out := tr.YAML
		for _, text := range [][]byte{out, tr.Text()} { // the translation's line breaks only: no text of the blueprint breaks a line
			if i := bytes.IndexFunc(text, func(r rune) bool { return r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029 }); i >= 0 {
				t.Fatalf("a line break the translation did not write, at byte %d:\n%s", i, text)
			}
		}
		var doc any
		if err := yaml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("translation is not YAML: %v\n%s", err, out)
		}
		for line := 1; line <= bytes.Count(out, []byte("\n")); line++ {
			if p, ok := tr.Origin(line); !ok || p.Line < 1 {
				t.Fatalf("line %d of the translation comes from nowhere (%v)", line, p)
			}
		}
		_ = Mermaid(bp)
		// Written back, the translation is a blueprint that reads, or an
		// error (never a panic).
		spec, sd := tr.Spec()
		if spec == nil || sd.HasErrors() {
			return
		}
		if back, err := FromSpec(spec); err == nil {
			if _, diags := Parse("back.json", back); diags.HasErrors() {
				t.Fatalf("written back, the blueprint does not read: %v\n%s", diags.Errors().Err(), back)
			}
		}
	})
}

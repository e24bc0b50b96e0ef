package lpp

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine/lpp/mapfile"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite golden files")

// blueprints returns the test blueprints (not the malformed corpus).
func blueprints(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/lpp/*.json")
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 test blueprints, found %d (%v)", len(files), err)
	}
	return files
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no golden file (run with -update): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (run with -update to accept):\n%s", path, got)
	}
}

// TestToSpecYAMLGolden translates every test blueprint with the mapping
// beside it and compares with the golden spec; the output is YAML.
func TestToSpecYAMLGolden(t *testing.T) {
	for _, f := range blueprints(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			bp, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := mapfile.Load(mapfile.Path(f))
			if err != nil {
				t.Fatal(err)
			}
			out, err := ToSpecYAML(bp, m)
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := yaml.Unmarshal(out, &doc); err != nil {
				t.Fatalf("output is not YAML: %v\n%s", err, out)
			}
			golden(t, strings.TrimSuffix(f, ".json")+".spec.yaml.golden", out)
		})
	}
}

// TestMalformedBlueprints: every malformed blueprint gets positioned
// errors (file:line:col), never a panic; the messages are golden.
func TestMalformedBlueprints(t *testing.T) {
	files, _ := filepath.Glob("../testdata/lpp/malformed/*.json")
	if len(files) < 10 {
		t.Fatalf("malformed corpus has %d files", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f)
			var de *mspec.DiagnosticsError
			if !errors.As(err, &de) {
				t.Fatalf("want positioned diagnostics, got %v", err)
			}
			var b strings.Builder
			for _, d := range de.Diags {
				if d.Pos.Line < 1 || d.Pos.Col < 1 {
					t.Errorf("diagnostic without a position: %s", d)
				}
				fmt.Fprintln(&b, d.String())
			}
			golden(t, strings.TrimSuffix(f, ".json")+".err.golden", []byte(b.String()))
		})
	}
}

func TestMissingUnitsFailNamingEveryUnit(t *testing.T) {
	bp, err := Load("../testdata/lpp/compute_gate.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ToSpecYAML(bp, mapfile.Default())
	want := "no compute mapping for units risk:check, risk:score: add them to the compute mapping (units: {NS:OP: {script: scripts/NS.py, function: OP}})"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

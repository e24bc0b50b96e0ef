package mapfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseMapping(t *testing.T) {
	src := `units:
  pricing:quote: {script: scripts/pricing.py, function: quote_v2}
  pricing:check: scripts/pricing.py
driver:
  start: [BEGIN]
  auto: [DONE]
`
	m, diags := Parse("m.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if u := m.Units["pricing:quote"]; u.Script != "scripts/pricing.py" || u.Function != "quote_v2" {
		t.Errorf("long form: %+v", u)
	}
	if u := m.Units["pricing:check"]; u.Script != "scripts/pricing.py" || u.Function != "check" {
		t.Errorf("short form: the function is the operation: %+v", u)
	}
	if strings.Join(m.Start, ",") != "BEGIN" || strings.Join(m.Auto, ",") != "DONE" {
		t.Errorf("driver: start %v auto %v", m.Start, m.Auto)
	}
}

func TestParseMappingErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"units: [a]", "m.yaml:1:8: error: units must map unit names (ns:op) to scripts"},
		{"units:\n  nocolon: a.py", `m.yaml:2:3: error: "nocolon" is not a compute unit name (namespace:operation); write it as "namespace:operation"`},
		{"units:\n  a:b: a.sh", `m.yaml:2:8: error: unit "a:b" needs a script (a .py file); give the path of a Python script, e.g. scripts/a.py`},
		{"units:\n  a:b: {script: a.py, function: 1x}", `m.yaml:2:8: error: function "1x" of unit "a:b" is not a Python identifier`},
		{"units:\n  a:b: {script: s/a.py, fn: x}", `m.yaml:2:25: error: unknown key "fn" in unit "a:b"; known keys: script, function`},
		{"driver:\n  auto: DONE", "m.yaml:2:9: error: driver auto must be a list of event names; write a list, e.g. [DONE]"},
		{"driver:\n  auto: [DO-NE]", `m.yaml:2:10: error: "DO-NE" is not an event name`},
		{"driver:\n  later: [X]", `m.yaml:2:3: error: unknown key "later" in driver; known keys: start, auto`},
		{"unit: {}", `m.yaml:1:1: error: unknown key "unit" in the compute mapping; known keys: units, driver`},
		{"- a", "m.yaml:1:1: error: a compute mapping must be a mapping; write `units:` and `driver:` keys"},
		{"units: {a", "m.yaml:1:1: error: invalid YAML: line 1: did not find expected ',' or '}'"},
		// a script beside the blueprint: the run's default policy refused it
		// when the run started ("script_dirs[0]: "." must start with a fixed
		// directory such as scripts"), naming neither the unit nor the fix
		{"units:\n  u:echo: {script: u.py, function: echo}", `m.yaml:2:11: error: script "u.py" of unit "u:echo" is not in a folder: lppctl runs compute scripts only from folders below the one the run starts in (the policy's script_dirs, which it write-protects); move it into a folder, e.g. scripts/u.py, and write that path here`},
		{"units:\n  u:echo: ./u.py", `m.yaml:2:11: error: script "./u.py" of unit "u:echo" is not in a folder: lppctl runs compute scripts only from folders below the one the run starts in (the policy's script_dirs, which it write-protects); move it into a folder, e.g. scripts/u.py, and write that path here`},
	}
	for _, tt := range tests {
		_, diags := Parse("m.yaml", []byte(tt.src))
		if len(diags) != 1 || diags[0].String() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, diags, tt.want)
		}
	}
}

func TestLoadMappingMissingFileIsTheDefaultNamingThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bp.lppctl.yaml")
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.File != path || len(m.Units) != 0 || strings.Join(m.Start, ",") != "START" || strings.Join(m.Auto, ",") != "DONE,AUTO" {
		t.Fatalf("got %+v", m)
	}
	if err := os.WriteFile(path, []byte("units: 3"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "units must map unit names") {
		t.Fatalf("a broken mapping: got %v", err)
	}
}

func TestMappingPath(t *testing.T) {
	if got := Path("dir/ticket.json"); got != "dir/ticket.lppctl.yaml" {
		t.Fatal(got)
	}
}

func TestAUnitNameIsAnyTextWithOneColonAsLppRunsIt(t *testing.T) {
	src := `units:
  impl:json.load: {script: scripts/impl.py, function: json_load}
  impl:self._validate_references: {script: scripts/impl.py, function: validate_references}
  my-ns:do it: {script: scripts/ns.py, function: do_it}
`
	m, diags := Parse("m.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for name, fn := range map[string]string{"impl:json.load": "json_load", "impl:self._validate_references": "validate_references", "my-ns:do it": "do_it"} {
		if u, ok := m.Units[name]; !ok || u.Function != fn || u.Script == "" {
			t.Errorf("%s: got %+v (mapped %v)", name, u, ok)
		}
	}
}

func TestAUnitWhoseOperationIsNoPythonNameNeedsAFunction(t *testing.T) {
	tests := []struct{ src, want string }{
		{"units:\n  impl:json.load: scripts/impl.py",
			`m.yaml:2:3: error: unit "impl:json.load" needs a function: its operation "json.load" is not a Python identifier; name the Python function: impl:json.load: {script: scripts/impl.py, function: json_load}`},
		{"units:\n  a:b:c: scripts/a.py", `m.yaml:2:3: error: "a:b:c" is not a compute unit name (namespace:operation); write it as "namespace:operation"`},
	}
	for _, tt := range tests {
		_, diags := Parse("m.yaml", []byte(tt.src))
		if len(diags) != 1 || diags[0].String() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.src, diags, tt.want)
		}
	}
}

package mapfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"gopkg.in/yaml.v3"
)

// Mapping is the small file next to a blueprint that tells lppctl how to
// run it (BLUEPRINT.lppctl.yaml for BLUEPRINT.json):
//
//	units:                                  # compute units: "ns:op" → a Python script
//	  pricing:quote: {script: scripts/pricing.py, function: quote}
//	  pricing:check: scripts/pricing.py     # short form: the function is the operation (check)
//	driver:
//	  start: [START]                        # fired once when a run starts, if the entry state accepts it
//	  auto: [DONE, AUTO]                    # fired when a state that accepts them is entered
//
// Every key is optional; DefaultMapping gives the driver defaults.
type Mapping struct {
	File  string
	Units map[string]Unit
	Start []string // events the run fires once at its start (the first the entry state accepts)
	Auto  []string // events the run fires on entering a state (the first the state accepts)
	// Unmapped lets Translate write a unit the mapping does not place as
	// a no-op (validate, check, import, export: the mapping is needed
	// only to run); CheckUnits names them.
	Unmapped bool
}

// Unit is where a compute unit lives: a script (a path as script.run takes
// it) and the function in it.
type Unit struct {
	Script   string
	Function string
	Pos      mspec.Pos
}

// Default is the mapping of a blueprint without a mapping file: no
// compute units, START fired at the start, DONE and AUTO on entering a state.
func Default() *Mapping {
	return &Mapping{Units: map[string]Unit{}, Start: []string{"START"}, Auto: []string{"DONE", "AUTO"}}
}

// Path returns the mapping file of the blueprint at path:
// BLUEPRINT.lppctl.yaml beside BLUEPRINT.json.
func Path(blueprint string) string {
	return strings.TrimSuffix(blueprint, filepath.Ext(blueprint)) + ".lppctl.yaml"
}

// Load reads a mapping file; a missing file gives DefaultMapping.
// Problems are a *machine.DiagnosticsError with positions.
func Load(path string) (*Mapping, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		m := Default()
		m.File = path // named by a missing-unit error: where to add them
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read compute mapping: %w", err)
	}
	m, diags := Parse(path, src)
	if diags.HasErrors() {
		return nil, &mspec.DiagnosticsError{Diags: diags, Source: src}
	}
	return m, nil
}

// Parse decodes a mapping file.
func Parse(file string, src []byte) (*Mapping, mspec.Diagnostics) {
	m := Default()
	m.File = file
	var diags mspec.Diagnostics
	errorf := func(n *yaml.Node, hint, format string, args ...any) {
		diags = append(diags, mspec.Diagnostic{Severity: mspec.SevError, File: file, Pos: mspec.Pos{Line: n.Line, Col: n.Column},
			Span: max(len([]rune(n.Value)), 1), Msg: fmt.Sprintf(format, args...), Hint: hint})
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return m, nil
		}
		diags = append(diags, mspec.Diagnostic{Severity: mspec.SevError, File: file, Pos: mspec.Pos{Line: 1, Col: 1}, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
		return m, diags
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		errorf(root, "write `units:` and `driver:` keys", "a compute mapping must be a mapping")
		return m, diags
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "units":
			if v.Kind != yaml.MappingNode {
				errorf(v, "", "units must map unit names (ns:op) to scripts")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				uk, uv := v.Content[j], v.Content[j+1]
				if !UnitRE.MatchString(uk.Value) {
					errorf(uk, `write it as "namespace:operation"`, "%q is not a compute unit name (namespace:operation)", uk.Value)
					continue
				}
				op := uk.Value[strings.LastIndex(uk.Value, ":")+1:]
				u := Unit{Function: op, Pos: mspec.Pos{Line: uk.Line, Col: uk.Column}}
				switch uv.Kind {
				case yaml.ScalarNode:
					u.Script = uv.Value
				case yaml.MappingNode:
					for x := 0; x+1 < len(uv.Content); x += 2 {
						switch uv.Content[x].Value {
						case "script":
							u.Script = uv.Content[x+1].Value
						case "function":
							u.Function = uv.Content[x+1].Value
						default:
							errorf(uv.Content[x], "known keys: script, function", "unknown key %q in unit %q", uv.Content[x].Value, uk.Value)
						}
					}
				}
				if !strings.HasSuffix(u.Script, ".py") {
					errorf(uv, "give the path of a Python script, e.g. scripts/"+strings.ReplaceAll(uk.Value[:strings.LastIndex(uk.Value, ":")], ".", "_")+".py",
						"unit %q needs a script (a .py file)", uk.Value)
					continue
				}
				if !gate.IdentRE.MatchString(u.Function) {
					if u.Function == op { // "impl:json.load": the operation is no Python name
						errorf(uk, fmt.Sprintf("name the Python function: %s: {script: %s, function: %s}", uk.Value, u.Script, identOf(op)),
							"unit %q needs a function: its operation %q is not a Python identifier", uk.Value, op)
						continue
					}
					errorf(uv, "", "function %q of unit %q is not a Python identifier", u.Function, uk.Value)
					continue
				}
				if d := filepath.ToSlash(filepath.Dir(filepath.Clean(u.Script))); d == "." || d == "/" {
					// the policy's script_dirs are write-protected folders
					// below the run's: never the folder itself (the gateway
					// refuses "." when the run starts)
					errorf(uv, "move it into a folder, e.g. scripts/"+filepath.Base(u.Script)+", and write that path here",
						"script %q of unit %q is not in a folder: lppctl runs compute scripts only from folders below the one the run starts in (the policy's script_dirs, which it write-protects)", u.Script, uk.Value)
					continue
				}
				m.Units[uk.Value] = u
			}
		case "driver":
			if v.Kind != yaml.MappingNode {
				errorf(v, "", "driver must be a mapping with start and auto")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				dk, dv := v.Content[j], v.Content[j+1]
				var list []string
				if dv.Kind != yaml.SequenceNode {
					errorf(dv, "write a list, e.g. [DONE]", "driver %s must be a list of event names", dk.Value)
					continue
				}
				for _, it := range dv.Content {
					if !gate.IdentRE.MatchString(it.Value) {
						errorf(it, "", "%q is not an event name", it.Value)
						continue
					}
					list = append(list, it.Value)
				}
				switch dk.Value {
				case "start":
					m.Start = list
				case "auto":
					m.Auto = list
				default:
					errorf(dk, "known keys: start, auto", "unknown key %q in driver", dk.Value)
				}
			}
		default:
			errorf(k, "known keys: units, driver", "unknown key %q in the compute mapping", k.Value)
		}
	}
	return m, diags
}

// MissingUnitsError names every compute unit a blueprint uses that its
// mapping does not place.
type MissingUnitsError struct {
	Units   []string
	Mapping string    // the mapping file's path ("" when unknown)
	Pos     mspec.Pos // the first gate or action (in file order) using one of them
}

func (e *MissingUnitsError) Error() string {
	where := "the compute mapping"
	if e.Mapping != "" {
		where = e.Mapping
	}
	return fmt.Sprintf("no compute mapping for %s %s: add %s to %s (units: {NS:OP: {script: scripts/NS.py, function: OP}})",
		map[bool]string{true: "unit", false: "units"}[len(e.Units) == 1], strings.Join(e.Units, ", "), map[bool]string{true: "it", false: "them"}[len(e.Units) == 1], where)
}

// UnitRE is the form of a compute unit name: "namespace:operation", any
// text with exactly one colon, as lpp runs it (lpp-format.md §9: it splits
// the name at ":" and runs a name of exactly two parts, whatever their
// characters: "impl:json.load", "impl:self._validate_references").
var UnitRE = regexp.MustCompile(`^[^:]+:[^:]+$`)

// identOf is a Python identifier standing for an operation that is none
// ("json.load": json_load), for a hint.
func identOf(op string) string {
	b := []byte(op)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && i > 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

package layout

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The spec model (machine/spec) and the runtime (machine): the spec model
// depends on nothing under machine/, and the checker and the exporters,
// which import the runtime for its compiled model, name nothing else of it.

// runtimeUses are the only identifiers of package machine (the runtime) that
// the checker's and the exporters' code may name: the compiled model they
// walk (the checker also the action a state names and the VarSpec of its
// writes, and the names of the
// built-in fail and emit, whose outcomes it models), and what they share
// with a run (CloneValue, ErrBudget, SetValueMessage: a refused set is worded
// as the run words it). Never the
// run loop (Run, NewRun, Call, delivery, memory).
var runtimeUses = map[string][]string{
	"machine/check":  {"Action", "ActionEmit", "ActionFail", "Cassign", "Cevent", "CloneValue", "Cstate", "Ctrans", "ErrBudget", "GuardsSaw", "Machine", "SetValueMessage", "VarSpec"},
	"machine/export": {"Cassign", "Cevent", "CloneValue", "Cstate", "Ctrans", "ErrBudget", "GuardsSaw", "Machine"},
}

// machineNames lists, sorted, the identifiers that the Go file src names
// from package machine (module/machine), by its import name.
func machineNames(name, src string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot parse %s: %w", name, err)
	}
	q := ""
	for _, is := range f.Imports {
		if p, _ := strconv.Unquote(is.Path.Value); p == module+"/machine" {
			q = "machine"
			if is.Name != nil {
				q = is.Name.Name
			}
		}
	}
	if q == "" {
		return nil, nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := se.X.(*ast.Ident); ok && x.Name == q && x.Obj == nil {
				out = append(out, se.Sel.Name)
			}
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out), nil
}

func TestSpecModelDependsOnNothingOfTheRuntime(t *testing.T) {
	deps := parseLines(goList(t, `{{.ImportPath}} {{join .Deps " "}}`, "./machine/spec"))
	ds, ok := deps[module+"/machine/spec"]
	require.True(t, ok, "go list ./machine/spec lists no machine/spec")
	var bad []string
	for _, d := range ds {
		if d == module+"/machine" || strings.HasPrefix(d, module+"/machine/") && !strings.HasPrefix(d, module+"/machine/spec/") {
			bad = append(bad, d)
		}
	}
	assert.Empty(t, bad, "machine/spec must not depend on the runtime (machine) nor on another package under machine/ but its own")
}

func TestCheckerAndExportersNameOnlyTheCompiledModelOfTheRuntime(t *testing.T) {
	for pkg, allowed := range runtimeUses {
		files, err := filepath.Glob(filepath.Join(root(t), pkg, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "no Go file in %s", pkg)
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			require.NoError(t, err)
			names, err := machineNames(file, string(src))
			require.NoError(t, err)
			for _, n := range names {
				assert.Contains(t, allowed, n, "%s names machine.%s: the checker and the exporters read the compiled model, not the run loop (or add it to runtimeUses and the package's doc.go)", file, n)
			}
		}
	}
}

func TestMachineNamesListsWhatAFileNamesFromTheRuntime(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"compiled model", "package check\nimport \"" + module + "/machine\"\nvar m *machine.Machine\nvar c machine.Cstate\nvar d *machine.Machine\n",
			[]string{"Cstate", "Machine"}},
		{"the run loop", "package check\nimport \"" + module + "/machine\"\nfunc f(r *machine.Run) { machine.NewRun(nil) }\n",
			[]string{"NewRun", "Run"}},
		{"an alias", "package check\nimport rt \"" + module + "/machine\"\nvar r rt.Run\n", []string{"Run"}},
		{"the spec model is not the runtime", "package check\nimport \"" + module + "/machine/spec\"\nvar s spec.Spec\n", nil},
		{"a local named machine", "package check\nimport \"" + module + "/machine\"\nvar _ machine.Machine\nfunc f() { machine := struct{ Run int }{}; _ = machine.Run }\n",
			[]string{"Machine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := machineNames("x.go", tt.src)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

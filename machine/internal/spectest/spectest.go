// Package spectest holds the test helpers that the tests of machine's stage
// packages (check, export) share: compiling a spec from text or from a file
// of the corpus, the registry of the check corpus's actions, and golden
// files. Only tests import it.
package spectest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// Compile parses src and compiles it against reg (built-ins when nil).
func Compile(t testing.TB, src string, reg *machine.Registry) *machine.Machine {
	t.Helper()
	spec, diags := spec.Parse("test.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags.Err())
	}
	if reg == nil {
		reg = machine.NewBuiltinRegistry()
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

// SpecFile validates and compiles a spec file against Registry, failing
// the test on any diagnostic.
func SpecFile(t testing.TB, file string) *machine.Machine {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	reg := Registry()
	spec, diags := validate.Check(filepath.Base(file), src, reg, validate.WithoutFiles())
	if diags.HasErrors() {
		t.Fatalf("%s is invalid:\n%s", file, diags.PrettyAll(src))
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return m
}

// Registry holds the built-in actions and the actions the check corpus
// uses: pick writes dir (an enum), and, for the seeded-defect corpus, count
// writes n (an int), flag writes ok (a bool), label writes name (a string),
// call writes nothing. Unlike the built-in noop, none of them declares
// NeverFails: the check takes their states' on_error routes.
func Registry() *machine.Registry {
	reg := machine.NewBuiltinRegistry()
	noop := func(context.Context, *machine.Call) error { return nil }
	reg.MustRegister(machine.Action{Name: "pick", Run: noop, Writes: []machine.VarSpec{{Name: "dir", Type: spec.TypeString}}})
	reg.MustRegister(machine.Action{Name: "count", Run: noop, Writes: []machine.VarSpec{{Name: "n", Type: spec.TypeInt}}})
	reg.MustRegister(machine.Action{Name: "flag", Run: noop, Writes: []machine.VarSpec{{Name: "ok", Type: spec.TypeBool}}})
	reg.MustRegister(machine.Action{Name: "label", Run: noop, Writes: []machine.VarSpec{{Name: "name", Type: spec.TypeString}}})
	reg.MustRegister(machine.Action{Name: "call", Run: noop})
	return reg
}

// Golden compares got with the golden file path, or rewrites it when the
// test binary runs with -update.
func Golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read golden file (run with -update to create it): %v", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

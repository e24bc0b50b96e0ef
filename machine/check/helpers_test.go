package check_test

// A helper of machine's tests that the check tests use too (copied: a test
// helper cannot be imported across packages).

import (
	"testing"

	"github.com/lppctl/lppctl/machine"
)

// compileSpec parses src and compiles it against reg (built-ins when nil).
func compileSpec(t testing.TB, src string, reg *machine.Registry) *machine.Machine {
	t.Helper()
	spec, diags := machine.Parse("test.yaml", []byte(src))
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

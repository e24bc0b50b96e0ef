package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	"github.com/lppctl/lppctl/machine/spec"
)

// coneRegistry has an action, read, that writes a list, a map and a
// nullable string.
func coneRegistry() *machine.Registry {
	reg := spectest.Registry()
	reg.MustRegister(machine.Action{Name: "read", Run: func(context.Context, *machine.Call) error { return nil },
		Writes: []machine.VarSpec{{Name: "items", Type: spec.TypeList}, {Name: "x", Type: spec.TypeString}}})
	return reg
}

// A set whose target nothing reads is still evaluated, so what it reads
// must take every value that can make it fail: an item of a list may be of
// any type (sum, all, first(items) + 1 fail on a string), and a nullable
// variable may be null (len(x) fails), except where a guard has ruled it
// out. Before, such a set was evaluated on the defaults only: PASS for a
// spec whose run fails, and a false FAIL for a read of a nullable variable
// the guard had checked.
func TestASetNothingReadsIsEvaluatedOnEveryValueThatCanMakeItFail(t *testing.T) {
	tests := []struct {
		name, target, expr, when string
		fails                    string // "" for a PASS
	}{
		{"a sum of a list's items", "c", "sum(items)", "true", "invalid operation: string + int"},
		{"a predicate on a list's items", "b", "all(items, # > 0)", "true", "invalid operation: string > int"},
		{"arithmetic on an item", "s", "string(first(items) + 1)", "true", "invalid operation"},
		{"a count of a list's items", "c", "count(items, # > 0)", "true", "invalid operation: string > int"},
		{"len of a nullable string", "c", "len(x)", "true", "invalid argument for len (type <nil>)"},
		{"len of a nullable string a guard checked", "c", "len(x)", "x != nil", ""},
		{"a list's length", "c", "len(items)", "true", ""},
		{"a membership in a list", "b", "2 in items", "true", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `lpp: 1
name: cone
context:
  items: {type: list, default: [1, 2]}
  x: {type: string, nullable: true}
  b: bool
  c: int
  s: string
initial: a
states:
  a:
    do: read
    next:
      - {to: b, when: '` + tt.when + `'}
      - {to: done}
  b:
    set: {` + tt.target + `: '` + tt.expr + `'}
    next: done
  done: {final: true}
`
			m := spectest.Compile(t, src, coneRegistry())
			for _, interpreted := range []bool{false, true} {
				r := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: interpreted})
				for _, p := range r.Properties {
					if p.Property != check.PropEvaluation {
						continue
					}
					if tt.fails == "" {
						if p.Verdict != check.Pass {
							t.Errorf("interpreted %v: %s %s, want PASS", interpreted, p.Verdict, p.Message)
						}
						continue
					}
					if p.Verdict != check.Fail || !strings.Contains(p.Message, tt.fails) {
						t.Errorf("interpreted %v: %s %q, want FAIL with %q", interpreted, p.Verdict, p.Message, tt.fails)
					}
				}
			}
		})
	}
}

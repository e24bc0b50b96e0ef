package machine_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr/builtin"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// docBuiltinRow is one row of docs/spec.md's table of expression built-ins.
type docBuiltinRow struct{ name, example, set string }

func docBuiltins(t *testing.T) []docBuiltinRow {
	t.Helper()
	doc, err := os.ReadFile("../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- builtins:")
	table, _, ok2 := strings.Cut(rest, "<!-- /builtins -->")
	if !ok || !ok2 {
		t.Fatal("docs/spec.md has no <!-- builtins: --> ... <!-- /builtins --> table")
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z0-9]+)` \\| `([^`]+)` \\| ([a-z]+) \\|$")
	var rows []docBuiltinRow
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		rows = append(rows, docBuiltinRow{m[1], m[2], m[3]})
	}
	if len(rows) < len(builtin.Names) {
		t.Fatalf("the table has %d rows, fewer than the %d built-ins", len(rows), len(builtin.Names))
	}
	return rows
}

// runDocExample validates and runs a spec whose state a runs body; it
// returns the first error (validation or run), or nil.
func runDocExample(vars, body string) error {
	src := `
lpp: 1
name: t
context: {s: {type: string, default: abc}, l: {type: list, default: [1, 2, 3]}, m: {type: map, default: {a: 1}}` + vars + `}
initial: a
states:
  a: ` + body + `
  done: {final: true}
`
	spec, diags := mspec.Parse("t.yaml", []byte(src))
	if diags.HasErrors() {
		return diags.Err()
	}
	reg := machine.NewBuiltinRegistry()
	if diags := validate.Validate(spec, reg); diags.HasErrors() {
		return diags.Err()
	}
	m, err := machine.Compile(spec, reg)
	if err != nil {
		return err
	}
	r, err := m.NewRun(nil)
	if err != nil {
		return err
	}
	return r.Run(context.Background())
}

// TestDocumentedBuiltinsDoWhatTheDocsSay runs every row of docs/spec.md's
// table of expression built-ins: the example works in a guard and an expr
// parameter, and a set stores it in a variable of the documented type, or
// (for "no") in none.
func TestDocumentedBuiltinsDoWhatTheDocsSay(t *testing.T) {
	documented := map[string]bool{}
	for _, r := range docBuiltins(t) {
		documented[r.name] = true
		t.Run(r.example, func(t *testing.T) {
			if !slices.Contains(builtin.Names, r.name) {
				t.Errorf("%s is not an expression built-in", r.name)
			}
			body := fmt.Sprintf(`{do: log, with: {message: x, value: '%s'}, next: [{to: done, when: 'type(%s) != ""'}, done]}`, r.example, r.example)
			if err := runDocExample("", body); err != nil {
				t.Errorf("in a guard and a parameter: %v", err)
			}
			set := func(typ string) error {
				return runDocExample(", v: "+typ, fmt.Sprintf(`{do: noop, set: {v: '%s'}, next: done}`, r.example))
			}
			if r.set != "no" {
				if err := set(r.set); err != nil {
					t.Errorf("set into a %s: %v", r.set, err)
				}
				return
			}
			for _, typ := range mspec.VarTypes {
				if err := set(string(typ)); err == nil {
					t.Errorf("set into a %s works; the docs say it does not", typ)
				}
			}
		})
	}
	for _, name := range builtin.Names {
		if !documented[name] {
			t.Errorf("docs/spec.md's table of built-ins has no row for %s", name)
		}
	}
}

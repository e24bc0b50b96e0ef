package lpp

import (
	"encoding/json"
	"regexp"
	"slices"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// nonNilRE is the one final_requires condition L++ can say: an output
// is not null (an output_schema field with non_null).
var nonNilRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*!=\s*nil\s*$`)

// contract writes the terminal contract of final state st. raw is the
// contract the spec was imported with (its `# lpp-blueprint:` line; empty
// when none): it is written as it was, and st's final_requires, which the
// import derived from it, must be among its non_null outputs. Without
// one, each `NAME != nil` of final_requires becomes an output_schema
// field with non_null; any other condition is refused, as is a condition
// in a v0.1.x blueprint (list: its terminal_states holds no contracts).
func (w *writer) contract(st *mspec.State, raw json.RawMessage, list bool) (any, error) {
	var c any = jobj{}
	var nonNull []string // the outputs raw requires
	if len(raw) > 0 {
		c = raw
		var parsed struct {
			Outputs map[string]struct {
				NonNull bool `json:"non_null"`
			} `json:"output_schema"`
		}
		if json.Unmarshal(raw, &parsed) == nil {
			for name, f := range parsed.Outputs {
				if f.NonNull {
					nonNull = append(nonNull, name)
				}
			}
		}
	}
	outputs := jobj{}
	for _, r := range st.FinalRequires {
		m := nonNilRE.FindStringSubmatch(r.Expr)
		switch {
		case m != nil && slices.Contains(nonNull, m[1]):
			continue // the import wrote it from the contract
		case list:
			return nil, w.fail(st, nil, r.Pos, "final_requires %q (%s): a v0.1.x blueprint's terminal_states lists ids, without contracts (export as v0.2.0: remove the spec's # lpp-blueprint: line, or the condition)", r.Name, r.Expr)
		case len(raw) > 0:
			return nil, w.fail(st, nil, r.Pos, "final_requires %q (%s) is not in the terminal contract the spec was imported with (add the output to its contract in the # lpp-blueprint: line, or remove the condition)", r.Name, r.Expr)
		case m == nil || w.spec.Var(m[1]) == nil:
			return nil, w.fail(st, nil, r.Pos, "final_requires %q (%s) has no L++ equivalent: a terminal contract only says that a context variable is not null (NAME != nil)", r.Name, r.Expr)
		}
		if !slices.ContainsFunc(outputs, func(kv jkv) bool { return kv.k == m[1] }) {
			outputs = append(outputs, jkv{m[1], jobj{{"type", cmpOr(lppTypes[w.spec.Var(m[1]).Type], "string")}, {"non_null", true}}})
		}
	}
	if len(outputs) > 0 {
		return jobj{{"output_schema", outputs}}, nil
	}
	return c, nil
}

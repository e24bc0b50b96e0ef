package lpp

import (
	"encoding/json"

	mspec "github.com/lppctl/lppctl/machine/spec"
)

// refMeta is a set action's value_from that the spec holds as a literal
// (a payload field stored into properties of two types: nil; the whole
// payload of an event that carries no declared field: {}), so that
// export writes the value_from back, not the literal (FromSpec, when the
// spec's set still holds that literal).
type refMeta struct {
	Action string          `json:"action"`
	Target string          `json:"target"`
	Src    string          `json:"value_from"`
	Value  json.RawMessage `json:"value"`
	expr   string          // the set's expression as translated (before resolve)
}

// noteRef records the set entry of a value_from action.
func (tr *translator) noteRef(a *Action, kv kvExpr) kvExpr {
	if a.ValueFrom != "" {
		tr.refs = append(tr.refs, refMeta{Action: a.ID, Target: a.Target, Src: a.ValueFrom, expr: kv.v})
	}
	return kv
}

// lostRefs returns the recorded value_from actions whose set FromSpec
// reads as a literal, with that literal.
func (tr *translator) lostRefs() []refMeta {
	var out []refMeta
	for _, r := range tr.refs {
		act, err := (&writer{}).setAction(&mspec.Assign{Var: pathRoot(r.Target), Expr: tr.resolve(r.expr)})
		if err != nil {
			continue
		}
		for _, kv := range act {
			if kv.k != "value" {
				continue
			}
			raw, err := json.Marshal(kv.v)
			if err != nil {
				break
			}
			r.Value = raw
			dup := false
			for _, o := range out {
				dup = dup || o.Action == r.Action && string(o.Value) == string(raw)
			}
			if !dup {
				out = append(out, r)
			}
		}
	}
	return out
}

// keptRef gives back the value_from of action id when the spec's set
// holds the literal the import wrote for it (see refMeta).
func (w *writer) keptRef(id string, a jobj) jobj {
	if w.md == nil || len(a) != 3 || a[0].v != ActionSet || a[2].k != "value" {
		return a
	}
	raw, err := json.Marshal(a[2].v)
	if err != nil {
		return a
	}
	for _, r := range w.md.Refs {
		if r.Action == id && r.Target == a[1].v && string(r.Value) == string(raw) {
			return jobj{a[0], a[1], {"value_from", r.Src}}
		}
	}
	return a
}

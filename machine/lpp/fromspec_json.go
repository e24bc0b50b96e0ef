package lpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/yamltext"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// jobj is a JSON object that keeps its keys in order.
type jobj []jkv

type jkv struct {
	k string
	v any
}

func (o jobj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalJSON(kv.k, "")
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalJSON(kv.v, "")
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func paramString(st *mspec.State, name string) (string, bool) {
	for _, p := range st.With {
		if p.Name == name {
			s, ok := p.Value.(string)
			return s, ok
		}
	}
	return "", false
}

func paramMap(st *mspec.State, name string) (map[string]any, bool) {
	for _, p := range st.With {
		if p.Name == name {
			m, ok := p.Value.(map[string]any)
			return m, ok
		}
	}
	return nil, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// lppTypes maps lppctl's types back to L++'s.
var lppTypes = map[mspec.Type]string{mspec.TypeString: "string", mspec.TypeFloat: "number", mspec.TypeInt: "integer", mspec.TypeBool: "boolean", mspec.TypeList: "array", mspec.TypeMap: "object"}

func (w *writer) json() ([]byte, error) {
	spec, md := w.spec, w.md
	desc := spec.Description
	if md == nil { // lpp's loader requires an id, a name and a version
		md = &meta{Schema: SchemaV02, ID: spec.Name, Name: spec.Name, Version: "1.0.0", Description: spec.Description}
	} else if len(desc) < yamltext.LongText {
		// The import writes the name as the spec's description when the
		// blueprint has none; the metadata holds the description, but for a
		// long one, which only the spec's description: holds.
		desc = ""
	}
	out := jobj{{"$schema", md.Schema}}
	for _, kv := range []jkv{{"id", md.ID}, {"name", md.Name}, {"version", md.Version}} {
		if raw, ok := md.IdentJSON[kv.k]; ok && raw != nil { // not a string: as the blueprint wrote it
			kv.v = raw
		}
		out = append(out, kv) // even "": the loader requires the key
	}
	if d := cmpOr(md.Description, desc); d != "" {
		out = append(out, jkv{"description", d})
	}
	sp := func(n string) string { // the blueprint's own spelling
		if o, ok := md.Names[n]; ok {
			return o
		}
		return n
	}
	props := jobj{}
	for _, v := range spec.Context {
		// the translation's own variables (_state's, a helper state's
		// payload, a name's defined flag, a compute gate's result): of an
		// imported spec, those whose doc the import wrote (a property of the
		// blueprint called lpp_version is the blueprint's); of a spec written
		// by hand, lppctl's lpp_ names
		_, renamed := md.Names[v.Name]
		own := strings.HasPrefix(v.Name, "lpp_") && !renamed
		if w.md != nil {
			own = strings.HasPrefix(v.Name, "lpp_") && strings.HasPrefix(v.Doc, genDoc)
		}
		if own || slices.Contains(md.Implicit, v.Name) {
			continue
		}
		p := jobj{{"type", cmpOr(lppTypes[v.Type], "string")}}
		for _, pt := range md.PropTypes { // a "type" that is not one of L++'s six, as written
			if pt.Name == v.Name && pt.Type == p[0].v {
				if pt.Src == "" {
					p = jobj{}
				} else {
					p[0].v = json.RawMessage(pt.Src)
				}
			}
		}
		if v.Doc != "" {
			p = append(p, jkv{"description", v.Doc})
		}
		if len(v.Enum) > 0 {
			p = append(p, jkv{"enum", v.Enum})
		}
		if v.Default != nil {
			p = append(p, jkv{"default", v.Default})
		}
		props = append(props, jkv{sp(v.Name), p})
	}
	out = append(out, jkv{"context_schema", jobj{{"properties", props}}})
	states := jobj{}
	terms := []string{} // never null: an empty list is a list
	var finals []*mspec.State
	for _, st := range spec.States {
		if w.helper(st) || waitRE.MatchString(st.Note) || chooseRE.MatchString(st.Note) {
			continue
		}
		s := jobj{}
		if st.Note != "" {
			s = append(s, jkv{"description", st.Note})
		}
		if !slices.Contains(md.TermOnly, st.Name) {
			states = append(states, jkv{sp(st.Name), s})
		}
		if st.Final {
			terms = append(terms, sp(st.Name))
			finals = append(finals, st)
		}
	}
	out = append(out, jkv{"states", states}, jkv{"entry_state", sp(w.entry())})
	contracts := jobj{}
	for _, st := range finals {
		var raw json.RawMessage
		for _, tm := range md.Terminals {
			if tm.ID == st.Name && len(tm.Raw) > 0 {
				raw = tm.Raw
			}
		}
		c, err := w.contract(st, raw, md.TermList)
		if err != nil {
			return nil, err
		}
		contracts = append(contracts, jkv{sp(st.Name), c})
	}
	if md.TermList {
		out = append(out, jkv{"terminal_states", terms})
	} else {
		out = append(out, jkv{"terminal_states", contracts})
	}
	gates := jobj{}
	for _, id := range w.gateOrder {
		if u, ok := strings.CutPrefix(w.gates[id], "compute:"); ok {
			gates = append(gates, jkv{id, jobj{{"type", GateCompute}, {"compute_unit", u}}})
			continue
		}
		gates = append(gates, jkv{id, jobj{{"type", GateExpression}, {"expression", w.gates[id]}}})
	}
	actions := jobj{}
	for _, id := range w.actOrder {
		actions = append(actions, jkv{id, spellAction(w.actions[id], sp)})
	}
	trans := make([]jobj, 0, len(w.trans))
	for _, t := range w.trans {
		id := t.id
		if h := w.hint(t.id); h != nil && h.As != "" {
			id = h.As // a repeated id, as the blueprint wrote it
		}
		o := jobj{{"id", id}, {"from", sp(t.from)}, {"to", sp(t.to)}, {"on_event", sp(t.event)}}
		if len(t.gates) > 0 {
			o = append(o, jkv{"gates", t.gates})
		}
		if len(t.actions) > 0 {
			o = append(o, jkv{"actions", t.actions})
		}
		trans = append(trans, o)
	}
	out = append(out, jkv{"gates", gates}, jkv{"actions", actions}, jkv{"transitions", trans})
	if len(md.Display) > 0 {
		out = append(out, jkv{"display", md.Display})
	}
	for _, x := range md.Extra {
		out = append(out, jkv{x.Key, x.JSON})
	}
	b, err := marshalJSON(out, "  ")
	if err != nil {
		return nil, fmt.Errorf("cannot write blueprint: %w", err)
	}
	return append(b, '\n'), nil
}

// spellAction writes the names an action reads and writes (the root of a
// path, an emitted event) in the blueprint's spelling.
func spellAction(a jobj, sp func(string) string) jobj {
	path := func(p string) string {
		if strings.HasPrefix(p, "event.") {
			return p
		}
		root, rest, dotted := strings.Cut(p, ".")
		if dotted {
			return sp(root) + "." + rest
		}
		return sp(root)
	}
	out := make(jobj, len(a))
	for i, kv := range a {
		out[i] = kv
		switch v := kv.v.(type) {
		case string:
			if kv.k == "target" || kv.k == "value_from" || kv.k == "event" {
				out[i].v = path(v)
			}
		case jobj:
			if kv.k == "output_map" || kv.k == "input_map" || kv.k == "payload_map" {
				m := make(jobj, len(v))
				for j, e := range v {
					m[j] = e
					if kv.k == "output_map" {
						m[j].k = path(e.k)
					} else if s, ok := e.v.(string); ok {
						m[j].v = path(s)
					}
				}
				out[i].v = m
			}
		}
	}
	return out
}

// marshalJSON is json.Marshal (json.MarshalIndent with an indent) that
// leaves <, > and & as they are: gates compare with them.
func marshalJSON(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

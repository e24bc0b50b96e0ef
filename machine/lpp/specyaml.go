package lpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/yamltext"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// metaPrefix starts the comment line that keeps what of the blueprint the
// spec does not hold (identity, schema, display, other keys, terminal
// contracts), for writing the blueprint back.
const metaPrefix = "# lpp-blueprint: "

// meta is what the spec keeps of the blueprint for writing it back.
type meta struct {
	Schema  string `json:"$schema"`
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	// IdentJSON: an id, name or version that is not a string, as written.
	IdentJSON   map[string]json.RawMessage `json:"ident_json,omitempty"`
	Description string                     `json:"description,omitempty"`
	Display     json.RawMessage            `json:"display,omitempty"`
	Extra       []rawJSON                  `json:"extra,omitempty"`
	TermList    bool                       `json:"terminal_list,omitempty"` // terminal_states was a list (v0.1.x)
	Terminals   []termMeta                 `json:"terminals,omitempty"`
	Entry       string                     `json:"entry,omitempty"`
	// Transitions keeps what the spec's transitions do not say of the
	// blueprint's: their order in its array, a "*" source, the event a
	// driver fires, and the ids of their gates and actions. What they do
	// (targets, guards, sets, steps) is read from the spec by FromSpec.
	Transitions []transMeta `json:"transitions,omitempty"`
	// GateText keeps each used expression gate as written and as
	// translated: FromSpec writes the blueprint's own text back when the
	// spec's guard still holds that translation.
	GateText []gateTextMeta `json:"gate_text,omitempty"`
	Quoted   []quotedMeta   `json:"quoted_inputs,omitempty"`
	// Unmapped: the compute actions a transition runs whose unit the
	// mapping does not place (a no-op of the spec), as the blueprint
	// wrote them, for FromSpec.
	Unmapped []unmappedMeta `json:"unmapped,omitempty"`
	// Refs: value_from actions the spec holds as a literal (see refMeta).
	Refs []refMeta `json:"value_from,omitempty"`
	// Names maps the internal names of states, events and properties the
	// blueprint spells otherwise to its spelling; Implicit lists the
	// properties it uses without declaring; TermOnly the terminal states
	// it lists only under terminal_states.
	Names    map[string]string `json:"names,omitempty"`
	Implicit []string          `json:"implicit,omitempty"`
	// Defined maps an implicit property a gate reads to its defined flag
	// (Property.Flag), for the caller's --var.
	Defined map[string]string `json:"defined,omitempty"`
	// PropTypes: the properties whose "type" is not one of L++'s six (or
	// absent), as written, with the L++ type lppctl gave them.
	PropTypes []propTypeMeta `json:"property_types,omitempty"`
	TermOnly  []string       `json:"terminal_only,omitempty"`
}

// unmappedMeta is a compute action whose unit had no mapping: its unit
// and maps in the blueprint's spelling (an input_map value is a JSON
// value: a path's text, or the number the blueprint wrote).
type unmappedMeta struct {
	Action string      `json:"action"`
	Unit   string      `json:"unit"`
	Input  []rawKV     `json:"input_map,omitempty"`
	Output [][2]string `json:"output_map,omitempty"`
}

// rawKV is one entry of an input_map, its value as JSON.
type rawKV struct {
	Key   string          `json:"k"`
	Value json.RawMessage `json:"v"`
}

// quotedMeta is a quoted text of a compute action's input_map ("'left'"):
// the spec passes nil (as lpp passes None), FromSpec writes the text back.
// It is also a read of the event itself (event.name, event), which a
// helper state passes as a literal (Expr: the input as translated).
type quotedMeta struct {
	Action string `json:"action"`
	Key    string `json:"key"`
	Src    string `json:"src"`
	Expr   string `json:"expr,omitempty"` // "": nil
}

// propTypeMeta is a property's "type" as the blueprint wrote it (Src, its
// JSON text; "" when it had none) and the L++ type lppctl read it as:
// FromSpec writes Src back while the spec's variable still has that type.
type propTypeMeta struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Src  string `json:"src"`
}

type gateTextMeta struct {
	ID   string `json:"id"`
	Src  string `json:"src"`
	Expr string `json:"expr"`
}

type transMeta struct {
	ID      string   `json:"id"`
	As      string   `json:"as,omitempty"` // the id as written, when it repeats an earlier one's
	From    string   `json:"from"`
	Event   string   `json:"on"`
	Gates   []string `json:"gates,omitempty"`
	Actions []string `json:"actions,omitempty"`
}

type rawJSON struct {
	Key  string          `json:"key"`
	JSON json.RawMessage `json:"json"`
}

type termMeta struct {
	ID  string          `json:"id"`
	Raw json.RawMessage `json:"contract,omitempty"`
}

func flowMap(kvs []kvExpr) string {
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = yamltext.Key(kv.k) + ": " + yamltext.Quote(kv.v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (t sTrans) flow(l *yamltext.Texts) string {
	var parts []string
	if t.from != "" {
		parts = append(parts, "from: "+yamltext.Quote(t.from))
	}
	parts = append(parts, "to: "+yamltext.Key(t.to))
	if t.when != "" {
		parts = append(parts, "when: "+yamltext.Quote(t.when))
	}
	if len(t.set) > 0 {
		parts = append(parts, "set: "+flowMap(t.set))
	}
	if t.note != "" {
		parts = append(parts, "note: "+l.Quote(t.note))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func compactJSON(s string) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return nil
	}
	return b.Bytes()
}

// metaOf is the blueprint's metadata line.
func metaOf(bp *Blueprint, wholeGates []gateTextMeta, refs []refMeta, eventInputs []quotedMeta, unmapped []*Action) []byte {
	md := meta{Schema: bp.Schema, ID: bp.ID, Name: bp.Name, Version: bp.Version, Description: bp.Description,
		TermList: !bp.TerminalMap}
	if len(bp.Description) >= yamltext.LongText {
		// The spec's description: holds a long one whole, line breaks and
		// all (FromSpec reads it there when the metadata has none): it is
		// not written twice.
		md.Description = ""
	}
	for k, raw := range bp.IdentJSON {
		if md.IdentJSON == nil {
			md.IdentJSON = map[string]json.RawMessage{}
		}
		md.IdentJSON[k] = compactJSON(raw)
	}
	if bp.Display != "" {
		md.Display = compactJSON(bp.Display)
	}
	for _, x := range bp.Extra {
		md.Extra = append(md.Extra, rawJSON{Key: x.Key, JSON: compactJSON(x.JSON)})
	}
	for _, t := range bp.Terminals {
		md.Terminals = append(md.Terminals, termMeta{ID: t.ID, Raw: compactJSON(t.Raw)})
	}
	md.Entry = bp.Entry
	for _, t := range bp.Transitions {
		md.Transitions = append(md.Transitions, transMeta{ID: t.ID, As: t.Written, From: t.From, Event: t.Event, Gates: t.Gates, Actions: t.Actions})
	}
	for _, g := range bp.Gates {
		if g.Used && g.Type == GateExpression && g.Expr != "" && g.Expr != g.Expression {
			md.GateText = append(md.GateText, gateTextMeta{ID: g.ID, Src: g.Expression, Expr: g.Expr})
		}
	}
	md.GateText = append(md.GateText, wholeGates...) // as translated where the payload is read whole
	md.Refs = refs
	for _, a := range bp.Actions {
		for _, kv := range a.InputMap {
			if a.Type == ActionCompute && quotedLiteral(kv.Value) {
				md.Quoted = append(md.Quoted, quotedMeta{Action: a.ID, Key: kv.Key, Src: kv.Value})
			}
		}
	}
	md.Quoted = append(md.Quoted, eventInputs...)
	for _, a := range unmapped {
		md.Unmapped = append(md.Unmapped, unmappedOf(bp, a))
	}
	md.Names = bp.Orig
	md.Defined = bp.definedFlags()
	for _, p := range bp.Context {
		if p.Implicit {
			md.Implicit = append(md.Implicit, p.Name)
		}
		if p.Untyped || p.TypeSrc != "" {
			md.PropTypes = append(md.PropTypes, propTypeMeta{Name: p.Name, Type: p.Type, Src: p.TypeSrc})
		}
	}
	for _, st := range bp.States {
		if st.TerminalOnly {
			md.TermOnly = append(md.TermOnly, st.ID)
		}
	}
	raw, _ := json.Marshal(md)
	if bytes.IndexFunc(raw, yamltext.Unprintable) < 0 {
		return raw // the usual case: no second copy of a long description
	}
	return []byte(yamltext.Printable(string(raw)))
}

func (tr *translator) yaml() (text []byte, origins []mspec.Pos) {
	bp := tr.bp
	var b bytes.Buffer
	// Room for the display in the metadata line, so that a long one is not
	// copied again and again as the text grows (long texts are placeholders).
	b.Grow(len(bp.Display) + 64<<10)
	at := mspec.Pos{Line: 1, Col: 1} // the origin of the lines written next
	w := func(format string, args ...any) {
		n := b.Len()
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		for range bytes.Count(b.Bytes()[n:], []byte("\n")) {
			origins = append(origins, at)
		}
	}
	from := "a blueprint"
	if bp.File != "" {
		from = filepath.Base(bp.File)
	}
	what := bp.Schema + " blueprint"
	if bp.Name != "" {
		what += " " + strconv.Quote(bp.Name)
	}
	if bp.Version != "" {
		what += " version " + bp.Version
	}
	w("# Generated by `lppctl import lpp` from %s (%s).", yamltext.Printable(from), yamltext.Printable(what))
	w("# Each blueprint state waits for events (on:), trying its transitions in the blueprint's")
	w("# order: the first whose guard holds is taken. States named with \"__\" are helper states")
	w("# that run one transition's steps in order (see docs/lpp.md).")
	w("# Driver rule: %s", yamltext.Printable(tr.driverRule())) // the mapping's event names
	w("#")
	w("# The line below keeps what of the blueprint a spec has no place for (identity, display, contracts).")
	// Written without fmt: a long description is copied once, not three times.
	b.WriteString(metaPrefix)
	b.Write(metaOf(bp, tr.wholeGates, tr.lostRefs(), tr.eventInputs, tr.unmapped))
	b.WriteByte('\n')
	origins = append(origins, at)
	at = cmpPos(bp.SchemaPos, at)
	w("lpp: 1")
	w("name: %s", specName(bp))
	if d := cmpOr(bp.Description, bp.Name); d != "" {
		b.WriteString("description: ")
		if len(d) >= yamltext.LongText { // whole, line breaks kept: the metadata line need not hold it
			b.WriteString(tr.long.QuoteJSON(d))
		} else {
			b.WriteString(yamltext.Quote(d))
		}
		b.WriteByte('\n')
		origins = append(origins, at)
	}
	w("context:")
	for _, p := range bp.Context {
		at = cmpPos(p.Pos, at)
		parts := []string{"type: " + specTypes[p.Type], "nullable: true"}
		if p.HasDefault && p.Default != nil {
			if d, ok := p.Default.(string); ok {
				parts = append(parts, "default: "+tr.long.QuoteJSON(d))
			} else {
				parts = append(parts, "default: "+yamltext.Value(p.Default))
			}
		}
		if en := stringEnum(p); en != "" {
			parts = append(parts, "enum: "+en)
		}
		if p.Description != "" {
			parts = append(parts, "doc: "+tr.long.Quote(p.Description))
		}
		w("  %s: {%s}", yamltext.Key(p.Name), strings.Join(parts, ", "))
	}
	for _, p := range bp.Context {
		if p.Flag != "" {
			w("  %s: {type: bool, default: false, doc: %s}", p.Flag, yamltext.Quote(genDoc+"whether "+bp.Spelling(p.Name)+" exists in lpp's context yet (a write or the caller's --var sets it): a gate reading it before is false, as in lpp"))
		}
	}
	if bp.ReadsState {
		w("  %s: {type: string, nullable: true, default: %s, doc: %s}", gate.StateVar, yamltext.Quote(bp.Spelling(bp.Entry)), yamltext.Quote(genDoc+"_state: the blueprint state the run rests in"))
	}
	if tr.usesPay {
		w("  %s: {type: map, nullable: true, doc: %s}", payloadVar, yamltext.Quote(genDoc+"the payload of the event being handled, for helper states"))
	}
	for _, v := range tr.gateVars {
		w("  %s: {type: bool, nullable: true, doc: %s}", v, yamltext.Quote(genDoc+"the result of compute gate "+strings.TrimPrefix(v, gateVarPre)))
	}
	initial := bp.Entry
	if tr.startEvent() != "" && tr.reentered() {
		initial = startState
	}
	at = cmpPos(bp.EntryPos, at)
	w("initial: %s", yamltext.Key(initial))
	w("states:")
	for _, st := range tr.states {
		at = cmpPos(st.pos, at)
		if st.comment != "" {
			w("  # %s", yamltext.Printable(st.comment))
		}
		w("  %s:", yamltext.Key(st.name))
		if st.note != "" {
			w("    note: %s", tr.long.Quote(st.note))
		}
		if st.do != "" {
			w("    do: %s", st.do)
		}
		if len(st.with) > 0 {
			w("    with:")
			for _, p := range st.with {
				w("      %s", p)
			}
		}
		if len(st.set) > 0 {
			w("    set: %s", flowMap(st.set))
		}
		if st.final {
			w("    final: true")
			if len(st.reqs) > 0 {
				w("    final_requires: # the terminal contract: output_schema fields with non_null (lppctl check proves them)")
				for _, r := range st.reqs {
					at = r.pos
					w("      %s: %s", yamltext.Key(r.name), r.cond)
				}
				at = st.pos
			}
		}
		if len(st.on) > 0 {
			w("    on:")
			for _, o := range st.on {
				w("      %s:", yamltext.Key(o.event))
				for _, t := range o.list {
					at = cmpPos(t.pos, st.pos, at)
					w("        - %s", t.flow(tr.long))
				}
				at = cmpPos(st.pos, at)
			}
		}
		if len(st.next) > 0 {
			w("    next:")
			for _, t := range st.next {
				at = cmpPos(t.pos, st.pos, at)
				w("      - %s", t.flow(tr.long))
			}
		}
	}
	tr.eventsYAML(w, func(p mspec.Pos) { at = cmpPos(p, at) })
	// Last, so that the lines above keep their numbers.
	w("# lpp ignores the payload keys a blueprint does not read: lppctl drops them, with a warning.")
	w("extra_payload_fields: drop")
	w("# lpp's gate evaluator counts a gate it cannot evaluate (a type clash on a value nothing types) as false: so does lppctl, with a warning.")
	w("guard_errors: as_false")
	return b.Bytes(), origins
}

// cmpPos returns the first position that is set.
func cmpPos(ps ...mspec.Pos) mspec.Pos {
	for _, p := range ps {
		if p.Line > 0 {
			return p
		}
	}
	return mspec.Pos{Line: 1, Col: 1}
}

// eventsYAML writes the top-level events: "*" transitions kept there, and
// declarations of the payloads events carry and of emitted events.
func (tr *translator) eventsYAML(w func(string, ...any), from func(mspec.Pos)) {
	var names []string
	byEvent := map[string][]sTrans{}
	for _, tt := range tr.top {
		if !slices.Contains(names, tt.event) {
			names = append(names, tt.event)
		}
		byEvent[tt.event] = append(byEvent[tt.event], tt.t)
	}
	for _, e := range tr.emitted {
		if tr.handled(e) && !slices.Contains(names, e) {
			names = append(names, e)
		}
	}
	for _, s := range tr.bp.Transitions {
		if len(tr.fields[s.Event]) > 0 && !slices.Contains(names, s.Event) {
			names = append(names, s.Event)
		}
	}
	if len(names) == 0 {
		return
	}
	w("# Events: a state's on: is tried first, then these, in order.")
	w("events:")
	for _, e := range names {
		list, fields := byEvent[e], tr.fields[e]
		if len(list) == 0 && len(fields) == 0 {
			w("  %s: # emitted by the blueprint", yamltext.Key(e))
			continue
		}
		w("  %s:", yamltext.Key(e))
		if len(fields) > 0 {
			var parts []string
			for _, f := range fields {
				enum := ""
				if en := tr.fieldEnum[e+"/"+f.k]; en != "" && f.v == "string" {
					enum = ", enum: " + en // the values of the property it is stored into
				}
				parts = append(parts, yamltext.Key(f.k)+": {type: "+f.v+", required: false, nullable: true"+enum+"}") // a field the event lacks is None
			}
			w("    payload: {%s}", strings.Join(parts, ", "))
		}
		if len(list) > 0 {
			w("    transitions:")
			for _, t := range list {
				from(t.pos)
				w("      - %s", t.flow(tr.long))
			}
		}
	}
}

// stringEnum is a string property's enum as a flow list ("" when it has
// none or it is not all strings: lppctl enums are strings).
func stringEnum(p *Property) string {
	if len(p.Enum) == 0 || p.Type != "string" {
		return ""
	}
	for _, e := range p.Enum {
		if _, ok := e.(string); !ok {
			return ""
		}
	}
	return yamltext.Value(p.Enum)
}

func (tr *translator) driverRule() string {
	var parts []string
	if len(tr.m.Start) > 0 {
		parts = append(parts, strings.Join(tr.m.Start, ", ")+" when the run starts (if the entry state accepts it; one queued with the run, with its payload, first)")
	}
	if len(tr.m.Auto) > 0 {
		parts = append(parts, strings.Join(tr.m.Auto, ", ")+" on entering a state that accepts it")
	}
	parts = append(parts, "other events wait for `lppctl resume ID --event NAME --payload JSON` or an emit")
	return "the run fires " + strings.Join(parts, "; ")
}

// unmappedOf is a compute action as the blueprint wrote it (its paths in
// the blueprint's spelling).
func unmappedOf(bp *Blueprint, a *Action) unmappedMeta {
	orig := func(p string) string {
		if p == gate.StateVar {
			return "_state"
		}
		if strings.HasPrefix(p, "event.") {
			return p
		}
		root, rest, dotted := strings.Cut(p, ".")
		if dotted {
			return bp.Spelling(root) + "." + rest
		}
		return bp.Spelling(root)
	}
	u := unmappedMeta{Action: a.ID, Unit: a.ComputeUnit}
	for _, kv := range a.InputMap {
		v, _ := json.Marshal(orig(kv.Value))
		if lit, ok := strings.CutPrefix(kv.Value, literalRef); ok {
			v = json.RawMessage(lit) // a number (nil: a non-finite one lppctl cannot carry)
			if lit == "nil" {
				v = json.RawMessage("null")
			}
		} else if quotedLiteral(kv.Value) {
			v, _ = json.Marshal(kv.Value)
		}
		u.Input = append(u.Input, rawKV{Key: kv.Key, Value: v})
	}
	for _, kv := range a.OutputMap {
		u.Output = append(u.Output, [2]string{orig(kv.Key), kv.Value})
	}
	return u
}

package lpp

// The translation of a transition's actions and payloads: set targets and
// values, payload fields and their types, literals (translate.go holds the
// translator, its states and transitions).

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// handled reports whether some transition of the blueprint takes event e.
func (tr *translator) handled(e string) bool {
	return slices.ContainsFunc(tr.bp.Transitions, func(t *Transition) bool { return t.Event == e })
}

// readField records a payload field a helper state reads (src is a
// value_from or map source), to be captured and declared.
func (tr *translator) readField(e, src, lppType string) {
	if f, ok := strings.CutPrefix(src, "event.payload."); ok {
		if root, _, nested := strings.Cut(f, "."); nested { // event.payload.o.k: o is a dict
			tr.addField(e, root, "object")
			return
		}
		tr.addField(e, f, cmp.Or(lppType, tr.types[f]))
	}
}

// fieldOf reads the payload field f of base (event.payload, a record, or
// lpp_payload, a map: nil-safe): base.f, or base["f-x"] for a field
// whose name is not an identifier (lpp reads any key).
func fieldOf(base, f string, nilSafe bool) string {
	dot := "."
	if nilSafe {
		dot = "?."
	}
	if gate.IdentRE.MatchString(f) && !gate.ReservedName(f) {
		return base + dot + f
	}
	if !nilSafe {
		dot = ""
	}
	return base + dot + "[" + strconv.Quote(f) + "]"
}

// keyPath is the nil-safe read of the dotted keys rest of a dict:
// ?.k, or ?.["k-x"] for a key that is not an identifier.
func keyPath(rest string) string {
	var b strings.Builder
	for _, k := range strings.Split(rest, ".") {
		if gate.IdentRE.MatchString(k) && !gate.ReservedName(k) {
			b.WriteString("?." + k)
		} else {
			b.WriteString("?.[" + strconv.Quote(k) + "]")
		}
	}
	return b.String()
}

func readsPayload(a *Action) bool {
	if strings.HasPrefix(a.ValueFrom, "event.") {
		return true
	}
	for _, kv := range append(slices.Clone(a.InputMap), a.PayloadMap...) {
		if strings.HasPrefix(kv.Value, "event.") {
			return true
		}
	}
	return false
}

// readsEvent reports whether a path reads the event itself (event,
// event.name, any other key of it but payload): a helper state, where the
// event is gone, passes it as a literal.
func readsEvent(s string) bool {
	return s == "event" || strings.HasPrefix(s, "event.") && !strings.HasPrefix(s, "event.payload")
}

// ref translates a value_from / input_map reference: a context name or
// event.payload.X (read from payload).
func (tr *translator) ref(s, payload, e string) string {
	if f, ok := strings.CutPrefix(s, "event.payload."); ok {
		root, rest, nested := strings.Cut(f, ".")
		x := fieldOf(payload, root, payload != "event.payload")
		if nested { // None as soon as a key is missing
			x += keyPath(rest)
		}
		return x
	}
	if s == "event" || strings.HasPrefix(s, "event.") && !strings.HasPrefix(s, "event.payload") {
		return tr.eventRef(s, payload, e)
	}
	if s == "event.payload" {
		if payload == "event.payload" { // a record: stored as the map of its fields
			tr.usesWhole = true
			return wholeToken(wholeStore, e)
		}
		return payload
	}
	if root, rest, ok := strings.Cut(s, "."); ok { // a dotted path: None as soon as a key is missing
		return root + keyPath(rest)
	}
	return s
}

// eventRef translates a path into the event itself (lpp's scope holds
// event = {name, payload}): event.name on the transition; in a helper
// state, where the event is gone, or for an event the import renamed, the
// transition's event in the blueprint's spelling, known when the blueprint
// is translated (written back as a literal); event is the map of both;
// any other key is None.
func (tr *translator) eventRef(s, payload, e string) string {
	name := strconv.Quote(tr.bp.Spelling(e))
	if payload == "event.payload" && tr.bp.Spelling(e) == e { // on the transition, the event's own name
		name = "event.name"
	}
	switch s {
	case "event":
		return `{"name": ` + name + `, "payload": ` + tr.ref("event.payload", payload, e) + `}`
	case "event.name":
		return name
	}
	return "nil"
}

// scalarTypes are the L++ types whose nullable variable a set cannot copy
// as it is into a property of another type (see setValue).
var scalarTypes = map[string]bool{"number": true, "integer": true, "boolean": true}

// setEntry is the set: entry of a set action. A dotted target (o.k)
// writes into the map o, creating it and its nested maps as lpp does.
func (tr *translator) setEntry(a *Action, payload, e string) kvExpr {
	v := tr.setValue(a, payload, e)
	root, rest, ok := strings.Cut(a.Target, ".")
	if !ok {
		return kvExpr{a.Target, v}
	}
	return kvExpr{root, putPath(root, strings.Split(rest, "."), v)}
}

// defines is the set entry that makes the implicit property target (or
// the root of a dotted target) exist in lpp's context, when a gate reads
// it (Property.Flag); none otherwise.
func (tr *translator) defines(target string) []kvExpr {
	if f := tr.bp.DefinedFlag(pathRoot(target)); f != "" {
		return []kvExpr{{f, "true"}}
	}
	return nil
}

// putPath is an expression for the map m with keys[0]…keys[n-1] (nested)
// set to v: merge (a map of string keys, which a map variable stores; expr's
// fromPairs makes a map of any keys, which it does not).
func putPath(m string, keys []string, v string) string {
	inner := v
	if len(keys) > 1 {
		inner = putPath("("+m+")?.["+strconv.Quote(keys[0])+"]", keys[1:], v)
	}
	return mspec.FnMerge + "(" + m + " ?? {}, {" + strconv.Quote(keys[0]) + ": " + inner + "})"
}

func (tr *translator) setValue(a *Action, payload, e string) string {
	if a.ValueFrom != "" {
		v := tr.ref(a.ValueFrom, payload, e)
		f, isField := strings.CutPrefix(a.ValueFrom, "event.payload.")
		if root, _, nested := strings.Cut(f, "."); isField && nested { // a value inside field root, a dict
			if payload == "event.payload" {
				tr.addField(e, root, "object")
			}
			return v
		}
		if isField && payload == "event.payload" {
			tr.addField(e, f, tr.types[a.Target])
		}
		if isField && tr.types[a.Target] != "" {
			if ft := tr.fieldType(e, f); ft != "" && ft != "any" && ft != specTypes[tr.types[a.Target]] {
				// lppctl's payload fields have one type; lpp stores whatever the field holds.
				tr.warn(mspec.Diagnostic{Severity: mspec.SevWarning, File: tr.bp.File, Pos: a.Pos, Span: len([]rune(a.ID)) + 2,
					Msg:  fmt.Sprintf("action %q stores payload field %q of event %q, a %s where an earlier action stores it, into %q, %s: lppctl stores null (lpp stores the value as it is)", a.ID, f, tr.bp.Spelling(e), ft, tr.bp.Spelling(a.Target), gate.TypeArticle(tr.types[a.Target])),
					Hint: "store the field into properties of one type"})
				return "nil"
			}
		}
		if p := tr.bp.Property(a.Target); isField && p != nil && stringEnum(p) != "" {
			if _, seen := tr.fieldEnum[e+"/"+f]; !seen {
				tr.fieldEnum[e+"/"+f] = stringEnum(p) // the values check sends
			}
		}
		if st := tr.types[a.ValueFrom]; !strings.Contains(a.ValueFrom, ".") && scalarTypes[st] && st != tr.types[a.Target] {
			// A copy into a property of another type (a number into an
			// integer, a boolean into a string) is a compile error as
			// written: first([n]) is untyped, so the set checks the value
			// when the run stores it, and None is stored as None. A copy
			// into a property of the same type is written as it is.
			return "first([" + v + "])"
		}
		return v
	}
	return exprLiteral(a.Value)
}

// payloadFields records the payload fields an expression reads.
func (tr *translator) payloadFields(e, x, typ string) {
	guess := map[string]string{}     // the first use that tells the type, over every read
	container := map[string]string{} // read with .k or [i]: a dict or a list, whatever else it is compared with
	var order []string
	for _, m := range payloadRefRE.FindAllStringSubmatchIndex(x, -1) {
		var f string
		if m[2] >= 0 {
			f = x[m[2]:m[3]]
		} else if q, err := strconv.Unquote(x[m[4]:m[5]]); err == nil {
			f = q // event.payload["first-name"]
		} else {
			continue
		}
		if _, seen := guess[f]; !seen {
			order = append(order, f)
		}
		guess[f] = cmp.Or(guess[f], usedAs(x[m[1]:]))
		container[f] = cmp.Or(container[f], readAs(x[m[1]:]))
	}
	for _, f := range order {
		tr.addField(e, f, cmp.Or(typ, container[f], tr.types[f], guess[f]))
	}
}

// readAs is the L++ type of a payload field the guard reads into (what
// follows it: `?.k` a dict, `?.[0]` a list; "" when it is read whole).
func readAs(after string) string {
	after = strings.TrimPrefix(after, "?")
	switch {
	case strings.HasPrefix(after, ".["), strings.HasPrefix(after, "["):
		if i := strings.IndexByte(after, '[') + 1; i < len(after) && after[i] == '"' {
			return "object" // o["k-x"]
		}
		return "array"
	case strings.HasPrefix(after, "."):
		return "object"
	}
	return ""
}

var (
	usedAsBool   = regexp.MustCompile(`^ ?[!=]= ?(true|false)\b`)
	usedAsNumber = regexp.MustCompile(`^ ?([<>!=]=?|[-+*/%]) ?[-0-9(]`)
)

// usedAs guesses the L++ type of a payload field no property names from
// what follows it in a guard ("" when nothing tells).
func usedAs(after string) string {
	switch {
	case usedAsBool.MatchString(after):
		// `is True` (expr's == true): Python's is holds for True only,
		// and lpp takes any value (1 is True is False): nothing to refuse
		return ""
	case usedAsNumber.MatchString(after):
		return "number"
	}
	return ""
}

func (tr *translator) addField(e, f, lppType string) {
	if len(f) > maxName { // too long for a YAML key: validation names it
		return
	}
	if slices.ContainsFunc(tr.fields[e], func(kv kvExpr) bool { return kv.k == f }) {
		return
	}
	tr.fields[e] = append(tr.fields[e], kvExpr{f, cmpOr(specTypes[lppType], "any")}) // any: nothing tells its type
}

// warn records a warning of the translation, once.
func (tr *translator) warn(d mspec.Diagnostic) {
	if !slices.ContainsFunc(tr.warnings, func(w mspec.Diagnostic) bool { return w.Msg == d.Msg && w.Pos == d.Pos }) {
		tr.warnings = append(tr.warnings, d)
	}
}

// fieldType is the spec type of payload field f of event e ("" when it
// is not declared yet).
func (tr *translator) fieldType(e, f string) string {
	for _, kv := range tr.fields[e] {
		if kv.k == f {
			return kv.v
		}
	}
	return ""
}

// specTypes maps L++ property types to lppctl's.
var specTypes = map[string]string{"string": "string", "number": "float", "integer": "int", "boolean": "bool", "array": "list", "object": "map"}

// exprLiteral writes a JSON value as an expr literal.
func exprLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = exprLiteral(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + exprLiteral(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// specName is the spec's name: the blueprint's id, else its file name.
func specName(bp *Blueprint) string {
	n := sanitize(cmpOr(bp.ID, strings.TrimSuffix(filepath.Base(bp.File), filepath.Ext(bp.File))))
	if n == "" || n == "_" {
		return "blueprint"
	}
	return n
}

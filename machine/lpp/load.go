package lpp

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Load reads and decodes the blueprint at path. The error is a
// *machine.DiagnosticsError (wrapping machine.ErrInvalidSpec) listing every
// problem with its position when the blueprint is malformed; warnings are in
// the blueprint's Warnings. A file over fsx.DefaultMaxBytes is refused (a
// *fsx.TooLargeError).
func Load(path string) (*Blueprint, error) {
	src, err := fsx.ReadFile(path, fsx.DefaultMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("cannot read blueprint: %w", err)
	}
	bp, diags := Parse(path, src)
	if diags.HasErrors() {
		return nil, &mspec.DiagnosticsError{Diags: diags, Source: src}
	}
	return bp, nil
}

// IsBlueprint reports whether src is a JSON object whose `$schema` names an
// L++ blueprint version (lpp/v0.1.x, lpp/v0.2.0, or another lpp/vN, read
// with a warning), or a blueprint (states, transitions, entry_state) under
// any other `$schema` but an L++ assembly's or policy's: lpp's loader does
// not check the value (Parse warns).
func IsBlueprint(src []byte) bool {
	root, s, ok := schemaRoot(src)
	return ok && (blueprintSchema(s) || otherVersion(s) || root != nil && blueprintShaped(root, s))
}

// IsLPP reports whether src is a JSON object whose `$schema` names any L++
// document ("lpp/..."): a blueprint, or an assembly or policy that Parse
// refuses with a message naming what the file is.
func IsLPP(src []byte) bool {
	s, ok := schemaOf(src)
	return ok && strings.HasPrefix(s, "lpp/")
}

// HasSchema reports whether src is a JSON object with a string `$schema`:
// a document that is not an lppctl spec, which Parse reads as a blueprint
// or refuses naming what it is.
func HasSchema(src []byte) bool {
	_, ok := schemaOf(src)
	return ok
}

// ReadAsBlueprint reports whether the file at path holding src is read as
// an L++ document (Parse) rather than as an lppctl spec: a JSON object with
// a string $schema (HasSchema), or any .json file except one that is a JSON
// object without a $schema key (a spec written as JSON) and without the keys
// only a blueprint has (entry_state, terminal_states, transitions,
// context_schema: a blueprint that forgot $schema, refused for it). So a .json file
// that is not JSON at all, or whose $schema is not a string, gets Parse's
// JSON diagnostics ("invalid JSON ... at line:col", "$schema must be ..."),
// not a spec's YAML ones.
func ReadAsBlueprint(path string, src []byte) bool {
	if HasSchema(src) {
		return true
	}
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	root, _, err := jsonpos.Scan(src, true)
	return err != nil || root.Kind != jsonpos.Object || root.Get("$schema") != nil || forgotSchema(root)
}

// forgotSchema reports whether a JSON object without $schema is a
// blueprint that forgot it (lpp's loader requires the key), not a spec
// written as JSON: it has no `lpp` key and a key only blueprints have.
func forgotSchema(root *jsonpos.Node) bool {
	if root.Get("lpp") != nil {
		return false
	}
	for _, k := range []string{"entry_state", "terminal_states", "transitions", "context_schema"} {
		if root.Get(k) != nil {
			return true
		}
	}
	return false
}

func schemaOf(src []byte) (string, bool) {
	_, s, ok := schemaRoot(src)
	return s, ok
}

// schemaRoot is src's `$schema` and its root object (nil when src is too
// large to read).
func schemaRoot(src []byte) (*jsonpos.Node, string, bool) {
	root, s, err := jsonpos.Scan(src, true)
	var je *jsonpos.Error
	if errors.As(err, &je) && je.Limit && s.HasTopSchema {
		return nil, s.TopSchema, true // too large to read, but one of ours: Parse says why
	}
	if err != nil || root.Kind != jsonpos.Object {
		return nil, "", false
	}
	v := root.Get("$schema")
	if v == nil || v.Kind != jsonpos.String {
		return nil, "", false
	}
	return root, v.Str, true
}

// otherVersion reports whether s is "lpp/vN…", a blueprint version lppctl
// does not know: lpp's loader does not check $schema, so it is read as
// lpp/v0.2.0 (as lpp/v0.1.x when it holds "v0.1", the substring lpp's
// loader looks for).
func otherVersion(s string) bool {
	parts := strings.Split(s, "/")
	return len(parts) == 2 && parts[0] == "lpp" && strings.HasPrefix(parts[1], "v") && !blueprintSchema(s)
}

// blueprintShaped reports whether root, whose $schema s is no L++
// document kind ("lpp/assembly/…", "lpp/policy/…"), has what lpp's loader
// requires of a blueprint: states, transitions and entry_state.
func blueprintShaped(root *jsonpos.Node, s string) bool {
	if strings.HasPrefix(s, "lpp/") {
		return false // lpp/KIND/vN: refused naming the kind
	}
	st, tr, en := root.Get("states"), root.Get("transitions"), root.Get("entry_state")
	return st != nil && st.Kind == jsonpos.Object && tr != nil && tr.Kind == jsonpos.Array && en != nil
}

var v01RE = regexp.MustCompile(`^lpp/v0\.1\.[0-9]+$`)

func blueprintSchema(s string) bool { return s == SchemaV02 || v01RE.MatchString(s) }

// decoder collects diagnostics while decoding one blueprint.
type decoder struct {
	file  string
	src   []byte
	diags mspec.Diagnostics
	// declared holds "gates/ID" and "actions/ID" for every id written under
	// gates or actions, valid or not: a reference to an invalid one is not
	// reported again (its declaration's error says what is wrong).
	declared map[string]bool
	// states, props and events map the blueprint's names to internal ones
	// (see load_names.go).
	stateNames, props, events map[string]string
	badInput                  *mspec.Pos // where kvs records a non-string input_map value
	// nonFinite are the numbers lppctl cannot carry (see nonfinite.go);
	// nfNamed those a message has named.
	nonFinite []*jsonpos.Node
	nfNamed   map[*jsonpos.Node]bool
	// refusedTerminals are the terminal ids refused as not states.
	refusedTerminals map[string]bool
	origNames        map[string]bool // the blueprint's own names (see reserveNames)
	untyped          []*untypedProp  // properties typed from their use (load_proptype.go)
}

func (d *decoder) errorf(p mspec.Pos, span int, hint, format string, args ...any) {
	d.diags = append(d.diags, mspec.Diagnostic{Severity: mspec.SevError, File: d.file, Pos: p, Span: span, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (d *decoder) warnf(p mspec.Pos, span int, hint, format string, args ...any) {
	d.diags = append(d.diags, mspec.Diagnostic{Severity: mspec.SevWarning, File: d.file, Pos: p, Span: span, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// Parse decodes a blueprint from src; file names it in diagnostics. It
// never panics: every problem becomes a positioned diagnostic, and the
// blueprint is nil only when src is not a JSON object of an L++ blueprint
// schema. Gate expressions are translated (Gate.Expr) and the ones the
// translator refuses are errors too.
func Parse(file string, src []byte) (bp *Blueprint, diags mspec.Diagnostics) {
	d := &decoder{file: file, src: src}
	defer func() {
		if r := recover(); r != nil { // a bug, not the input's fault: still never let it out
			d.errorf(mspec.Pos{}, 0, "", "cannot decode blueprint: internal error: %v", r)
			bp, diags = nil, d.diags
		}
	}()
	root, sc, err := jsonpos.Scan(src, false)
	if err != nil {
		je := err.(*jsonpos.Error)
		if je.Limit {
			d.errorf(je.Pos, 1, "every string, number, true, false, null, array and object counts; the largest of lpp's own blueprints holds 827", "%s", je.Msg)
			return nil, d.diags
		}
		d.errorf(je.Pos, 1, "a blueprint is one JSON object (RFC 8259: no comments, no trailing commas)", "invalid JSON: %s", je.Msg)
		return nil, d.diags
	}
	if root.Kind != jsonpos.Object {
		d.errorf(root.Pos, 1, "", "a blueprint must be a JSON object, not %s", root.Describe())
		return nil, d.diags
	}
	for _, m := range sc.Dups {
		d.warnf(m.KeyPos, len([]rune(m.Key))+2, "remove the other one: JSON leaves a repeated key's meaning open", "duplicate key %q: lpp (Python's json) keeps the last one, and so does lppctl", m.Key)
	}
	if !d.schema(root) {
		return nil, d.diags
	}
	bp = &Blueprint{File: file, Source: src, Schema: root.Get("$schema").Str, SchemaPos: root.Get("$schema").Pos}
	d.nonFinite = sc.NonFinite
	d.longNames(root, true)
	d.blueprint(root, bp)
	d.unnamedNonFinite()
	d.diags.Sort()
	bp.Warnings = d.diags.Warnings()
	return bp, d.diags
}

// schema checks `$schema` and reports, for an L++ document that is not a
// blueprint, what it is.
func (d *decoder) schema(root *jsonpos.Node) bool {
	m := root.Member("$schema")
	if m == nil {
		d.errorf(root.Pos, 1, `add "$schema": "lpp/v0.2.0" at the top`, "missing \"$schema\": an L++ blueprint names its format version")
		return false
	}
	v := m.Val
	if v.Kind != jsonpos.String {
		d.errorf(v.Pos, 1, `write "$schema": "lpp/v0.2.0"`, "$schema must be a string, not %s", v.Describe())
		return false
	}
	s := v.Str
	if blueprintSchema(s) {
		return true
	}
	span := len([]rune(s)) + 2
	if otherVersion(s) || blueprintShaped(root, s) {
		as := SchemaV02
		if strings.Contains(s, "v0.1") {
			as = "lpp/v0.1.x"
		}
		d.warnf(v.Pos, span, `write "$schema": "lpp/v0.2.0" (or "lpp/v0.1.x")`,
			"$schema %q is not a blueprint version lppctl knows (lpp/v0.1.x, lpp/v0.2.0): lppctl reads the blueprint as %s (lpp's loader does not check $schema)", s, as)
		return true
	}
	parts := strings.Split(s, "/")
	switch {
	case len(parts) == 3 && parts[0] == "lpp" && parts[1] != "":
		d.errorf(v.Pos, span, "lppctl reads L++ blueprints (lpp/v0.1.x, lpp/v0.2.0); give it the blueprint file instead",
			"%s is %s, not a blueprint", s, lppKind(parts[1]))
	case len(parts) == 2 && parts[0] == "lpp" && strings.HasPrefix(parts[1], "v"):
		d.errorf(v.Pos, span, "lppctl reads lpp/v0.1.x and lpp/v0.2.0",
			"unsupported L++ blueprint version %s", s)
	default:
		d.errorf(v.Pos, span, `an L++ blueprint has "$schema": "lpp/v0.2.0" (or "lpp/v0.1.x")`,
			"%s is not an L++ blueprint schema", s)
	}
	return false
}

// lppKind names the document kind of an "lpp/KIND/vX" schema.
func lppKind(k string) string {
	switch k {
	case "assembly":
		return "an L++ assembly"
	case "policy":
		return "an L++ policy"
	}
	if strings.ContainsAny(k[:1], "aeiou") {
		return "an L++ " + k + " document"
	}
	return "a L++ " + k + " document"
}

var topKeys = []string{"$schema", "id", "name", "version", "description", "context_schema", "states",
	"entry_state", "terminal_states", "gates", "actions", "transitions", "display"}

func (d *decoder) blueprint(root *jsonpos.Node, bp *Blueprint) {
	for _, m := range root.Members {
		if !slices.Contains(topKeys, m.Key) {
			bp.Extra = append(bp.Extra, RawMember{Key: m.Key, JSON: d.keptRaw(m.Val, fmt.Sprintf("key %q", m.Key))})
		}
	}
	bp.ID = d.identity(root, bp, "id", `add "id": "my_blueprint" at the top`)
	bp.Name = d.identity(root, bp, "name", `add "name": "My blueprint" at the top`)
	bp.Version = d.identity(root, bp, "version", `add "version": "1.0.0" at the top`)
	bp.Description = d.description(root)
	if v := root.Get("display"); v != nil {
		bp.Display = d.keptRaw(v, "display")
	}
	d.origNames = map[string]bool{}
	d.reserveNames(root.Get("context_schema").Get("properties"))
	d.reserveNames(root.Get("states"))
	d.reserveNames(root.Get("terminal_states"))
	var trans []*jsonpos.Node
	if v := root.Get("transitions"); v != nil {
		trans = v.Items
	}
	for _, it := range trans {
		if ev := it.Get("on_event"); ev != nil && ev.Kind == jsonpos.String {
			d.origNames[ev.Str] = true
		}
	}
	if v := root.Get("context_schema"); v != nil {
		d.context(v, bp)
	} else if m := root.Member("context"); m != nil && m.Val.Get("properties") != nil {
		d.warnf(m.KeyPos, len("context")+2, `rename "context" to "context_schema"`,
			`"context" is the lpp/v0.1.0 spelling of "context_schema" (renamed in lpp/v0.1.1): lpp reads no property from it, nor does lppctl; the names its gates and actions use are undeclared (below)`)
	}
	if m := root.Member("states"); m == nil {
		d.errorf(root.Pos, 1, `add "states": {"STATE": {"description": "..."}}`, "missing \"states\"")
	} else if d.want(m.Val, jsonpos.Object, "states") {
		d.states(m.Val, bp)
	}
	if v := root.Get("terminal_states"); v != nil {
		d.terminals(v, bp)
	}
	if m := root.Member("entry_state"); m == nil {
		d.errorf(root.Pos, 1, `add "entry_state": "STATE"`, "missing \"entry_state\": the state a run starts in")
	} else if d.want(m.Val, jsonpos.String, "entry_state") {
		bp.Entry, bp.EntryPos = d.stateID(m.Val.Str), m.Val.Pos
		if bp.State(bp.Entry) == nil && len(bp.States) > 0 {
			d.errorf(m.Val.Pos, len([]rune(m.Val.Str))+2, d.stateHint(bp, m.Val.Str), "entry_state %q is not a state (lpp's loader refuses it too)", m.Val.Str)
		}
	}
	if v := root.Get("gates"); v != nil && d.want(v, jsonpos.Object, "gates") {
		d.gates(v, bp)
	}
	if v := root.Get("actions"); v != nil && d.want(v, jsonpos.Object, "actions") {
		d.actions(v, bp)
	}
	d.stateHooks(root.Get("states"), bp)
	if m := root.Member("transitions"); m == nil {
		d.errorf(root.Pos, 1, `add "transitions": [{"id": "t1", "from": "...", "to": "...", "on_event": "..."}]`, "missing \"transitions\"")
	} else if d.want(m.Val, jsonpos.Array, "transitions") {
		d.transitions(m.Val, bp)
	}
	d.unusedRules(bp)
	d.implicitProperties(root, bp)
	d.renameRefs(bp)
	d.stateReads(bp)
	d.translateGates(bp)
	d.checkGraph(bp)
}

// unknownKeys warns about keys this package ignores.
func (d *decoder) unknownKeys(n *jsonpos.Node, what string, known ...string) {
	for _, m := range n.Members {
		if !slices.Contains(known, m.Key) {
			hint := mspec.DidYouMeanHint(m.Key, known)
			if hint == "" {
				hint = "known keys: " + strings.Join(known, ", ")
			}
			d.warnf(m.KeyPos, len([]rune(m.Key))+2, hint, "unknown key %q in %s is ignored", m.Key, what)
		}
	}
}

func (d *decoder) want(n *jsonpos.Node, k jsonpos.Kind, what string) bool {
	if n.Kind == k {
		return true
	}
	hint := fmt.Sprintf("write %s here, as lpp's loader reads one (%s)", k, kindExample[k])
	if n.Kind == jsonpos.Null {
		hint = fmt.Sprintf("remove the null, or write %s here (%s)", k, kindExample[k])
	}
	d.errorf(n.Pos, 1, hint, "%s must be %s, not %s", what, k, n.Describe())
	return false
}

// kindExample shows a JSON value of each kind, for want's hint.
var kindExample = [...]string{"null", "true or false", "a number such as 3", `"text"`, `[...]`, `{"key": ...}`}

// identity reads id, name or version: required by lpp's loader, of any
// JSON type (lpp reads them as they are); a value that is not a string is
// kept as its JSON text.
func (d *decoder) identity(root *jsonpos.Node, bp *Blueprint, key, hint string) string {
	m := root.Member(key)
	if m == nil {
		d.errorf(root.Pos, 1, hint, "missing %q: lpp's loader requires the blueprint's id, name and version", key)
		return ""
	}
	if m.Val.Kind == jsonpos.String {
		return m.Val.Str
	}
	raw := d.keptRaw(m.Val, fmt.Sprintf("%q", key))
	if bp.IdentJSON == nil {
		bp.IdentJSON = map[string]string{}
	}
	bp.IdentJSON[key] = raw
	if m.Val.Kind == jsonpos.Null {
		return ""
	}
	return raw
}

// stateHooks checks that the ids on_enter and on_exit list are declared
// actions, as lpp's loader does (though no lpp runtime runs them).
func (d *decoder) stateHooks(states *jsonpos.Node, bp *Blueprint) {
	if states == nil || states.Kind != jsonpos.Object {
		return
	}
	for _, m := range states.Members {
		if m.Val.Kind != jsonpos.Object {
			continue
		}
		for _, k := range []string{"on_enter", "on_exit"} {
			v := m.Val.Get(k)
			if v == nil || v.Kind == jsonpos.Null {
				continue
			}
			if v.Kind != jsonpos.Array {
				d.errorf(v.Pos, 1, fmt.Sprintf(`write "%s": ["ACTION_ID"]`, k), "%s of state %q must be a list of action ids, not %s (lpp's loader refuses it)", k, m.Key, v.Describe())
				continue
			}
			for _, it := range v.Items {
				if it.Kind != jsonpos.String {
					d.errorf(it.Pos, 1, "", "%s of state %q must list action ids, not %s", k, m.Key, it.Describe())
					continue
				}
				if bp.Action(it.Str) == nil && !d.declared["actions/"+it.Str] {
					d.errorf(it.Pos, len([]rune(it.Str))+2, cmpOr(mspec.DidYouMeanHint(it.Str, actionIDs(bp)), `declare it under "actions", or remove it`),
						"%s of state %q names %q, which is not declared in actions (lpp's loader refuses it too)", k, m.Key, it.Str)
				}
			}
		}
	}
}

// optString reads an optional string member ("" when absent or not a string).
func (d *decoder) optString(obj *jsonpos.Node, key string) string {
	v := obj.Get(key)
	if v == nil || v.Kind == jsonpos.Null {
		return ""
	}
	if v.Kind != jsonpos.String {
		d.errorf(v.Pos, 1, "", "%s must be a string, not %s", key, v.Describe())
		return ""
	}
	return v.Str
}

// reqString reads a required string member of obj; what names obj.
func (d *decoder) reqString(obj *jsonpos.Node, key, what, hint string) (string, *jsonpos.Node) {
	v := obj.Get(key)
	if v == nil {
		d.errorf(obj.Pos, 1, hint, "%s has no %q", what, key)
		return "", nil
	}
	if v.Kind != jsonpos.String || strings.TrimSpace(v.Str) == "" {
		d.errorf(v.Pos, 1, hint, "%q of %s must be a non-empty string, not %s", key, what, v.Describe())
		return "", nil
	}
	return v.Str, v
}

var propertyTypes = []string{"string", "number", "integer", "boolean", "array", "object"}

func (d *decoder) context(n *jsonpos.Node, bp *Blueprint) {
	if !d.want(n, jsonpos.Object, "context_schema") {
		return
	}
	d.unknownKeys(n, "context_schema", "properties", "type", "required", "description")
	props := n.Get("properties")
	if props == nil || !d.want(props, jsonpos.Object, "context_schema.properties") {
		return
	}
	for _, m := range props.Members {
		what := fmt.Sprintf("property %q", m.Key)
		if bp.Property(d.propID(m.Key)) != nil {
			continue // reported as a duplicate
		}
		p := &Property{Name: d.newPropID(bp, m.Key), Pos: m.KeyPos, TypePos: m.KeyPos}
		if !d.want(m.Val, jsonpos.Object, what) {
			continue
		}
		d.unknownKeys(m.Val, what, "type", "description", "enum", "default", "items", "format", "properties")
		typ, why := d.propertyType(m.Val.Get("type"), what)
		if typ == "" {
			d.untypedProperty(bp, m, what, why)
			continue
		}
		if why != "" {
			d.aliasWarning(m.Val.Get("type"), what, why, typ)
			p.TypeSrc = d.keptRaw(m.Val.Get("type"), "the type of "+what)
		}
		p.Type, p.TypePos = typ, m.Val.Get("type").Pos
		p.Description = d.optString(m.Val, "description")
		if e := m.Val.Get("enum"); e != nil && d.want(e, jsonpos.Array, "enum of "+what) {
			for _, it := range e.Items {
				if nf := d.nonFiniteIn(it); len(nf) > 0 {
					d.warnf(nf[0].Pos, len(nf[0].Str), insteadHint(nf[0]), "enum of %s lists %s: %s, and leaves it out of the enum (lpp checks no enum when it runs)", what, pyReads(nf[0]), cannotCarry)
					continue
				}
				p.Enum = append(p.Enum, it.Value())
			}
		}
		if dv := m.Val.Get("default"); dv != nil && d.nonFiniteDefault(dv, what) {
			// no default: the property starts None, as lpp starts every property
		} else if dv != nil {
			p.Default, p.HasDefault = dv.Value(), true
			if p.Type == "integer" && dv.Kind == jsonpos.Number && jsonpos.IsIntegerText(dv.Str) && !typeAccepts(p.Type, dv) {
				d.errorf(dv.Pos, len(dv.Str), `write one between -9223372036854775808 and 9223372036854775807, or use "type": "number" (a 64-bit float)`,
					"default of %s is %s, beyond the range of a 64-bit integer", what, dv.Str)
			} else if dv.Kind != jsonpos.Null && !typeAccepts(p.Type, dv) {
				d.errorf(dv.Pos, 1, "", "default of %s must be %s, not %s", what, gate.TypeArticle(p.Type), dv.Describe())
			}
		}
		bp.Context = append(bp.Context, p)
	}
}

func typeAccepts(t string, v *jsonpos.Node) bool {
	switch t {
	case "string":
		return v.Kind == jsonpos.String
	case "number":
		return v.Kind == jsonpos.Number
	case "integer":
		_, ok := v.Value().(int)
		return v.Kind == jsonpos.Number && ok
	case "boolean":
		return v.Kind == jsonpos.Bool
	case "array":
		return v.Kind == jsonpos.Array
	case "object":
		return v.Kind == jsonpos.Object
	}
	return true
}

func (d *decoder) states(n *jsonpos.Node, bp *Blueprint) {
	for _, m := range n.Members {
		if bp.State(d.stateID(m.Key)) != nil {
			continue // reported as a duplicate
		}
		st := &State{ID: d.newStateID(bp, m.Key), Pos: m.KeyPos}
		if m.Val.Kind == jsonpos.Object {
			what := fmt.Sprintf("state %q", m.Key)
			d.unknownKeys(m.Val, what, "description", "name", "on_enter", "on_exit", "metadata")
			st.Description = d.optString(m.Val, "description")
			st.Name = d.optString(m.Val, "name")
			for _, k := range []string{"on_enter", "on_exit"} {
				if v := m.Val.Member(k); v != nil && !(v.Val.Kind == jsonpos.Array && len(v.Val.Items) == 0) && v.Val.Kind != jsonpos.Null {
					d.warnf(v.KeyPos, len(k)+2, "run the actions on the transitions that enter or leave the state instead",
						"%s of %s is not run: lpp's runtimes never run it either", k, what)
				}
			}
		} else if m.Val.Kind != jsonpos.Null {
			d.errorf(m.Val.Pos, 1, `write {"description": "..."}`, "state %q must be an object, not %s", m.Key, m.Val.Describe())
		}
		bp.States = append(bp.States, st)
	}
	if len(n.Members) == 0 {
		d.errorf(n.Pos, 1, "", "states is empty: a blueprint needs at least one state")
	}
}

func (d *decoder) terminals(n *jsonpos.Node, bp *Blueprint) {
	v01 := strings.Contains(bp.Schema, "v0.1") // what lpp's loader looks for
	add := func(orig string, p mspec.Pos) *Terminal {
		id := d.stateID(orig)
		if bp.State(id) == nil {
			if v01 || n.Kind == jsonpos.Array {
				// v0.1.x, or its array form: lpp's loader refuses "Terminal
				// state 'X' not defined". Said once: not again where a
				// transition names it, nor "no terminal states".
				if d.refusedTerminals == nil {
					d.refusedTerminals = map[string]bool{}
				}
				d.refusedTerminals[orig] = true
				if !v01 {
					d.errorf(p, len([]rune(orig))+2, fmt.Sprintf(`write "terminal_states": {%q: {}} (the %s form: a terminal state needs no entry in states), or add %q to states`, orig, SchemaV02, orig),
						"terminal state %q is not a state: terminal_states is an array (the lpp/v0.1.x form), whose ids must be in states; lpp's loader refuses it too", orig)
					return nil
				}
				d.errorf(p, len([]rune(orig))+2, d.stateHint(bp, orig), "terminal state %q is not a state (lpp's loader refuses it too in a %s blueprint)", orig, bp.Schema)
				return nil
			}
			// v0.2.0: a terminal state needs no entry in states.
			id = d.newStateID(bp, orig)
			bp.States = append(bp.States, &State{ID: id, Pos: p, TerminalOnly: true})
		}
		if bp.Terminal(id) != nil {
			d.errorf(p, len([]rune(orig))+2, "remove one of them", "terminal state %q is listed twice", orig)
			return nil
		}
		t := &Terminal{ID: id, Pos: p}
		bp.Terminals = append(bp.Terminals, t)
		return t
	}
	switch n.Kind {
	case jsonpos.Array:
		for _, it := range n.Items {
			if it.Kind != jsonpos.String {
				d.errorf(it.Pos, 1, "", "terminal_states must list state ids, not %s", it.Describe())
				continue
			}
			add(it.Str, it.Pos)
		}
	case jsonpos.Object:
		bp.TerminalMap = true
		for _, m := range n.Members {
			t := add(m.Key, m.KeyPos)
			if t == nil {
				continue
			}
			t.Raw = d.keptRaw(m.Val, fmt.Sprintf("the contract of terminal state %q", m.Key))
			if m.Val.Kind == jsonpos.Null {
				continue
			}
			if !d.want(m.Val, jsonpos.Object, fmt.Sprintf("the contract of terminal state %q", m.Key)) {
				continue
			}
			what := fmt.Sprintf("terminal state %q", m.Key)
			d.unknownKeys(m.Val, what, "description", "output_schema", "invariants_guaranteed")
			t.Description = d.optString(m.Val, "description")
			if os := m.Val.Get("output_schema"); os != nil && d.want(os, jsonpos.Object, "output_schema of "+what) {
				for _, f := range os.Members {
					of := &OutputField{Name: f.Key, Pos: f.KeyPos}
					if f.Val.Kind == jsonpos.Object {
						of.Type = d.optString(f.Val, "type")
						if nn := f.Val.Get("non_null"); nn != nil {
							if nn.Kind != jsonpos.Bool {
								d.errorf(nn.Pos, 1, "write true or false", "non_null of output %q must be true or false, not %s", f.Key, nn.Describe())
							}
							of.NonNull = nn.Kind == jsonpos.Bool && nn.Bool
						}
					} else {
						d.errorf(f.Val.Pos, 1, `write {"type": "...", "non_null": true}`, "output %q of %s must be an object, not %s", f.Key, what, f.Val.Describe())
					}
					t.Outputs = append(t.Outputs, of)
				}
			}
			if iv := m.Val.Get("invariants_guaranteed"); iv != nil && d.want(iv, jsonpos.Array, "invariants_guaranteed of "+what) {
				for _, it := range iv.Items {
					if it.Kind == jsonpos.String {
						t.Invariants = append(t.Invariants, it.Str)
					} else {
						d.errorf(it.Pos, 1, "", "invariants_guaranteed must list invariant ids, not %s", it.Describe())
					}
				}
			}
		}
	default:
		d.errorf(n.Pos, 1, `v0.2.0: {"done": {"output_schema": {...}}}; v0.1.x: ["done"]`, "terminal_states must be an object of contracts or a list of state ids, not %s", n.Describe())
	}
}

func (d *decoder) stateHint(bp *Blueprint, id string) string {
	names := make([]string, len(bp.States))
	for i, s := range bp.States {
		names[i] = s.ID
	}
	return cmpOr(mspec.DidYouMeanHint(id, names), "states: "+strings.Join(names, ", "))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// maxName is the longest name (key, id, event) a blueprint may use: the
// names become YAML keys, which YAML limits to 1024 characters.
const maxName = 256

// nameFields are the string values that name something (and may become a
// YAML key in a translation).
var nameFields = []string{"id", "value_from", "from", "to", "on_event", "event", "target", "entry_state"}

// longNames reports every name longer than maxName, outside the parts
// kept as written (display, unknown top-level keys).
func (d *decoder) longNames(n *jsonpos.Node, top bool) {
	if n == nil {
		return
	}
	for _, it := range n.Items {
		d.longNames(it, false)
	}
	for _, m := range n.Members {
		if top && (m.Key == "display" || !slices.Contains(topKeys, m.Key)) {
			continue
		}
		if l := len([]rune(m.Key)); l > maxName {
			d.errorf(m.KeyPos, 1, "shorten it", "name is %d characters long: lppctl takes names of at most %d characters", l, maxName)
		}
		if m.Val != nil && m.Val.Kind == jsonpos.String && slices.Contains(nameFields, m.Key) {
			if l := len([]rune(m.Val.Str)); l > maxName {
				d.errorf(m.Val.Pos, 1, "shorten it", "%s is %d characters long: lppctl takes names of at most %d characters", m.Key, l, maxName)
			}
		}
		d.longNames(m.Val, false)
	}
}

package lpp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/lppctl/lppctl/machine/lpp/gate"
	"github.com/lppctl/lppctl/machine/lpp/jsonpos"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Names. lpp's ids are free strings ("to-state-name", "TO-X_DONE") and a
// property may be called `event` or `state`; lppctl's names are
// identifiers, and it reserves a few. Such a name gets an internal
// identifier (the id with an accented letter made its base letter, another
// character that is not ASCII u and its code point in hex, and any other
// character that is not a letter, digit or _ made `_`; a reserved name
// gets the prefix lpp_, and so does a name the translation writes itself:
// lpp_start, lpp_payload, lpp_current_state), and Blueprint.Orig keeps the blueprint's spelling
// for messages, diagrams and `export --format lpp` (gate.StateVar is the
// property a gate's `_state` reads).

// internalName is the identifier standing for a blueprint name.
func internalName(orig string) string {
	if gate.ReservedName(orig) || translationName(orig) {
		return "lpp_" + orig
	}
	if gate.IdentRE.MatchString(orig) {
		return orig
	}
	s := sanitize(readable(orig))
	if s == "" {
		s = "_"
	}
	return s
}

// translationName reports whether a name is one the translation writes
// itself (the start state, the variables of _state and of a helper
// state's payload): a blueprint's own name is mapped away from it.
func translationName(n string) bool {
	return n == startState || n == gate.StateVar || n == gate.PayloadVar
}

// readable writes the letters of orig that are not ASCII in ASCII: an
// accented letter as its base letter (révision: revision), any other
// character as u and its code point in hex (开始: u5f00_u59cb), so that
// an internal name still tells the names apart. ASCII is kept.
func readable(orig string) string {
	var b strings.Builder
	hex := false // the last thing written is a code point
	for _, r := range orig {
		if r < utf8.RuneSelf {
			if hex && isAlnum(r) {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			hex = false
			continue
		}
		if base := norm.NFD.String(string(r)); isAlnum(rune(base[0])) &&
			strings.TrimFunc(base[1:], func(m rune) bool { return unicode.Is(unicode.Mn, m) }) == "" {
			if hex {
				b.WriteByte('_')
			}
			b.WriteByte(base[0])
			hex = false
			continue
		}
		if last := b.String(); last != "" && isAlnum(rune(last[len(last)-1])) {
			b.WriteByte('_')
		}
		fmt.Fprintf(&b, "u%04x", r)
		hex = true
	}
	return b.String()
}

// mapName records orig's internal name in names (orig → internal), unique
// among used.
func (d *decoder) mapName(bp *Blueprint, names map[string]string, orig string, used func(string) bool) string {
	if n, ok := names[orig]; ok {
		return n
	}
	n := internalName(orig)
	base := n
	// taken: by a name of the same kind, a name the blueprint writes, or
	// the internal name of another blueprint name of another kind (Orig
	// keeps one spelling per internal name: state "处理" and event "决定"
	// are both "__" before this)
	taken := func(n string) bool {
		o, mapped := bp.Orig[n]
		return used(n) || d.isOrig(n) || mapped && o != orig
	}
	for i := 2; n != orig && taken(n); i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	names[orig] = n
	if n != orig {
		if bp.Orig == nil {
			bp.Orig = map[string]string{}
		}
		bp.Orig[n] = orig
	}
	return n
}

// isOrig reports whether n is a blueprint's own name of some kind (so
// that no mangled name takes it).
func (d *decoder) isOrig(n string) bool {
	_, s := d.stateNames[n]
	_, p := d.props[n]
	return s || p || d.origNames[n]
}

// reserveNames records the names of an object's members and of a list's
// strings as the blueprint's own, before any is mapped: a mapped name
// ("a-b" → a_b) never takes one the blueprint writes itself ("a_b").
func (d *decoder) reserveNames(n *jsonpos.Node) {
	if n == nil {
		return
	}
	if d.origNames == nil {
		d.origNames = map[string]bool{}
	}
	for _, m := range n.Members {
		d.origNames[m.Key] = true
	}
	for _, it := range n.Items {
		if it.Kind == jsonpos.String {
			d.origNames[it.Str] = true
		}
	}
}

func (d *decoder) newStateID(bp *Blueprint, orig string) string {
	if d.stateNames == nil {
		d.stateNames = map[string]string{}
	}
	return d.mapName(bp, d.stateNames, orig, func(n string) bool { return bp.State(n) != nil })
}

// stateID is the internal id of a blueprint state id (the id itself when
// no state has it).
func (d *decoder) stateID(orig string) string {
	if n, ok := d.stateNames[orig]; ok {
		return n
	}
	return orig
}

func (d *decoder) newPropID(bp *Blueprint, orig string) string {
	if d.props == nil {
		d.props = map[string]string{}
	}
	return d.mapName(bp, d.props, orig, func(n string) bool { return bp.Property(n) != nil })
}

// propID is the internal name of a blueprint property.
func (d *decoder) propID(orig string) string {
	if n, ok := d.props[orig]; ok {
		return n
	}
	return orig
}

// eventID is the internal name of an event.
func (d *decoder) eventID(bp *Blueprint, orig string) string {
	if d.events == nil {
		d.events = map[string]string{}
	}
	return d.mapName(bp, d.events, orig, func(n string) bool {
		for _, v := range d.events {
			if v == n {
				return true
			}
		}
		return false
	})
}

// description reads the top-level description: any JSON value (one real
// blueprint has an object there); a non-string is kept as its JSON text.
func (d *decoder) description(root *jsonpos.Node) string {
	v := root.Get("description")
	switch {
	case v == nil || v.Kind == jsonpos.Null:
		return ""
	case v.Kind == jsonpos.String:
		return v.Str
	}
	return d.keptRaw(v, "description")
}

// implicitProperties declares the names a blueprint uses but does not
// declare (set targets, output_map keys, value_from and input_map roots,
// names in the gates transitions use) as implicit nullable properties,
// each with a warning, typed from their use where it tells (a terminal's
// output_schema, a set literal, a comparison with a literal), else as
// strings. A gate's `_state` becomes stateVar.
func (d *decoder) implicitProperties(root *jsonpos.Node, bp *Blueprint) {
	type use struct {
		pos     mspec.Pos
		span    int
		written bool
		gated   bool // a gate a transition uses reads it
		typ     string
		weak    string // the type a dotted path tells (object), when nothing else tells one
	}
	uses := map[string]*use{}
	var order []string
	add := func(name string, p mspec.Pos, span int, written bool, typ string) {
		if name == "" || name == "event" || name == "_state" && !written || bp.Property(d.propID(name)) != nil {
			return // a read of _state is the current state (stateReads)
		}
		u := uses[name]
		if u == nil {
			u = &use{pos: p, span: span}
			uses[name] = u
			order = append(order, name)
		}
		u.written = u.written || written
		if w, ok := strings.CutSuffix(typ, "?"); ok {
			u.weak = cmp.Or(u.weak, w)
		} else if u.typ == "" {
			u.typ = typ
		}
	}
	for _, a := range bp.Actions {
		switch a.Type {
		case ActionSet:
			if a.Target == "_state" { // the current state (stateReads)
				break
			}
			typ := pathType(a.Target) // o.k: o is a dict (lpp creates it)
			if a.HasValue && !strings.Contains(a.Target, ".") {
				typ = literalType(a.Value)
			}
			add(pathRoot(a.Target), a.Pos, len([]rune(a.ID))+2, true, typ)
			if a.ValueFrom != "" && !strings.HasPrefix(a.ValueFrom, "event.") {
				add(pathRoot(a.ValueFrom), a.Pos, len([]rune(a.ID))+2, false, pathType(a.ValueFrom))
			}
		case ActionCompute:
			for _, kv := range a.OutputMap {
				if kv.Key == "_state" { // the current state (stateReads)
					continue
				}
				add(pathRoot(kv.Key), a.Pos, len([]rune(a.ID))+2, true, pathType(kv.Key))
			}
			for _, kv := range a.InputMap {
				if !strings.HasPrefix(kv.Value, "event.") && !quotedLiteral(kv.Value) && !strings.HasPrefix(kv.Value, literalRef) {
					add(pathRoot(kv.Value), a.Pos, len([]rune(a.ID))+2, false, pathType(kv.Value))
				}
			}
		}
	}
	used := usedGates(bp)
	for _, g := range bp.Gates {
		if g.Type != GateExpression || !used[g.ID] {
			continue
		}
		tree, err := gate.Parse(g.Expression)
		if err != nil {
			continue
		}
		walkNames(tree, func(n *gate.Node, typ string) {
			if n.Text == "_state" {
				bp.ReadsState = true
				return
			}
			p := g.Pos
			if g.exprNode != nil {
				p = g.exprNode.ColOf(n.Col - 1)
			}
			add(n.Text, p, n.Span, false, typ)
			if u := uses[n.Text]; u != nil {
				u.gated = true
			}
		})
	}
	outType := map[string]string{}
	for _, t := range bp.Terminals {
		for _, f := range t.Outputs {
			if slices.Contains(propertyTypes, f.Type) && outType[f.Name] == "" {
				outType[f.Name] = f.Type
			}
		}
	}
	untyped := map[string]bool{}
	for _, u := range d.untyped {
		untyped[u.key] = true
	}
	useType := map[string]string{}
	for _, name := range order {
		u := uses[name]
		typ := cmp.Or(u.typ, outType[name], u.weak)
		if untyped[name] { // declared without a type lppctl knows: load_proptype.go
			useType[name] = typ
			continue
		}
		typed := "typed " + typ + " from its use"
		if typ == "" {
			typ, typed = "string", "typed string (nothing tells its type; declare it if it is not a string)"
		}
		p := &Property{Name: d.newPropID(bp, name), Type: typ, Pos: u.pos, TypePos: u.pos, Implicit: true}
		if u.gated {
			p.Flag = "?" // named below, once every property has its name
		}
		bp.Context = append(bp.Context, p)
		if u.written {
			d.warnf(u.pos, u.span, `declare it in context_schema.properties: {"`+name+`": {"type": "`+typ+`"}}`,
				"%q is not declared in context_schema: lppctl declares it, nullable and %s", name, typed)
		} else {
			d.warnf(u.pos, u.span, "the caller sets it: lppctl run --var "+name+"=VALUE (or declare it in context_schema.properties)",
				"%q is not declared in context_schema and nothing writes it: lpp evaluates a gate reading it false until the caller sets it; lppctl declares it, nullable and %s", name, typed)
		}
	}
	d.declareUntyped(bp, func(name string) string {
		if t := useType[name]; t != "" {
			return t
		}
		return outType[name]
	})
	nameFlags(bp)
}

// literalRef starts an input_map value that is a JSON literal, not a path.
const literalRef = "="

// pathType is the type a path tells of its root: a dotted path (o.k)
// reads or writes a key of a dict.
func pathType(path string) string {
	if strings.Contains(path, ".") {
		return "object?" // weak: a literal the name is set to, or a contract, tells better
	}
	return ""
}

// pathRoot is the property a dotted path starts with.
func pathRoot(path string) string {
	root, _, _ := strings.Cut(path, ".")
	return root
}

// quotedLiteral reports whether an input_map value is a quoted text
// ("'left'"), which lpp looks up as a key (the unit receives None).
func quotedLiteral(s string) bool {
	return len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'' || s[0] == '"' && s[len(s)-1] == '"')
}

// literalType is the L++ type of a JSON literal ("" for null).
func literalType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int64:
		return "integer"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if _, ok := v.(interface{ String() string }); ok { // json.Number
		return "number"
	}
	return ""
}

// usedGates is the set of gate ids some transition names.
func usedGates(bp *Blueprint) map[string]bool {
	out := map[string]bool{}
	for _, t := range bp.Transitions {
		for _, g := range t.Gates {
			out[g] = true
		}
	}
	return out
}

// walkNames calls f for every name a gate reads as a variable (not a
// called function, not an attribute), with the type a comparison with a
// literal tells ("" when none does).
func walkNames(n *gate.Node, f func(n *gate.Node, typ string)) {
	if n == nil {
		return
	}
	switch n.Op {
	case "name":
		f(n, "")
		return
	case "call":
		for _, k := range n.Kids[1:] {
			walkNames(k, f)
		}
		return
	case "attr":
		if n.Kids[0] != nil && n.Kids[0].Op == "name" && n.Kids[0].Text != "event" { // x.k: x is a dict
			f(n.Kids[0], "object?")
			return
		}
		walkNames(n.Kids[0], f)
		return
	case "cmp":
		for i, k := range n.Kids {
			if k != nil && k.Op == "name" {
				typ := ""
				for _, j := range []int{i - 1, i + 1} {
					if j >= 0 && j < len(n.Kids) && (j < i && n.CmpOp[j] != "in" && n.CmpOp[j] != "not in" || j > i && n.CmpOp[i] != "in" && n.CmpOp[i] != "not in") {
						typ = cmpOr(typ, constType(n.Kids[j]))
					}
				}
				f(k, typ)
				continue
			}
			walkNames(k, f)
		}
		return
	}
	for _, k := range n.Kids {
		walkNames(k, f)
	}
}

// constType is the L++ type of a literal gate node ("" for others).
func constType(n *gate.Node) string {
	switch {
	case n == nil:
		return ""
	case n.Op == "str":
		return "string"
	case n.Op == "num":
		if strings.ContainsAny(n.Text, ".eE") {
			return "number"
		}
		return "number"
	case n.Op == "const" && n.Text != "None":
		return "boolean"
	}
	return ""
}

// renameRefs rewrites the property names actions read and write into
// their internal names (a property the blueprint calls `event` is
// lpp_event in the translation).
func (d *decoder) renameRefs(bp *Blueprint) {
	bp.propNames = d.props
	if len(d.props) == 0 {
		return
	}
	path := func(p string) string {
		if p == "" || strings.HasPrefix(p, "event.") {
			return p
		}
		root, rest, dotted := strings.Cut(p, ".")
		if n, ok := d.props[root]; ok {
			root = n
		}
		if dotted {
			return root + "." + rest
		}
		return root
	}
	for _, a := range bp.Actions {
		a.Target = path(a.Target)
		a.ValueFrom = path(a.ValueFrom)
		for i := range a.InputMap {
			if !quotedLiteral(a.InputMap[i].Value) && !strings.HasPrefix(a.InputMap[i].Value, literalRef) {
				a.InputMap[i].Value = path(a.InputMap[i].Value)
			}
		}
		for i := range a.OutputMap {
			a.OutputMap[i].Key = path(a.OutputMap[i].Key)
		}
		for i := range a.PayloadMap {
			a.PayloadMap[i].Value = path(a.PayloadMap[i].Value)
		}
	}
}

// stateReads makes a read of `_state` in an action (value_from,
// input_map, payload_map) the variable a gate's `_state` reads: lpp's
// dispatcher keeps the current state in the context's _state, which an
// action reads as the state the transition leaves (lpp writes the target
// after the actions). A write of `_state` (a set's target, an output_map
// key) writes the same variable, which the later actions of the
// transition read, until the transition writes its target.
func (d *decoder) stateReads(bp *Blueprint) {
	read := func(p *string) {
		if *p == "_state" {
			*p, bp.ReadsState = gate.StateVar, true
		}
	}
	for _, a := range bp.Actions {
		read(&a.Target)
		for i := range a.OutputMap {
			read(&a.OutputMap[i].Key)
		}
		read(&a.ValueFrom)
		for i := range a.InputMap {
			read(&a.InputMap[i].Value)
		}
		for i := range a.PayloadMap {
			read(&a.PayloadMap[i].Value)
		}
	}
}

// isAlnum reports whether r is an ASCII letter or digit.
func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

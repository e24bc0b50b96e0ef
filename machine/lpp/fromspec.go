package lpp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/lppctl/lppctl/machine/lpp/gate"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// FromSpec writes an lppctl spec as an L++ blueprint (lpp/v0.2.0 unless
// the spec was imported from another version): the inverse of ToSpecYAML.
// A spec `lppctl import lpp` wrote gives back the blueprint it came from
// (same states, transitions in the same order, same gates up to
// translation, the same actions): its helper states become the
// transitions' actions again, and its `# lpp-blueprint:` line gives what a
// spec has no place for. Of other specs, states that do nothing (or noop)
// with next:, on: and top-level events are written; what L++ cannot say
// (an action on entering a state, a state's set:, on_error, a guard beyond
// the gate dialect) is a *FromSpecError naming the state, the transition
// and, for a guard, the column.
func FromSpec(spec *mspec.Spec) ([]byte, error) {
	w := &writer{spec: spec, md: readMeta(spec.Source), gates: map[string]string{}, actions: map[string]jobj{}, gateUnit: map[string]string{}}
	if err := w.collect(); err != nil {
		return nil, err
	}
	return w.json()
}

// FromSpecError is what FromSpec cannot write.
type FromSpecError struct {
	File       string
	Pos        mspec.Pos
	State      string
	Transition string // its note or "" (a state's problem)
	Msg        string
}

func (e *FromSpecError) Error() string {
	where := fmt.Sprintf("state %q", e.State)
	if e.Transition != "" {
		where += fmt.Sprintf(", transition %q", e.Transition)
	}
	return fmt.Sprintf("%s:%d:%d: cannot write %s as L++: %s", e.File, e.Pos.Line, e.Pos.Col, where, e.Msg)
}

// readMeta reads the `# lpp-blueprint:` line of a spec (nil: none).
func readMeta(src []byte) *meta {
	for line := range bytes.Lines(src) {
		if rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(strings.TrimSpace(metaPrefix))); ok {
			var md meta
			if json.Unmarshal(bytes.TrimSpace(rest), &md) == nil {
				return &md
			}
		}
	}
	return nil
}

// wTrans is a blueprint transition being rebuilt.
type wTrans struct {
	id, from, to, event string
	froms               []string // the states whose lists hold it
	when                string
	set                 []*mspec.Assign
	state               *mspec.State // where it was first found
	pos                 mspec.Pos
	gates, actions      []string
}

type writer struct {
	spec      *mspec.Spec
	md        *meta
	trans     []*wTrans
	byID      map[string]*wTrans
	gates     map[string]string // gate id → expression (or "compute:UNIT")
	gateOrder []string
	actions   map[string]jobj
	actOrder  []string
	gateUnit  map[string]string // lpp_gate_X variable → unit
}

var (
	fallbackRE     = regexp.MustCompile(`^no \S+ transition passed`)
	thenRE         = regexp.MustCompile(` \(then [^()]*\)$`)
	unitNoteRE     = regexp.MustCompile(`\((?:compute )?([^:()]+:[^:()]+)\)$`) // any unit with one colon, as lpp runs it (impl:json.load)
	chooseRE       = regexp.MustCompile(`^` + genDoc + `chooses the (\S+) transition of (\S+)$`)
	waitRE         = regexp.MustCompile(`^` + genDoc + `(\S+) (?:waiting for an event|accepts no other event)`)
	unmappedNoteRE = regexp.MustCompile(`^` + genDoc + `action (.+?) \(compute [^()]*: no compute mapping, needed to run it\)$`)
	actNoteRE      = regexp.MustCompile(`^` + genDoc + `action (.+?) \((?:set|compute [^()]*|emit [^()]*)\)$`)
)

func (w *writer) helper(st *mspec.State) bool {
	return st.Name == startState || strings.HasPrefix(st.Note, genDoc)
}

func (w *writer) fail(st *mspec.State, t *mspec.Transition, pos mspec.Pos, format string, args ...any) error {
	e := &FromSpecError{File: w.spec.File, Pos: pos, State: st.Name, Msg: fmt.Sprintf(format, args...)}
	if t != nil {
		e.Transition = cmpOr(t.Note, "to "+t.To)
	}
	return e
}

// hint is the meta's record of transition id (nil: none).
// gateSource returns the blueprint's text of gate id when the import
// translated it into the guard part p (p may hold it in parentheses).
func (w *writer) gateSource(id, p string) (string, bool) {
	if w.md == nil {
		return "", false
	}
	for _, g := range w.md.GateText {
		if g.ID == id && (p == g.Expr || p == "("+g.Expr+")" || "("+p+")" == g.Expr) { // splitAnd strips the parentheses a translation may start and end with
			return g.Src, true
		}
	}
	return "", false
}

func (w *writer) hint(id string) *transMeta {
	if w.md == nil {
		return nil
	}
	for i := range w.md.Transitions {
		if w.md.Transitions[i].ID == id {
			return &w.md.Transitions[i]
		}
	}
	return nil
}

// entry is the blueprint's entry state.
func (w *writer) entry() string {
	if w.spec.Initial != startState {
		return w.spec.Initial
	}
	if w.md != nil && w.md.Entry != "" {
		return w.md.Entry
	}
	if st := w.spec.State(startState); st != nil && len(st.Next) > 0 {
		return st.Next[len(st.Next)-1].To
	}
	return w.spec.Initial
}

// collect finds the blueprint's transitions in the spec's lists.
func (w *writer) collect() error {
	w.byID = map[string]*wTrans{}
	for _, st := range w.spec.States {
		if st.Do == "script.run" {
			if out, ok := paramMap(st, "output"); ok {
				for k := range out {
					if strings.HasPrefix(k, gateVarPre) {
						w.gateUnit[k] = w.unitOf(st)
					}
				}
			}
		}
	}
	for _, st := range w.spec.States {
		switch {
		case st.Name == startState:
			start := "START"
			if w.md != nil {
				for _, t := range st.Next {
					if h := w.hint(transID(t)); h != nil {
						start = h.Event
						break
					}
				}
			}
			if err := w.list(st, w.entry(), start, st.Next); err != nil {
				return err
			}
		case chooseRE.MatchString(st.Note):
			m := chooseRE.FindStringSubmatch(st.Note)
			if err := w.list(st, m[2], m[1], st.Next); err != nil {
				return err
			}
		case waitRE.MatchString(st.Note):
			base := waitRE.FindStringSubmatch(st.Note)[1]
			for _, on := range st.On {
				if err := w.list(st, base, on.Event, on.Transitions); err != nil {
					return err
				}
			}
		case w.helper(st) || st.Final:
		default:
			if err := w.state(st); err != nil {
				return err
			}
		}
	}
	for _, ev := range w.spec.Events {
		t := &mspec.Transition{To: ev.To, When: ev.When, Set: ev.Set, Note: ev.Note, Pos: ev.Pos}
		froms := ev.From
		if len(froms) == 0 || slices.Contains(froms, Any) {
			froms = []string{Any}
		}
		for _, f := range froms {
			if err := w.add(&mspec.State{Name: f, Pos: ev.Pos}, f, ev.Name, t); err != nil {
				return err
			}
		}
	}
	// The blueprint's order, as the meta keeps it; new transitions after.
	if w.md != nil {
		slices.SortStableFunc(w.trans, func(a, b *wTrans) int { return w.rank(a.id) - w.rank(b.id) })
	}
	for _, t := range w.trans {
		if err := w.finish(t); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) rank(id string) int {
	for i, t := range w.md.Transitions {
		if t.ID == id {
			return i
		}
	}
	return len(w.md.Transitions)
}

// state collects a blueprint state's lists: its on: and, when the driver
// fires an event on entering it, its next:.
func (w *writer) state(st *mspec.State) error {
	switch {
	case st.Do != "" && st.Do != "noop":
		return w.fail(st, nil, st.DoPos, "it runs %s on entering; L++ runs actions on transitions (move it to a transition's helper state, or write it as a compute unit)", st.Do)
	case slices.ContainsFunc(st.Set, func(a *mspec.Assign) bool { return a.Var != payloadVar }): // lpp_payload: the translation's
		return w.fail(st, nil, st.Set[0].Pos, "it sets variables on entering; L++ sets them on transitions (move the set to the transitions into it)")
	case st.OnError != nil:
		return w.fail(st, st.OnError, st.OnError.Pos, "on_error has no L++ equivalent")
	}
	if len(st.Next) > 0 {
		event := "DONE" // the driver fires it on entering a state (docs/lpp.md)
		for _, t := range st.Next {
			if h := w.hint(transID(t)); h != nil && !fallbackRE.MatchString(t.Note) {
				event = h.Event
				break
			}
		}
		if err := w.list(st, st.Name, event, st.Next); err != nil {
			return err
		}
	}
	for _, on := range st.On {
		if err := w.list(st, st.Name, on.Event, on.Transitions); err != nil {
			return err
		}
	}
	return nil
}

// transID is a transition's blueprint id: its note without " (then ...)".
func transID(t *mspec.Transition) string { return thenRE.ReplaceAllString(t.Note, "") }

// list collects the transitions of one list (from state from, event e).
func (w *writer) list(st *mspec.State, from, e string, list []*mspec.Transition) error {
	for _, t := range list {
		if fallbackRE.MatchString(t.Note) || strings.HasPrefix(t.Note, "evaluate the compute gates of ") || strings.HasPrefix(t.Note, "never taken") {
			continue // the translation's own: fallbacks, the way to a chooser
		}
		if err := w.add(st, from, e, t); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) add(st *mspec.State, from, e string, t *mspec.Transition) error {
	id := transID(t)
	if id == "" {
		src := from
		if src == Any {
			src = "any"
		}
		id = fmt.Sprintf("%s_%s_%d", sanitize(src), sanitize(t.To), len(w.trans)+1)
	}
	if x := w.byID[id]; x != nil {
		if !slices.Contains(x.froms, from) {
			x.froms = append(x.froms, from)
		}
		return nil
	}
	x := &wTrans{id: id, from: from, froms: []string{from}, to: t.To, event: e, when: t.When, set: t.Set, state: st, pos: t.Pos}
	w.byID[id] = x
	w.trans = append(w.trans, x)
	return nil
}

// finish works out a transition's source, gates and actions.
func (w *writer) finish(x *wTrans) error {
	h := w.hint(x.id)
	if len(x.froms) > 1 || h != nil && h.From == Any {
		x.from = Any
	}
	t := &mspec.Transition{Note: x.id, Pos: x.pos}
	// Gates: the guard's conjuncts (one per gate as the translation writes them).
	parts := splitAnd(x.when)
	if h != nil && len(h.Gates) == 1 && len(parts) > 1 {
		parts = []string{x.when}
	}
	for i, p := range parts {
		id := x.id
		if len(parts) > 1 {
			id = fmt.Sprintf("%s_%d", x.id, i+1)
		}
		if h != nil && len(h.Gates) == len(parts) {
			id = h.Gates[i]
		}
		var def string
		if src, ok := w.gateSource(id, p); ok { // the blueprint's own text of the gate it translated into p
			def = src
		} else if v, ok := strings.CutSuffix(p, " == true"); ok && w.gateUnit[v] != "" {
			def = "compute:" + w.gateUnit[v]
			id = strings.TrimPrefix(v, gateVarPre)
		} else {
			p = w.dropFlags(p)
			py, err := gate.PrintGate(p)
			if err != nil {
				var pe *gate.PrintError
				if asPrintError(err, &pe) {
					return w.fail(x.state, t, x.pos, "column %d of its guard %q: %s has no L++ equivalent (write it as a compute gate)", pe.Col+strings.Index(x.when, p), x.when, pe.What)
				}
				return w.fail(x.state, t, x.pos, "its guard: %v", err)
			}
			def = py
		}
		x.gates = append(x.gates, w.addGate(id, def))
	}
	// Actions: the transition's set, then its helper states' steps.
	var acts []jobj
	for _, a := range x.set {
		if a.Var == payloadVar || a.Var == gate.StateVar && w.md != nil || w.isFlag(a.Var) { // the translation's own (lpp writes _state itself)
			continue
		}
		act, err := w.setAction(a)
		if err != nil {
			return w.fail(x.state, t, a.Pos, "%v", err)
		}
		acts = append(acts, act)
	}
	var ids []string
	for seen := map[string]bool{}; ; {
		st := w.spec.State(x.to)
		if st == nil || !actNoteRE.MatchString(st.Note) || seen[st.Name] || len(st.Next) != 1 {
			break
		}
		seen[st.Name] = true
		step, err := w.stepActions(st)
		if err != nil {
			return err
		}
		acts = append(acts, step...)
		ids = append(ids, strings.Split(actNoteRE.FindStringSubmatch(st.Note)[1], ", ")...)
		x.to = st.Next[0].To
	}
	// Action ids: the meta's when they match, else the helper notes' for
	// their part, else made up.
	for i, a := range acts {
		id := fmt.Sprintf("%s_%d", x.id, i+1)
		if h != nil && len(h.Actions) == len(acts) {
			id = h.Actions[i]
		} else if k := i - (len(acts) - len(ids)); k >= 0 && k < len(ids) {
			id = ids[k]
		}
		x.actions = append(x.actions, w.addAction(id, w.keptRef(id, a)))
	}
	return nil
}

func asPrintError(err error, pe **gate.PrintError) bool {
	e, ok := err.(*gate.PrintError)
	*pe = e
	return ok
}

// addGate registers a gate, under another id when id is taken by another.
func (w *writer) addGate(id, def string) string {
	for n := 2; ; n++ {
		old, ok := w.gates[id]
		if !ok {
			w.gates[id] = def
			w.gateOrder = append(w.gateOrder, id)
			return id
		}
		if old == def {
			return id
		}
		id = fmt.Sprintf("%s_%d", strings.TrimSuffix(id, "_"+strconv.Itoa(n-1)), n)
	}
}

func (w *writer) addAction(id string, a jobj) string {
	text, _ := json.Marshal(a)
	for n := 2; ; n++ {
		old, ok := w.actions[id]
		if !ok {
			w.actions[id] = a
			w.actOrder = append(w.actOrder, id)
			return id
		}
		if o, _ := json.Marshal(old); bytes.Equal(o, text) {
			return id
		}
		id = fmt.Sprintf("%s_%d", strings.TrimSuffix(id, "_"+strconv.Itoa(n-1)), n)
	}
}

// splitAnd splits a guard at its top-level && ("" gives none), and strips
// the parentheses the translation put around a gate.
func splitAnd(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], "&&"):
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 2
			i++
		}
	}
	parts = append(parts, strings.TrimSpace(s[start:]))
	for i, p := range parts {
		if strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")") && len(splitAnd(p[1:len(p)-1])) >= 1 && balanced(p[1:len(p)-1]) {
			parts[i] = p[1 : len(p)-1]
		}
	}
	return parts
}

// balanced reports whether s's parentheses close in order (so that "(a) &&
// (b)" minus its outer pair is not taken for one).
func balanced(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// literalOf reads an expr literal as a JSON value.
func literalOf(n ast.Node) (any, bool) {
	switch x := n.(type) {
	case *ast.NilNode:
		return nil, true
	case *ast.BoolNode:
		return x.Value, true
	case *ast.IntegerNode:
		return x.Value, true
	case *ast.FloatNode:
		return x.Value, true
	case *ast.StringNode:
		return x.Value, true
	case *ast.UnaryNode:
		if v, ok := literalOf(x.Node); ok && x.Operator == "-" {
			switch n := v.(type) {
			case int:
				return -n, true
			case float64:
				return -n, true
			}
		}
	case *ast.ArrayNode:
		out := make([]any, len(x.Nodes))
		for i, e := range x.Nodes {
			v, ok := literalOf(e)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case *ast.MapNode:
		out := jobj{}
		for _, p := range x.Pairs {
			pair := p.(*ast.PairNode)
			k, ok := pair.Key.(*ast.StringNode)
			if !ok {
				return nil, false
			}
			v, ok := literalOf(pair.Value)
			if !ok {
				return nil, false
			}
			out = append(out, jkv{k.Value, v})
		}
		return out, true
	}
	return nil, false
}

// unitOf is the compute unit a script.run state calls: from its note
// (the import's), else SCRIPT_NAME:FUNCTION.
func (w *writer) unitOf(st *mspec.State) string {
	if m := unitNoteRE.FindStringSubmatch(st.Note); m != nil {
		return m[1]
	}
	script, _ := paramString(st, "script")
	ns := sanitize(strings.TrimSuffix(script[strings.LastIndex(script, "/")+1:], ".py"))
	fn := "run"
	if in, ok := paramMap(st, "input"); ok {
		if s, ok := in[functionIn].(string); ok {
			if u, err := strconv.Unquote(s); err == nil {
				fn = u
			}
		}
	}
	return ns + ":" + fn
}

// unmapped gives back the compute action a no-op helper state stands for
// (its unit had no mapping when the spec was written).
func (w *writer) unmapped(st *mspec.State) (jobj, bool) {
	m := unmappedNoteRE.FindStringSubmatch(st.Note)
	if w.md == nil || m == nil || len(st.Set) > 0 {
		return nil, false
	}
	for _, u := range w.md.Unmapped {
		if u.Action != m[1] {
			continue
		}
		in, out := jobj{}, jobj{}
		for _, kv := range u.Input {
			in = append(in, jkv{kv.Key, kv.Value})
		}
		for _, kv := range u.Output {
			out = append(out, jkv{kv[0], kv[1]})
		}
		return jobj{{"type", ActionCompute}, {"compute_unit", u.Unit}, {"input_map", in}, {"output_map", out}}, true
	}
	return nil, false
}

// quoted returns the blueprint's text of the input key of the action
// helper state st runs, when the spec still passes what the import wrote
// for it (s): nil for a quoted text, a literal for a read of the event.
func (w *writer) quoted(st *mspec.State, key, s string) (string, bool) {
	m := actNoteRE.FindStringSubmatch(st.Note)
	if w.md == nil || m == nil {
		return "", false
	}
	for _, q := range w.md.Quoted {
		if q.Action == m[1] && q.Key == key && s == cmp.Or(q.Expr, "nil") {
			return q.Src, true
		}
	}
	return "", false
}

// isFlag reports whether v is the defined flag of an implicit property
// (defined.go): the translation's own, not written back.
func (w *writer) isFlag(v string) bool {
	if w.md == nil {
		return false
	}
	for _, f := range w.md.Defined {
		if f == v {
			return true
		}
	}
	return false
}

// stepActions writes the actions of a helper state.
func (w *writer) stepActions(st *mspec.State) ([]jobj, error) {
	switch st.Do {
	case "noop":
		if u, ok := w.unmapped(st); ok {
			return []jobj{u}, nil
		}
		var out []jobj
		for _, a := range st.Set {
			if w.isFlag(a.Var) { // the translation's own: lpp's context holds the property once written
				continue
			}
			act, err := w.setAction(a)
			if err != nil {
				return nil, w.fail(st, nil, a.Pos, "%v", err)
			}
			out = append(out, act)
		}
		return out, nil
	case "script.run":
		act := jobj{{"type", ActionCompute}, {"compute_unit", w.unitOf(st)}}
		in, _ := paramMap(st, "input")
		var im jobj
		for _, k := range sortedKeys(in) {
			if k == functionIn {
				continue
			}
			s, _ := in[k].(string)
			tree, err := exprparser.Parse(s)
			ref, ok := "", false
			if err == nil {
				ref, ok = refOf(tree.Node)
			}
			if src, found := w.quoted(st, k, s); !ok && found {
				ref, ok = src, true // the blueprint's quoted text (lpp passes None), or its read of the event
			}
			if !ok {
				return nil, w.fail(st, nil, st.WithPos, "input %s: %q: an L++ input_map takes a variable or event.payload.NAME", k, s)
			}
			im = append(im, jkv{k, ref})
		}
		act = append(act, jkv{"input_map", im})
		if out, ok := paramMap(st, "output"); ok {
			var om jobj
			for _, k := range sortedKeys(out) {
				key := k
				if k == gate.StateVar { // the import's write of _state
					key = "_state"
				}
				om = append(om, jkv{key, out[k]})
			}
			act = append(act, jkv{"output_map", om})
		}
		return []jobj{act}, nil
	case "emit", "log":
		event, _ := paramString(st, "event")
		var pm jobj
		if st.Do == "log" { // an event for the environment: message "emit E", value {"k": ref}
			msg, _ := paramString(st, "message")
			event = strings.TrimPrefix(msg, "emit ")
			if v, ok := paramString(st, "value"); ok {
				tree, err := exprparser.Parse(v)
				if err != nil {
					return nil, w.fail(st, nil, st.WithPos, "value: %v", err)
				}
				m, ok := tree.Node.(*ast.MapNode)
				if !ok {
					return nil, w.fail(st, nil, st.WithPos, "value: an emitted payload is a map of names to variables")
				}
				for _, p := range m.Pairs {
					pair := p.(*ast.PairNode)
					k, _ := pair.Key.(*ast.StringNode)
					ref, ok := refOf(pair.Value)
					if k == nil || !ok {
						return nil, w.fail(st, nil, st.WithPos, "value: an emitted payload maps names to variables or event.payload.NAME")
					}
					pm = append(pm, jkv{k.Value, ref})
				}
			}
		} else if m, ok := paramMap(st, "payload"); ok {
			for _, k := range sortedKeys(m) {
				s, _ := m[k].(string)
				tree, err := exprparser.Parse(s)
				ref, ok := "", false
				if err == nil {
					ref, ok = refOf(tree.Node)
				}
				if !ok {
					return nil, w.fail(st, nil, st.WithPos, "payload %s: %q: an L++ payload_map takes a variable or event.payload.NAME", k, s)
				}
				pm = append(pm, jkv{k, ref})
			}
		}
		act := jobj{{"type", ActionEmit}, {"event", event}}
		if len(pm) > 0 {
			act = append(act, jkv{"payload_map", pm})
		}
		return []jobj{act}, nil
	}
	return nil, w.fail(st, nil, st.DoPos, "%s has no L++ equivalent", st.Do)
}

// ImportedName returns the name the spec src (one `lppctl import lpp`
// wrote) gives to what its blueprint names name (finish_it for finish-it),
// or name itself: a run of the translation takes an event by the
// blueprint's spelling, as a run of the blueprint does.
// ImportedSpelling is the blueprint's spelling of the translation's
// name (finish_it: finish-it) in the spec src an import wrote; name
// itself when the import kept it.
func ImportedSpelling(src []byte, name string) string {
	if md := readMeta(src); md != nil && md.Names[name] != "" {
		return md.Names[name]
	}
	return name
}

func ImportedName(src []byte, name string) string {
	md := readMeta(src)
	if md == nil {
		return name
	}
	for internal, orig := range md.Names {
		if orig == name {
			return internal
		}
	}
	return name
}

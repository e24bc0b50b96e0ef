package runstore

import (
	"fmt"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"sort"
	"strings"
)

// DiffSpecs lists what differs between the spec a run started with (old) and
// the spec now (new), one line per state, context variable or top-level
// setting, e.g. `state "evaluator": changed (next)` or `state "review": added`.
// It returns nil when the two behave the same (comments or formatting may differ).
func DiffSpecs(old, new *mspec.Spec) []string {
	var out []string
	if old.Initial != new.Initial {
		out = append(out, fmt.Sprintf("initial: %q → %q", old.Initial, new.Initial))
	}
	if old.Limits.MaxTransitions != new.Limits.MaxTransitions {
		out = append(out, fmt.Sprintf("limits.max_transitions: %d → %d", old.Limits.MaxTransitions, new.Limits.MaxTransitions))
	}
	if old.DropExtraPayload != new.DropExtraPayload {
		out = append(out, fmt.Sprintf("extra_payload_fields: %s → %s", extraPayload(old), extraPayload(new)))
	}
	if old.GuardErrorsFalse != new.GuardErrorsFalse {
		out = append(out, fmt.Sprintf("guard_errors: %s → %s", guardErrors(old), guardErrors(new)))
	}
	oldVars, newVars := map[string]string{}, map[string]string{}
	for _, v := range old.Context {
		oldVars[v.Name] = fmt.Sprintf("%s %q %v", v.Type, v.Enum, v.Default)
	}
	for _, v := range new.Context {
		newVars[v.Name] = fmt.Sprintf("%s %q %v", v.Type, v.Enum, v.Default)
	}
	out = append(out, diffMaps("context variable", oldVars, newVars, nil)...)

	oldStates, newStates := map[string]*mspec.State{}, map[string]*mspec.State{}
	for _, st := range old.States {
		oldStates[st.Name] = st
	}
	for _, st := range new.States {
		newStates[st.Name] = st
	}
	detail := func(name string) string {
		a, b := oldStates[name], newStates[name]
		var parts []string
		if a.Do != b.Do {
			parts = append(parts, "do")
		}
		if renderParams(a.With) != renderParams(b.With) {
			parts = append(parts, "with")
		}
		if renderAssigns(a.Set) != renderAssigns(b.Set) {
			parts = append(parts, "set")
		}
		if renderTransitions(a.Next) != renderTransitions(b.Next) {
			parts = append(parts, "next")
		}
		if renderTransitions([]*mspec.Transition{a.OnError}) != renderTransitions([]*mspec.Transition{b.OnError}) {
			parts = append(parts, "on_error")
		}
		if renderOn(a.On) != renderOn(b.On) {
			parts = append(parts, "on")
		}
		if a.Final != b.Final {
			parts = append(parts, "final")
		}
		return strings.Join(parts, ", ")
	}
	oldR, newR := map[string]string{}, map[string]string{}
	for name := range oldStates {
		oldR[name] = ""
	}
	for name := range newStates {
		newR[name] = ""
	}
	out = append(out, diffMaps("state", oldR, newR, detail)...)

	oldEv, newEv := map[string]string{}, map[string]string{}
	for _, e := range old.Events {
		oldEv[e.Name] += fmt.Sprintf("%q %s %s %s;", e.From, e.To, e.When, renderAssigns(e.Set))
	}
	for _, e := range new.Events {
		newEv[e.Name] += fmt.Sprintf("%q %s %s %s;", e.From, e.To, e.When, renderAssigns(e.Set))
	}
	for _, d := range old.EventDecls {
		oldEv[d.Name] += renderPayload(d)
	}
	for _, d := range new.EventDecls {
		newEv[d.Name] += renderPayload(d)
	}
	out = append(out, diffMaps("event", oldEv, newEv, nil)...)
	return out
}

// diffMaps compares two name → rendering maps; detail (when set) explains a
// change of a name present in both and returns "" for no change.
func diffMaps(what string, old, new map[string]string, detail func(string) string) []string {
	names := map[string]bool{}
	for k := range old {
		names[k] = true
	}
	for k := range new {
		names[k] = true
	}
	sorted := make([]string, 0, len(names))
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []string
	for _, name := range sorted {
		a, inOld := old[name]
		b, inNew := new[name]
		switch {
		case !inOld:
			out = append(out, fmt.Sprintf("%s %q: added", what, name))
		case !inNew:
			out = append(out, fmt.Sprintf("%s %q: removed", what, name))
		case detail != nil:
			if d := detail(name); d != "" {
				out = append(out, fmt.Sprintf("%s %q: changed (%s)", what, name, d))
			}
		case a != b:
			out = append(out, fmt.Sprintf("%s %q: changed", what, name))
		}
	}
	return out
}

func renderParams(ps []*mspec.Param) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s=%#v;", p.Name, p.Value)
	}
	return b.String()
}

func renderAssigns(as []*mspec.Assign) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "%s=%s;", a.Var, a.Expr)
	}
	return b.String()
}

func renderTransitions(ts []*mspec.Transition) string {
	var b strings.Builder
	for _, t := range ts {
		if t == nil {
			b.WriteString("-;")
			continue
		}
		fmt.Fprintf(&b, "%s|%s|%s|%s;", t.To, t.When, renderAssigns(t.Set), t.Warn)
	}
	return b.String()
}

// renderOn renders a state's on: for comparison.
func renderOn(on []*mspec.OnEvent) string {
	var b strings.Builder
	for _, o := range on {
		fmt.Fprintf(&b, "%s:%s", o.Event, renderTransitions(o.Transitions))
	}
	return b.String()
}

// renderPayload renders an event's payload schema for comparison.
func renderPayload(d *mspec.EventDecl) string {
	if !d.HasPayload() {
		return ""
	}
	var b strings.Builder
	b.WriteString("payload:")
	for _, f := range d.Payload {
		fmt.Fprintf(&b, "%s %s %v %v %q;", f.Name, f.Type, f.Required, f.Default, f.Enum)
	}
	return b.String()
}

// extraPayload is how the spec takes payload fields no event declares, as
// its extra_payload_fields key says it.
func extraPayload(s *mspec.Spec) string {
	if s.DropExtraPayload {
		return mspec.ExtraDrop
	}
	return mspec.ExtraRefuse
}

// guardErrors is what a guard that cannot be evaluated does, as the
// spec's guard_errors key says it.
func guardErrors(s *mspec.Spec) string {
	if s.GuardErrorsFalse {
		return mspec.GuardErrorsAsFalse
	}
	return mspec.GuardErrorsFail
}

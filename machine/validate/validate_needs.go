package validate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// needs checks the run memory the actions need (Action.Needs): every path
// from the initial state to a state whose action needs an entry must pass a
// state whose action provides it (Action.Provides) and succeeded. A path
// leaves a providing state without the entry only by its on_error route.
func (v *validator) needs() {
	if v.reg == nil || v.spec.State(v.spec.Initial) == nil {
		return
	}
	action := func(st *mspec.State) *machine.Action {
		if st == nil || st.Do == "" {
			return nil
		}
		return v.reg.Lookup(st.Do)
	}
	var keys []string
	for _, st := range v.spec.States {
		if a := action(st); a != nil {
			for _, k := range a.Needs {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	sort.Strings(keys)
	for _, key := range keys {
		prev := v.reachWithout(key, action)
		for _, st := range v.spec.States {
			a := action(st)
			if _, reached := prev[st.Name]; !reached || a == nil || !slices.Contains(a.Needs, key) {
				continue
			}
			v.errorf(st.DoPos, len(st.Do), v.providerHint(key, action),
				"action %q needs %q in run memory, but the path %s reaches state %q without it",
				a.Name, key, pathTo(st.Name, prev), st.Name)
		}
	}
}

// reachWithout returns the states the run can enter without the memory entry
// key (from the initial state, not passing a state that provides it), each
// with the state it is entered from on a shortest such path ("" for the
// initial state).
func (v *validator) reachWithout(key string, action func(*mspec.State) *machine.Action) map[string]string {
	prev := map[string]string{v.spec.Initial: ""}
	queue := []string{v.spec.Initial}
	visit := func(from, to string) {
		if _, seen := prev[to]; !seen && v.spec.State(to) != nil {
			prev[to] = from
			queue = append(queue, to)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		st := v.spec.State(n)
		if st.OnError != nil {
			visit(n, st.OnError.To) // the action failed: it provided nothing
		}
		if a := action(st); a != nil && slices.Contains(a.Provides, key) || v.mayProvide(st) {
			continue
		}
		for _, t := range st.Next {
			visit(n, t.To)
		}
		for _, ev := range v.spec.Events {
			if !st.Final && (len(ev.From) == 0 || slices.Contains(ev.From, n)) {
				visit(n, ev.To)
			}
		}
	}
	return prev
}

// mayProvide reports whether state st may run an action that provides
// memory although no action of the registry is known to run there: its
// `do:` names no action (a misspelt one is already an error), it has
// `with:` but no `do:` (a `do:` left out), or its text has a decode error
// (a misspelt `do:` key). A path through it is not reported as lacking the
// entry: fixing that one error may give it.
func (v *validator) mayProvide(st *mspec.State) bool {
	switch {
	case st.Do != "":
		return v.reg.Lookup(st.Do) == nil
	case len(st.With) > 0 || st.WithPos.IsValid():
		return true
	}
	return v.damaged(st.Name)
}

// pathTo renders the path prev records to state, e.g. "start → work".
func pathTo(state string, prev map[string]string) string {
	path := []string{state}
	for n := prev[state]; n != ""; n = prev[n] {
		path = append(path, n)
		if len(path) > len(prev) {
			break // cannot happen: prev is a tree
		}
	}
	slices.Reverse(path)
	return strings.Join(path, " → ")
}

// providerHint tells which actions provide the memory entry key, and which
// states of the spec run them.
func (v *validator) providerHint(key string, action func(*mspec.State) *machine.Action) string {
	var names []string
	for _, a := range v.reg.Actions() {
		if slices.Contains(a.Provides, key) {
			names = append(names, a.Name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Sprintf("no registered action provides %q", key)
	}
	var states []string
	for _, st := range v.spec.States {
		if a := action(st); a != nil && slices.Contains(a.Provides, key) {
			states = append(states, st.Name)
		}
	}
	if len(states) == 0 {
		return fmt.Sprintf("%q is provided by %s, which no state of the spec runs: add a state that runs it before this one", key, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%q is provided by %s (state %s): enter this state only after one of them", key, strings.Join(names, ", "), strings.Join(states, ", "))
}

package check

import (
	"slices"

	"github.com/expr-lang/expr/vm"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// slotSet is a set of value slots (context variables, then last_error).
type slotSet []bool

func (s slotSet) addReads(x *Explorer, p *vm.Program) {
	for _, name := range mspec.Identifiers(p) {
		if i, ok := x.slot[name]; ok {
			s[i] = true
		}
	}
}

// addSets adds the reads of a set's expressions whose variable is relevant,
// and of the others what can make them fail (check_fallible.go): every
// expression of a set is evaluated, whether its target is read or not.
func (s slotSet) addSets(x *Explorer, set []machine.Cassign) {
	for _, a := range set {
		if x.relevant[x.slot[a.V.Name]] {
			s.addReads(x, a.Prog)
			continue
		}
		for _, i := range x.fallibleSlots(a.Prog) {
			s[i] = true
		}
	}
}

// relevance computes the slots whose value can change a verdict (cone of
// influence): those a guard, an invariant or a final_requires reads, those
// with a range or an enum (a set can break it), those whose value can make
// a set fail (a divisor: check_fallible.go), and, to a fixed point, those
// a set of a relevant slot reads. Any other slot (a counter only its own set
// reads, such as eval_rounds: eval_rounds + 1) is kept at its default: its
// value cannot decide a guard, so keeping it would only multiply the states.
func (x *Explorer) relevance() {
	r := make(slotSet, x.nslots)
	for i, v := range x.Vars {
		r[i] = v.Range != nil || len(v.Enum) > 0
	}
	var sets [][]machine.Cassign
	for _, st := range x.States {
		for _, c := range slices.Concat(st.invs, st.reqs) {
			r.addReads(x, c.prog)
		}
		for _, mv := range st.edges {
			r.addReads(x, mv.guard)
			sets = append(sets, mv.set)
		}
		sets = append(sets, st.Cs.Set)
		if oe := st.Cs.OnError; oe != nil {
			sets = append(sets, oe.Set)
		}
	}
	for _, set := range sets {
		for _, a := range set {
			for _, i := range x.fallibleSlots(a.Prog) {
				r[i] = true
			}
		}
	}
	for _, st := range x.States {
		for i := range st.params {
			for _, s := range x.paramReads(st, &st.params[i]) {
				r[s] = true
			}
		}
	}
	x.relevant = r
	for changed := true; changed; {
		changed = false
		for _, set := range sets {
			for _, a := range set {
				if !r[x.slot[a.V.Name]] {
					continue
				}
				for _, name := range mspec.Identifiers(a.Prog) {
					if i, ok := x.slot[name]; ok && !r[i] {
						r[i], changed = true, true
					}
				}
			}
		}
	}
}

// union adds what o holds, except the slots of minus; it reports a change.
func (s slotSet) union(o slotSet, minus ...slotSet) bool {
	changed := false
	for i, in := range o {
		if !in || s[i] {
			continue
		}
		dropped := false
		for _, m := range minus {
			if m != nil && m[i] {
				dropped = true
			}
		}
		if !dropped {
			s[i], changed = true, true
		}
	}
	return changed
}

func (x *Explorer) writesOf(set []machine.Cassign) slotSet {
	s := make(slotSet, x.nslots)
	for _, a := range set {
		s[x.slot[a.V.Name]] = true
	}
	return s
}

// liveness computes, for every state, the slots whose value at the state's
// entry some expression may read before an assignment overwrites it (live),
// and the slots its action writes that are read afterwards (liveWrites).
// A dead slot is reset to its default in the stored pair: two pairs that
// differ only in dead slots behave alike. Reads are those of guards, sets,
// invariants, final_requires and the action's expression parameters (what
// can make them fail; all of emit's payload: check_params.go); an action's
// writes overwrite, its failure does not.
func (x *Explorer) liveness() {
	x.relevance()
	n := x.nslots
	lastErr := make(slotSet, n)
	lastErr[x.lastErr] = true
	for _, st := range x.States {
		st.live = make(slotSet, n)
		st.afterAction = make(slotSet, n)
		st.actionWrites = make(slotSet, n)
		for _, s := range st.Writes {
			st.actionWrites[s] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, st := range x.States {
			normal := make(slotSet, n)
			if st.final {
				for _, c := range st.reqs {
					normal.addReads(x, c.prog)
				}
			} else {
				for _, mv := range st.edges {
					normal.addReads(x, mv.guard)
					normal.addSets(x, mv.set)
					normal.union(mv.to.live, x.writesOf(mv.set), lastErr)
				}
			}
			after := make(slotSet, n)
			after.addSets(x, st.Cs.Set)
			after.union(normal, x.writesOf(st.Cs.Set))
			if st.afterAction.union(after) {
				changed = true
			}
			live := make(slotSet, n)
			for _, c := range st.invs {
				live.addReads(x, c.prog)
			}
			live.union(after, st.actionWrites)
			for i := range st.params {
				for _, s := range x.paramReads(st, &st.params[i]) {
					live[s] = true
				}
			}
			if oe := st.Cs.OnError; oe != nil && st.Cs.Action != nil {
				to := x.States[x.stateIdx[oe.Target]]
				errPath := make(slotSet, n)
				errPath.addSets(x, oe.Set)
				errPath.union(to.live, x.writesOf(oe.Set))
				live.union(errPath, lastErr)
			}
			if st.live.union(live) {
				changed = true
			}
		}
	}
}

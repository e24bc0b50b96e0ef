package check_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr/vm"
	"github.com/stretchr/testify/require"

	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/check"
	"github.com/lppctl/lppctl/machine/check/report"
	"github.com/lppctl/lppctl/machine/internal/spectest"
	mspec "github.com/lppctl/lppctl/machine/spec"
	"github.com/lppctl/lppctl/machine/validate"
)

// An oracle for the checker: random small specs, explored by a plain
// breadth-first search written here from the semantics in docs/spec.md
// (the action's writes, then the state's set, then the first next whose
// guard holds, its set, the move, and every event that applies; or the
// action failing into on_error, last_error set until the next step that
// succeeds), over whole contexts: no interning, no
// dead-variable reduction, no hoisted guards, no compiled closures. Its
// verdicts must be the checker's.

// oracleSpec is a generated spec: states s0..s{K-1} and done (final), ints
// i and j in [0, R], a bool f, and n, which the action count writes (its
// range [0, 2]: the check tries each value).
type oracleSpec struct {
	R      int
	states []oracleState
	inv    string   // an invariant's expression, or ""
	invIn  []string // the states it applies to (none: all)
	final  string   // done's final_requires, or ""
	global []oracleGlobal
}

type oracleState struct {
	name  string
	count bool              // do: count
	set   map[string]string // the state's set
	next  []oracleNext
	onErr *oracleNext // on_error (with count only): the action failing, with last_error "boom" or "error"
	// on: the state's own transitions per event; with no next, it waits.
	on map[string][]oracleNext
}

// oracleGlobal is a top-level event's transition: from these states (nil:
// "*", every non-final state).
type oracleGlobal struct {
	event string
	from  []string
	oracleNext
}

type oracleNext struct {
	to, when string // when "" is unguarded
	set      map[string]string
}

type oracleGen struct {
	rng *rand.Rand
	R   int
}

func (g oracleGen) pick(opts ...string) string { return opts[g.rng.IntN(len(opts))] }

func (g oracleGen) small() string { return fmt.Sprint(g.rng.IntN(g.R + 2)) }

// guard is a condition over i, j, f and n that cannot fail to evaluate.
func (g oracleGen) guard(depth int) string {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		switch g.rng.IntN(7) {
		case 0:
			return "i " + g.pick("==", "!=", "<", ">=") + " " + g.small()
		case 1:
			return "j " + g.pick("==", "<=", ">") + " " + g.small()
		case 2:
			return g.pick("f", "!f")
		case 3:
			return "n " + g.pick("==", "!=", "<") + " " + g.pick("0", "1", "2")
		case 4:
			return "i + j " + g.pick(">", "<=") + " " + g.small()
		case 5:
			return g.pick("i % 2 == 0", "i % 2 == 1", `last_error == "boom"`)
		default:
			return "i " + g.pick("<", "==", ">") + " j"
		}
	}
	switch g.rng.IntN(3) {
	case 0:
		return "(" + g.guard(depth-1) + ") && (" + g.guard(depth-1) + ")"
	case 1:
		return "(" + g.guard(depth-1) + ") || (" + g.guard(depth-1) + ")"
	}
	return "!(" + g.guard(depth-1) + ")"
}

// set assigns some of i, j, f values that mostly stay in their ranges
// (one in five may leave it: the bounds property).
func (g oracleGen) set() map[string]string {
	out := map[string]string{}
	R := fmt.Sprint(g.R)
	for _, v := range []string{"i", "j"} {
		if g.rng.IntN(3) != 0 {
			continue
		}
		if g.rng.IntN(5) == 0 {
			out[v] = g.pick(v+" + 1", v+" - 1", "i + j")
			continue
		}
		out[v] = g.pick(
			v+" < "+R+" ? "+v+" + 1 : 0",
			v+" > 0 ? "+v+" - 1 : "+R,
			"0", R,
			"(i + j) % ("+R+" + 1)",
			"n < "+R+" ? n : "+R,
		)
	}
	if g.rng.IntN(4) == 0 {
		out["f"] = g.pick("!f", "i > j", "true", "n == 1")
	}
	return out
}

func genOracleSpec(rng *rand.Rand) oracleSpec {
	g := oracleGen{rng: rng, R: 1 + rng.IntN(3)}
	k := 2 + rng.IntN(4)
	sp := oracleSpec{R: g.R}
	names := []string{"done"}
	for s := range k {
		names = append(names, fmt.Sprintf("s%d", s))
	}
	for s := range k {
		st := oracleState{name: fmt.Sprintf("s%d", s), count: rng.IntN(2) == 0, set: g.set()}
		for range 1 + rng.IntN(3) {
			nx := oracleNext{to: names[rng.IntN(len(names))], when: g.guard(2)}
			if rng.IntN(3) == 0 {
				nx.set = g.set()
			}
			st.next = append(st.next, nx)
		}
		// The graph connects every state and reaches done from each (else
		// the spec is invalid): s{x} has a transition to s{x+1} (done for
		// the last), which its guard may still keep from firing.
		chain := oracleNext{to: names[(s+2)%len(names)], when: g.guard(1)}
		st.next = slices.Insert(st.next, rng.IntN(len(st.next)+1), chain)
		if rng.IntN(2) == 0 {
			st.next[len(st.next)-1].when = "" // a fallback: never stuck here
		}
		if st.count && rng.IntN(3) == 0 {
			st.onErr = &oracleNext{to: names[rng.IntN(len(names))]}
			if rng.IntN(2) == 0 {
				st.onErr.set = g.set()
			}
		}
		if rng.IntN(3) == 0 { // events of its own
			st.on = map[string][]oracleNext{}
			for _, ev := range []string{"GO", "HALT"}[:1+rng.IntN(2)] {
				for range 1 + rng.IntN(2) {
					st.on[ev] = append(st.on[ev], oracleNext{to: names[rng.IntN(len(names))], when: g.guard(1)})
				}
			}
			if rng.IntN(3) == 0 { // it waits: its next transitions become GO's
				st.on["GO"] = append(st.on["GO"], st.next...)
				st.next = nil
			}
		}
		sp.states = append(sp.states, st)
	}
	if rng.IntN(4) == 0 {
		ev := oracleGlobal{event: "RESET", oracleNext: oracleNext{to: names[rng.IntN(len(names))], when: g.guard(1)}}
		if rng.IntN(2) == 0 {
			ev.from = []string{names[1+rng.IntN(k)]}
		}
		if rng.IntN(2) == 0 {
			ev.set = g.set()
		}
		sp.global = append(sp.global, ev)
	}
	if rng.IntN(3) == 0 {
		sp.final = g.guard(1)
	}
	if rng.IntN(3) == 0 {
		sp.inv = g.guard(1)
		if rng.IntN(2) == 0 {
			sp.invIn = []string{names[1+rng.IntN(k)]}
		}
	}
	return sp
}

// yaml writes the transition as a flow mapping.
func (nx oracleNext) yaml() string {
	out := "{to: " + nx.to
	if nx.when != "" {
		out += ", when: '" + nx.when + "'"
	}
	if len(nx.set) > 0 {
		out += ", set: " + yamlMap(nx.set)
	}
	return out + "}"
}

func yamlMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": '" + m[k] + "'"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (sp oracleSpec) yaml() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lpp: 1\nname: oracle\ncontext:\n")
	fmt.Fprintf(&b, "  i: {type: int, default: 0, range: [0, %d]}\n  j: {type: int, default: 0, range: [0, %d]}\n", sp.R, sp.R)
	fmt.Fprintf(&b, "  f: {type: bool, default: false}\n  n: {type: int, default: 0, range: [0, 2]}\n")
	if sp.inv != "" {
		fmt.Fprintf(&b, "invariants:\n  inv: {expr: '%s'", sp.inv)
		if len(sp.invIn) > 0 {
			fmt.Fprintf(&b, ", in: [%s]", strings.Join(sp.invIn, ", "))
		}
		b.WriteString("}\n")
	}
	b.WriteString("initial: s0\nstates:\n")
	for _, st := range sp.states {
		fmt.Fprintf(&b, "  %s:\n", st.name)
		if st.count {
			b.WriteString("    do: count\n")
		}
		if len(st.set) > 0 {
			fmt.Fprintf(&b, "    set: %s\n", yamlMap(st.set))
		}
		if len(st.next) > 0 {
			b.WriteString("    next:\n")
			for _, nx := range st.next {
				b.WriteString("      - " + nx.yaml() + "\n")
			}
		}
		if len(st.on) > 0 {
			b.WriteString("    on:\n")
			for _, ev := range slices.Sorted(maps.Keys(st.on)) {
				fmt.Fprintf(&b, "      %s:\n", ev)
				for _, nx := range st.on[ev] {
					b.WriteString("        - " + nx.yaml() + "\n")
				}
			}
		}
		if st.onErr != nil {
			fmt.Fprintf(&b, "    on_error: {to: %s", st.onErr.to)
			if len(st.onErr.set) > 0 {
				fmt.Fprintf(&b, ", set: %s", yamlMap(st.onErr.set))
			}
			b.WriteString("}\n")
		}
	}
	if sp.final != "" {
		fmt.Fprintf(&b, "  done: {final: true, final_requires: {req: '%s'}}\n", sp.final)
	} else {
		b.WriteString("  done: {final: true}\n")
	}
	if len(sp.global) > 0 {
		b.WriteString("events:\n")
		for _, ev := range sp.global {
			from := `"*"`
			if ev.from != nil {
				from = "[" + strings.Join(ev.from, ", ") + "]"
			}
			fmt.Fprintf(&b, "  %s: [%s]\n", ev.event, strings.Replace(ev.yaml(), "{", "{from: "+from+", ", 1))
		}
	}
	return b.String()
}

// oracleCtx is a whole context: i, j, f, n and last_error.
type oracleCtx struct {
	i, j    int
	f       bool
	n       int
	lastErr string
}

type oraclePair struct {
	state string
	ctx   oracleCtx
}

// oracleVerdicts explores sp and returns the verdicts of deadlock,
// reachability, termination, invariants, final_requires and bounds.
func oracleVerdicts(t *testing.T, sp oracleSpec) map[string]check.Verdict {
	t.Helper()
	types := map[string]any{"i": 0, "j": 0, "f": false, "n": 0, mspec.VarState: "", mspec.VarLastError: ""}
	progs := map[string]*vm.Program{}
	eval := func(src string, typ mspec.Type, c oracleCtx, state string) any {
		key := string(typ) + "\x00" + src
		p := progs[key]
		if p == nil {
			var err error
			if typ == mspec.TypeBool && !strings.Contains(key, "set:") {
				p, err = mspec.CompileGuard(src, types)
			} else {
				p, err = mspec.CompileValue(src, typ, types)
			}
			require.NoError(t, err, src)
			progs[key] = p
		}
		v, err := (&vm.VM{}).Run(p, map[string]any{"i": c.i, "j": c.j, "f": c.f, "n": c.n, mspec.VarState: state, mspec.VarLastError: c.lastErr})
		require.NoError(t, err, src)
		return v
	}
	// apply applies a set; ok is false when it takes i or j out of their
	// range (the run fails there: the bounds property).
	apply := func(set map[string]string, c oracleCtx, state string) (out oracleCtx, ok bool) {
		out = c // every expression of one set sees the context before it
		for v, src := range set {
			switch v {
			case "i":
				out.i = eval(src, mspec.TypeInt, c, state).(int)
			case "j":
				out.j = eval(src, mspec.TypeInt, c, state).(int)
			case "f":
				out.f = eval(src, mspec.TypeBool, c, state).(bool)
			}
		}
		return out, out.i >= 0 && out.i <= sp.R && out.j >= 0 && out.j <= sp.R
	}
	byName := map[string]oracleState{}
	for _, st := range sp.states {
		byName[st.name] = st
	}
	start := oraclePair{"s0", oracleCtx{}}
	seen := map[oraclePair]bool{start: true}
	succ := map[oraclePair][]oraclePair{}
	end := map[oraclePair]bool{} // final, or stuck on some outcome
	queue := []oraclePair{start}
	deadlock, invFails, finalFails, boundsFails := false, false, false, false
	// move records the move from p to state to, with set applied to c: a
	// successor, or, when the set leaves a range, an end of the run.
	move := func(p oraclePair, to string, set map[string]string, c oracleCtx, clearErr bool) {
		ctx, ok := apply(set, c, p.state)
		if !ok {
			boundsFails, end[p] = true, true
			return
		}
		if clearErr {
			ctx.lastErr = "" // a handled error is cleared by the next step that succeeds
		}
		q := oraclePair{to, ctx}
		succ[p] = append(succ[p], q)
		if !seen[q] {
			seen[q] = true
			queue = append(queue, q)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if sp.inv != "" && (len(sp.invIn) == 0 || slices.Contains(sp.invIn, p.state)) && !eval(sp.inv, mspec.TypeBool, p.ctx, p.state).(bool) {
			invFails = true
		}
		if p.state == "done" {
			end[p] = true
			finalFails = finalFails || sp.final != "" && !eval(sp.final, mspec.TypeBool, p.ctx, p.state).(bool)
			continue
		}
		st := byName[p.state]
		if st.onErr != nil { // the action fails: its writes and the state's set dropped
			for _, text := range []string{"boom", "error"} {
				c := p.ctx
				c.lastErr = text
				move(p, st.onErr.to, st.onErr.set, c, false)
			}
		}
		outcomes := []oracleCtx{p.ctx}
		if st.count {
			outcomes = nil
			for n := range 3 {
				c := p.ctx
				c.n = n
				outcomes = append(outcomes, c)
			}
		}
		for _, c := range outcomes {
			c, ok := apply(st.set, c, p.state)
			if !ok {
				boundsFails, end[p] = true, true
				continue
			}
			// Every event that applies (the state's on: first, then the
			// top-level transitions from it; the first whose guard
			// holds), and the first next whose guard holds.
			var lists [][]oracleNext
			for _, ev := range []string{"GO", "HALT", "RESET"} {
				cands := slices.Clone(st.on[ev])
				for _, gl := range sp.global {
					if gl.event == ev && (gl.from == nil || slices.Contains(gl.from, p.state)) {
						cands = append(cands, gl.oracleNext)
					}
				}
				lists = append(lists, cands)
			}
			lists = append(lists, st.next)
			// A state with next does not wait: with no event pending, the
			// run fails when no next guard holds, whatever events could do.
			fired, nextFired := false, false
			for li, list := range lists {
				for _, nx := range list {
					if nx.when != "" && !eval(nx.when, mspec.TypeBool, c, p.state).(bool) {
						continue
					}
					move(p, nx.to, nx.set, c, true)
					fired = true
					nextFired = nextFired || li == len(lists)-1
					break
				}
			}
			if !fired || len(st.next) > 0 && !nextFired {
				deadlock, end[p] = true, true
			}
		}
	}
	// Termination: every reachable pair reaches an end (backwards from the ends).
	reaches := map[oraclePair]bool{}
	for changed := true; changed; {
		changed = false
		for p := range seen {
			if reaches[p] {
				continue
			}
			ok := end[p]
			for _, q := range succ[p] {
				ok = ok || reaches[q]
			}
			if ok {
				reaches[p], changed = true, true
			}
		}
	}
	reached := map[string]bool{}
	for p := range seen {
		reached[p.state] = true
	}
	verdict := func(fail bool) check.Verdict {
		if fail {
			return check.Fail
		}
		return check.Pass
	}
	return map[string]check.Verdict{
		check.PropDeadlock:      verdict(deadlock),
		check.PropReachable:     verdict(len(reached) < len(sp.states)+1),
		check.PropTermination:   verdict(len(reaches) < len(seen)),
		check.PropInvariants:    verdict(invFails),
		check.PropFinalRequires: verdict(finalFails),
		check.PropBounds:        verdict(boundsFails),
	}
}

// TestModelCheckAgreesWithAPlainSearch: on 400 random specs (counters,
// a bool, an action with three outcomes, ordered guards, sets, fallbacks,
// on_error routes and guards on last_error, events of a state's on: and
// top-level events, waiting states, invariants, final_requires), the
// checker's verdicts on deadlock, reachability, termination, invariants,
// final_requires and bounds (a set taking an int out of its range) are
// those of the plain search above, in compiled and in interpreted
// evaluation; and the specs are varied enough to fail each property and
// pass it.
func TestModelCheckAgreesWithAPlainSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	reg := spectest.Registry()
	seen := map[string]map[check.Verdict]int{}
	invalid := 0
	for i := range 400 {
		sp := genOracleSpec(rng)
		src := sp.yaml()
		spec, diags := validate.Check("oracle.yaml", []byte(src), reg, validate.WithoutFiles())
		if diags.HasErrors() {
			invalid++ // a guard validation proves constant, say
			continue
		}
		m, err := machine.Compile(spec, reg)
		require.NoError(t, err)
		want := oracleVerdicts(t, sp)
		for _, interpreted := range []bool{false, true} {
			r := check.ModelCheck(context.Background(), m, check.CheckOptions{Interpreted: interpreted})
			require.True(t, r.Complete, "spec %d did not complete: %s", i, r.Stopped)
			for _, p := range r.Properties {
				w, ok := want[p.Property]
				if !ok {
					continue
				}
				if p.Verdict != w {
					t.Fatalf("spec %d (interpreted %v): %s is %s, the plain search says %s\n%s\n%s", i, interpreted, p.Property, p.Verdict, w,
						src, report.Text(r, report.Options{NoTimes: true}))
				}
				if seen[p.Property] == nil {
					seen[p.Property] = map[check.Verdict]int{}
				}
				seen[p.Property][p.Verdict]++
			}
		}
	}
	for prop := range oracleVerdicts(t, genOracleSpec(rand.New(rand.NewPCG(1, 1)))) {
		require.Positive(t, seen[prop][check.Fail], "no spec fails %s: %v", prop, seen)
		require.Positive(t, seen[prop][check.Pass], "no spec passes %s: %v", prop, seen)
	}
	require.Less(t, invalid, 40, "specs the generator made invalid")
	t.Logf("verdicts: %v; %d of 400 specs invalid", seen, invalid)
}

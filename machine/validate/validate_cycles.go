package validate

import (
	"sort"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// successors returns, for each state, the states its next transitions,
// on_error route and events can move it to.
func (v *validator) successors() map[string][]string {
	s := v.spec
	succ := map[string][]string{}
	add := func(from, to string) {
		if s.State(to) != nil {
			succ[from] = mspec.AppendUnique(succ[from], to)
		}
	}
	for _, st := range s.States {
		for _, t := range st.Transitions() {
			add(st.Name, t.To)
		}
	}
	for _, ev := range s.Events {
		if len(ev.From) > 0 {
			for _, from := range ev.From {
				if st := s.State(from); st != nil && !st.Final {
					add(from, ev.To)
				}
			}
			continue
		}
		for _, st := range s.States {
			if !st.Final {
				add(st.Name, ev.To)
			}
		}
	}
	return succ
}

// reach returns the states reachable from roots (roots included).
func reach(roots []string, succ map[string][]string) map[string]bool {
	seen := map[string]bool{}
	queue := append([]string{}, roots...)
	for _, r := range roots {
		seen[r] = true
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range succ[n] {
			if !seen[m] {
				seen[m] = true
				queue = append(queue, m)
			}
		}
	}
	return seen
}

// topKey finds a top-level key in src, returning its position and the text after its colon.
func topKey(src []byte, key string) (mspec.Pos, string, bool) {
	for i := 0; i < mspec.LineCount(src); i++ {
		line := mspec.SourceLine(src, i+1)
		if strings.HasPrefix(line, key+":") {
			return mspec.Pos{Line: i + 1, Col: 1}, strings.TrimSpace(line[len(key)+1:]), true
		}
	}
	return mspec.Pos{}, "", false
}

// cycles warns about cycles of next transitions that nothing bounds (see
// docs/spec.md, "Unbounded cycles"): a strongly connected component of the
// next graph is bounded when a guard of one of its states' next transitions
// compares a counter that a set on the cycle steps (an int variable v set to
// v + x or v - x), or when one of its states runs an action that writes a
// variable one of those guards reads.
func (v *validator) cycles() {
	s := v.spec
	next := map[string][]string{}
	for _, st := range s.States {
		for _, t := range st.Next {
			if s.State(t.To) != nil {
				next[st.Name] = mspec.AppendUnique(next[st.Name], t.To)
			}
		}
	}
	for _, scc := range stronglyConnected(s.StateNames(), next) {
		in := map[string]bool{}
		for _, n := range scc {
			in[n] = true
		}
		if len(scc) == 1 && !mspec.Contains(next[scc[0]], scc[0]) {
			continue // not a cycle
		}
		if v.canFinish != nil && !v.canFinish[scc[0]] {
			continue // already an error
		}
		if v.cycleBounded(in) {
			continue
		}
		first := s.State(scc[0])
		v.add(mspec.SevWarning, first.Pos, len(first.Name),
			"count its rounds (e.g. set: {rounds: rounds + 1}) and leave it with a guard such as when: rounds >= max_rounds; until then only limits.max_transitions stops it",
			"cycle %s is not bounded: no guard on it compares a counter that the cycle steps, and no action on it writes a variable its guards read",
			strings.Join(shortestCycle(first.Name, next, in), " → "))
	}
}

func (v *validator) cycleBounded(in map[string]bool) bool {
	s := v.spec
	counters := map[string]bool{}
	stepped := func(as []*mspec.Assign) {
		for _, a := range as {
			if cv := s.Var(a.Var); cv != nil && cv.Type == mspec.TypeInt && stepsItself(a) {
				counters[a.Var] = true
			}
		}
	}
	var guards []ast.Node
	for _, st := range s.States {
		if !in[st.Name] {
			continue
		}
		stepped(st.Set)
		for _, t := range st.Next {
			if in[t.To] {
				stepped(t.Set)
			}
			if t.When == "" {
				continue
			}
			if v.badGuards[t.WhenPos] {
				return true // an error already; a warning on top would only add noise
			}
			if tree, err := parser.Parse(t.When); err == nil {
				guards = append(guards, tree.Node)
			}
		}
	}
	reads := map[string]bool{}
	bounded := false
	for _, g := range guards {
		ast.Find(g, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.IdentifierNode:
				reads[x.Value] = true
			case *ast.BinaryNode:
				if isComparison(x.Operator) && ast.Find(x, func(n ast.Node) bool {
					id, ok := n.(*ast.IdentifierNode)
					return ok && counters[id.Value]
				}) != nil {
					bounded = true
				}
			}
			return false // visit every node
		})
	}
	if bounded {
		return true
	}
	for _, st := range s.States {
		if !in[st.Name] || st.Do == "" {
			continue
		}
		a := v.reg.Lookup(st.Do)
		if a == nil {
			return true // an unknown action is an error already
		}
		for _, w := range a.WritesOf(st) {
			if reads[w.Name] {
				return true
			}
		}
	}
	return false
}

// stepsItself reports whether an assignment is v = v + x, v = x + v or v = v - x.
func stepsItself(a *mspec.Assign) bool {
	tree, err := parser.Parse(a.Expr)
	if err != nil {
		return false
	}
	b, ok := tree.Node.(*ast.BinaryNode)
	if !ok || (b.Operator != "+" && b.Operator != "-") {
		return false
	}
	isVar := func(n ast.Node) bool {
		id, ok := n.(*ast.IdentifierNode)
		return ok && id.Value == a.Var
	}
	return isVar(b.Left) || (b.Operator == "+" && isVar(b.Right))
}

func isComparison(op string) bool {
	switch op {
	case "<", "<=", ">", ">=", "==", "!=":
		return true
	}
	return false
}

// stronglyConnected returns the strongly connected components of the graph,
// each in file order, ordered by their first state (Tarjan's algorithm).
func stronglyConnected(nodes []string, succ map[string][]string) [][]string {
	order := map[string]int{}
	for i, n := range nodes {
		order[n] = i
	}
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(n string)
	visit = func(n string) {
		index[n] = len(index)
		low[n] = index[n]
		stack = append(stack, n)
		onStack[n] = true
		for _, m := range succ[n] {
			if _, seen := index[m]; !seen {
				visit(m)
				low[n] = min(low[n], low[m])
			} else if onStack[m] {
				low[n] = min(low[n], index[m])
			}
		}
		if low[n] == index[n] {
			var scc []string
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[m] = false
				scc = append(scc, m)
				if m == n {
					break
				}
			}
			sort.Slice(scc, func(i, j int) bool { return order[scc[i]] < order[scc[j]] })
			out = append(out, scc)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return order[out[i][0]] < order[out[j][0]] })
	return out
}

// shortestCycle returns a shortest path start → ... → start inside the component.
func shortestCycle(start string, succ map[string][]string, in map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	seen := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, m := range succ[n] {
			if !in[m] {
				continue
			}
			if m == start {
				path := []string{start}
				for at := n; at != start; at = prev[at] {
					path = append(path, at)
				}
				path = append(path, start)
				for i, j := 1, len(path)-2; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			if !seen[m] {
				seen[m] = true
				prev[m] = n
				queue = append(queue, m)
			}
		}
	}
	return []string{start, start}
}

package check

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/lppctl/lppctl/machine"
	mspec "github.com/lppctl/lppctl/machine/spec"
)

// Memoised evaluation. A guard or a set whose value depends only on the
// context variables it reads (no `state`, no `event`, no function but
// checked arithmetic and a few pure builtins) gives the same result for the
// same values of those variables; and the check evaluates the same guards
// over the same few values again and again (a guard that reads two counters
// of a spec with ten is evaluated for every value of the other eight). The
// value ids of check_store.go make the values a short key: the program and
// the ids of what it reads. A fixed-size, direct-mapped cache keeps the last
// result of each key slot, with its whole key, so a hit is an exact match
// and a miss only costs the evaluation the check made before.

// maxMemoReads bounds the variables a memoised program reads (the key's size).
const maxMemoReads = 7

// The cache starts with minMemoSlots entries and grows, emptied, to 4 times
// as many each time the pairs stored reach 4 times its size, up to
// maxMemoSlots (3 MiB): a small spec does not pay for a large cache.
const (
	minMemoSlots = 1 << 10
	maxMemoSlots = 1 << 16
)

// growMemo enlarges the cache when the store has outgrown it.
func (x *Explorer) growMemo() {
	if x.memo != nil && len(x.memo) < maxMemoSlots && x.nodes.len() >= 4*len(x.memo) {
		x.memo = make([]memoEntry, 4*len(x.memo))
	}
}

type memoKey [1 + maxMemoReads]uint32

type memoEntry struct {
	key memoKey // key[0] == 0: empty
	res any     // the value, or a memoErr
}

// memoErr is an evaluation's error, as a memoEntry keeps it.
type memoErr struct{ err error }

// memoProg describes a pure program: its index (key[0]; 0 when it reads
// more than maxMemoReads slots and is not memoised), the slots it reads,
// and its compiled form (check_fast.go; nil when it has none). Programs
// compiled from the same text to the same code (a guard written in several
// states) share an index, and so their results.
type memoProg struct {
	idx   uint32
	reads []int
	fast  *fastProg
}

// pureBuiltins are the builtins a memoised program may call: their result
// depends on their arguments only.
var pureBuiltins = map[string]bool{
	"len": true, "abs": true, "int": true, "float": true, "string": true,
	"lower": true, "upper": true, "trim": true, "min": true, "max": true,
	"round": true, "ceil": true, "floor": true,
}

// checkedFuncs are the functions the checked-arithmetic patch calls.
var checkedFuncs = map[string]bool{
	mspec.FnAdd: true, mspec.FnSub: true, mspec.FnMul: true, mspec.FnMod: true,
	mspec.FnAdd + "_any": true, mspec.FnSub + "_any": true, mspec.FnMul + "_any": true, mspec.FnMod + "_any": true,
	mspec.FnNeg: true, mspec.FnInt: true,
}

// purity walks a program's tree: pure stays true while every node is one
// whose value follows from its children and the slots it reads.
type purity struct {
	x     *Explorer
	pure  bool
	reads []int
}

func (p *purity) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.NilNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.StringNode, *ast.ConstantNode,
		*ast.UnaryNode, *ast.BinaryNode, *ast.ChainNode, *ast.MemberNode, *ast.SliceNode,
		*ast.ConditionalNode, *ast.ArrayNode, *ast.MapNode, *ast.PairNode:
	case *ast.IdentifierNode:
		if checkedFuncs[n.Value] {
			return
		}
		s, ok := p.x.slot[n.Value]
		if !ok {
			p.pure = false // state, event, or a name the check does not hold
			return
		}
		for _, r := range p.reads {
			if r == s {
				return
			}
		}
		p.reads = append(p.reads, s)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); !ok || !checkedFuncs[id.Value] {
			p.pure = false
		}
	case *ast.BuiltinNode:
		if !pureBuiltins[n.Name] {
			p.pure = false
		}
	default:
		p.pure = false
	}
}

// memoOf returns p's memo description, nil when p is not memoisable.
func (x *Explorer) memoOf(p *vm.Program) *memoProg {
	if p == nil {
		return nil
	}
	if m, ok := x.memoProgs[p]; ok {
		return m
	}
	w := &purity{x: x, pure: true}
	node := p.Node()
	ast.Walk(&node, w)
	var m *memoProg
	if w.pure {
		m = &memoProg{reads: w.reads}
		if !x.interpreted {
			m.fast = fastCompiler{slot: x.slot}.compile(node)
		}
		if m.fast == nil && len(w.reads) <= maxMemoReads { // a compiled program is cheaper than a memo hit
			sig := p.Source().String() + "\x00" + p.Disassemble()
			idx, ok := x.memoSigs[sig]
			if !ok {
				idx = uint32(len(x.memoSigs) + 1)
				x.memoSigs[sig] = idx
			}
			m.idx = idx
		}
		if m.idx == 0 && m.fast == nil {
			m = nil
		}
	}
	x.memoProgs[p] = m
	return m
}

// eval runs p in env, or takes its result from the cache.
func (x *Explorer) eval(p *vm.Program) (any, error) { return x.evalM(p, x.memoOf(p)) }

// setProgs is what assign needs of a set, computed once: the memo
// descriptions of its programs and the slots they assign.
type setProgs struct {
	progs []*memoProg
	slots []int
}

// memosOf returns the memo descriptions of a set's programs.
func (x *Explorer) memosOf(set []machine.Cassign) *setProgs {
	out := &setProgs{progs: make([]*memoProg, len(set)), slots: make([]int, len(set))}
	for i, a := range set {
		out.progs[i], out.slots[i] = x.memoOf(a.Prog), x.slot[a.V.Name]
	}
	return out
}

// holds evaluates a guard: whether it is true, or why it cannot be
// evaluated (as evalM; a compiled guard returns its bool unboxed).
func (x *Explorer) holds(p *vm.Program, m *memoProg) (bool, error) {
	if m != nil && m.fast != nil && m.fast.cond != nil {
		if t, ok := m.fast.cond(x.envVals); ok {
			return t, nil
		}
	}
	v, err := x.evalM(p, m)
	return v == true, err
}

// evalM is eval with p's memo description given (m = x.memoOf(p), computed
// once where the program is listed: the hot paths look up nothing).
func (x *Explorer) evalM(p *vm.Program, m *memoProg) (any, error) {
	if m == nil {
		return x.vm.Run(p, x.syncEnv())
	}
	if m.fast != nil {
		if v, ok := m.fast.run(x.envVals); ok {
			return v, nil
		}
	}
	if m.idx == 0 || x.memoOff {
		return x.vm.Run(p, x.syncEnv())
	}
	if x.memo == nil { // the first memoised program: a spec whose programs all compile has no cache
		x.memo = make([]memoEntry, minMemoSlots)
	}
	var k memoKey
	k[0] = m.idx
	for i, s := range m.reads {
		k[i+1] = x.envIDs[s]
	}
	n := 1 + len(m.reads)
	e := &x.memo[hashRecord(k[:n])&uint64(len(x.memo)-1)]
	if e.key[0] == k[0] && equalWords(e.key[1:n], k[1:n]) {
		if me, ok := e.res.(memoErr); ok {
			return nil, me.err
		}
		return e.res, nil
	}
	v, err := x.vm.Run(p, x.syncEnv())
	e.key, e.res = k, v
	if err != nil {
		e.res = memoErr{err}
	}
	return v, err
}

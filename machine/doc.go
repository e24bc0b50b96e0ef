// Package machine loads and runs declarative state-machine specs.
//
// A spec is a YAML file of typed context variables, states, ordered guarded
// transitions and named actions. The package decodes it with positions,
// holds the action Registry it is validated against, compiles its
// expressions once (github.com/expr-lang/expr) and interprets it on
// github.com/looplab/fsm. It knows nothing about LLMs, tools or skills:
// those are actions that other packages register.
//
// Its later stages are packages of their own that import it, never the
// other way round: machine/validate (Check, Validate), machine/check (the
// model checker, which walks the compiled model exported here:
// Machine.States, Cstate, Ctrans, Cassign, Cevent; read-only for it) and
// machine/export (Mermaid, DOT, TLA+). It imports no package under
// machine/ (docs/layout.md).
package machine

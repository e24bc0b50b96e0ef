// Package machine is the runtime of declarative state-machine specs: it
// compiles a spec of package machine/spec against an action Registry (its
// expressions compiled once with github.com/expr-lang/expr, every action
// resolved: the compiled model Machine, Cstate, Ctrans, Cassign, Cevent)
// and runs it on github.com/looplab/fsm (Run, NewRun, Resume, Replay;
// events and their delivery, waits, memory, checkpoints, detached calls,
// the value checks of a run, the built-in actions). It knows nothing about
// LLMs, tools or skills: those are actions that other packages register.
//
// The spec model (types, YAML decoding, diagnostics, the schema, the
// expression language) is package machine/spec, which this package
// imports and which imports nothing of it. The later stages are packages
// of their own that import this one, never the other way round:
// machine/validate (Check, Validate: it reads the registry's action
// signatures), machine/check (the model checker, which walks the compiled
// model exported here, read-only: Machine.States, Cstate, Ctrans, Cassign,
// Cevent, and never the run loop) and machine/export (Mermaid, DOT, TLA+:
// the compiled Machine only). The compiled model stays here rather than in
// a package of its own because it holds the registry's *Action of every
// state, and an Action's Handler takes a *Call, which is the run's
// (docs/layout.md). It imports machine/spec and no other package under
// machine/.
package machine

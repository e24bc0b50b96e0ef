// Package check is the model checker: ModelCheck explores every state a
// compiled machine can reach over finite value domains (actions' writes,
// event payloads, the spec's inputs: ranges) and reports each property of
// docs/check.md (deadlock, reachable, termination, invariants,
// final_requires, bounds, evaluation) with a counterexample trace;
// report.Text (machine/check/report) prints it as `lppctl check` does.
//
// It owns the exploration (check_explore.go, check_moves.go), the value
// domains (check_domain.go, check_inputs.go), the visited set (check_store.go:
// interned values, pairs as records of ids; check_hash.go: the canonical
// encoding of a value; check_chunks.go: the nodes and successors, in chunks
// that never move), memoised evaluation (check_memo.go) and the environment
// it runs against (check_env.go: written only when expr runs), the
// collector's target during a large check (check_gc.go), the dead-slot
// reset (check_live.go), the livelock search (check_livelock.go, with
// machine/check/loopvar reading how expressions use a loop variable), the
// verdicts and traces
// (check.go, check_verdict.go, check_format.go). The spec keys it reads
// (invariants:, final_requires:, inputs:) are decoded with the rest of the
// spec in package machine (check_spec.go there).
//
// It imports package machine for the spec model and the compiled model
// (Machine, Cstate, Ctrans, Cassign: the expressions compiled once, which
// the checker evaluates as a run would; Action, the VarSpec of what it
// writes, and the names of the built-in fail and emit, whose outcomes it
// models; SetValueMessage, so that a refused set reads as the run's), never
// the run loop (Run, Call,
// delivery, memory) nor any LLM, tool or skill package (internal/layout's
// test keeps machine/... free of those). The exporters import it, not the
// other way round.
package check

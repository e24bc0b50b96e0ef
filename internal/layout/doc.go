// Package layout holds no code. Its test keeps the module's package graph
// the one README.md draws (the Mermaid flowchart of the "Layout" section,
// checked against `go list`; `go test ./internal/layout -update` rewrites it)
// and keeps every package under machine/ (the spec model, validation, the
// runtime, the model checker, the exporters, lpp, runstore) free of LLM,
// tool and skill code: none of them may depend, even indirectly, on
// actions/ (actions/agent and actions/llm included), gateway/, skills/ or
// langchaingo. And each stage package (machine/spec, machine/validate,
// machine/check, machine/export) imports only the packages of the module
// its doc.go allows (stageImports): machine/spec nothing of the runtime,
// even indirectly; the checker and the exporters name of the runtime only
// the compiled model (runtimeUses). The general building blocks of actions/
// (actions, actions/llm) depend on none of the Skills Agent's actions
// (actions/agent), which build on them, and actions/examples on none of
// actions, actions/agent, machine or the gateway (below).
//
// It imports nothing of the module, so it is no node of the graph it checks.
package layout

// Package export draws a spec: Export writes Mermaid (stateDiagram-v2 and
// flowchart) and Graphviz DOT (export.go), ExportTLA writes a TLA+ module
// and its TLC configuration (export_tla.go, with the expression translator
// in export_tla_expr.go), and MermaidText escapes a label for Mermaid.
//
// The diagrams read only the spec model of package machine; the TLA+
// export also reads the compiled model and takes its finite value domains
// from package check (check.Explorer), so that TLC and `lppctl check`
// explore the same values. It must not import the run loop (Run, Call,
// delivery, memory) nor any LLM, tool or skill package.
package export

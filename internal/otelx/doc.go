// Package otelx wires lppctl's OpenTelemetry tracing: a tracer provider of
// the official Go SDK that exports over OTLP/HTTP (configured by the
// standard OTEL_* variables) and/or to a JSON-lines file (--trace FILE),
// through bounded batch processors whose failures never fail or slow a run;
// it counts the spans that did not reach their exporter so that the command
// can say so once at the end.
//
// It lives under internal/ rather than as a top-level trace/ folder because
// the project's layout fixes the top level (DESIGN.md §2) and internal/
// already holds the small shared building blocks (fsx, textx) that cmd and
// actions use. It knows nothing of machines, LLMs or tools: the code that
// makes spans (cmd/lppctl for runs and states, actions for model and tool
// calls) uses only the OpenTelemetry API and finds its tracer through the
// span in its context, so that nothing is global and tracing off costs a
// no-op span.
package otelx

package actions

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/lppctl/lppctl/actions/llm"
	"github.com/lppctl/lppctl/gateway"
)

// The actions make spans for model and tool calls with the OpenTelemetry
// API only, under the span their context carries (the command's state
// span): without one (tracing off) the spans are no-ops. Attribute names
// follow the OpenTelemetry GenAI semantic conventions; lppctl's own are
// under lppctl.*.

// traceScope is the instrumentation scope of the actions' spans.
const traceScope = "github.com/lppctl/lppctl/actions"

// traceContentKey marks a context whose spans may carry message content.
type traceContentKey struct{}

// WithTraceContent returns a context in which model and tool spans carry the
// messages, replies, tool arguments and results (an explicit opt-in: they
// may hold secrets from the project).
func WithTraceContent(ctx context.Context) context.Context {
	return context.WithValue(ctx, traceContentKey{}, true)
}

func traceContent(ctx context.Context) bool {
	on, _ := ctx.Value(traceContentKey{}).(bool)
	return on
}

func tracer(ctx context.Context) trace.Tracer {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(traceScope)
}

// splitModel splits "provider:model"; the scripted model is provider "lppctl.script".
func splitModel(name string) (provider, model string) {
	provider, model, ok := strings.Cut(name, ":")
	if !ok {
		return "", name
	}
	if provider == "script" { // the scripted model: its reply file, without the path
		provider, model = "lppctl.script", filepath.Base(model)
	}
	return provider, model
}

// startModelSpan starts the span of one model call ("chat MODEL").
func startModelSpan(ctx context.Context, client string, req llm.Request) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, trace.SpanFromContext(ctx)
	}
	provider, model := splitModel(client)
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", provider),
		attribute.String("gen_ai.request.model", model),
		attribute.String("lppctl.agent", req.Agent),
		attribute.Int("lppctl.step", req.Step),
		attribute.Int("lppctl.turn", req.Turn),
		attribute.Int("lppctl.request.messages", len(req.Messages)),
		attribute.Int("lppctl.request.tools", len(req.Tools)),
	}
	if req.State != "" {
		attrs = append(attrs, attribute.String("lppctl.state", req.State))
	}
	if traceContent(ctx) {
		attrs = append(attrs, attribute.String("gen_ai.input.messages", messagesJSON(req.Messages)))
	}
	return tracer(ctx).Start(ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endModelSpan records the reply (or the error) and ends the span.
func endModelSpan(ctx context.Context, span trace.Span, reply llm.Reply, err error) {
	if !span.IsRecording() {
		return
	}
	defer span.End()
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String("error.type", "model_error"))
		return
	}
	if !reply.UsageMissing {
		span.SetAttributes(
			attribute.Int("gen_ai.usage.input_tokens", reply.Usage.PromptTokens),
			attribute.Int("gen_ai.usage.output_tokens", reply.Usage.CompletionTokens),
		)
	}
	if reply.StopReason != "" {
		span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{reply.StopReason}))
	}
	span.SetAttributes(
		attribute.Int("lppctl.response.tool_calls", len(reply.ToolCalls)),
		attribute.Int("lppctl.attempts", max(reply.Attempts, 1)),
	)
	if traceContent(ctx) {
		out := llm.Message{Role: llm.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls}
		span.SetAttributes(attribute.String("gen_ai.output.messages", messagesJSON([]llm.Message{out})))
	}
}

func messagesJSON(msgs []llm.Message) string {
	b, err := json.Marshal(msgs)
	if err != nil {
		return ""
	}
	return string(b)
}

// traceToolCall is the gateway's observer: a span per tool call
// ("execute_tool TOOL"), timed as the gateway timed it.
func traceToolCall(ctx context.Context, call gateway.CallInfo) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return
	}
	res := call.Result
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", call.Tool),
		attribute.String("lppctl.gateway.decision", res.Decision),
		attribute.Int("lppctl.gateway.exit_code", res.ExitCode),
		attribute.Float64("lppctl.gateway.duration_ms", float64(res.Duration.Microseconds())/1000),
	}
	if call.SubCommand != "" {
		attrs = append(attrs, attribute.String("lppctl.tool.sub_command", call.SubCommand))
	}
	if res.Rule != "" {
		attrs = append(attrs, attribute.String("lppctl.gateway.rule", res.Rule))
	}
	if res.TimedOut {
		attrs = append(attrs, attribute.Bool("lppctl.gateway.timed_out", true))
	}
	if traceContent(ctx) {
		if b, err := json.Marshal(call.Args); err == nil {
			attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", string(b)))
		}
		attrs = append(attrs, attribute.String("gen_ai.tool.call.result", res.Text))
	}
	_, span := tracer(ctx).Start(ctx, "execute_tool "+call.Tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(call.Start), trace.WithAttributes(attrs...))
	if res.Decision != gateway.DecisionAllow {
		span.SetStatus(codes.Error, res.Decision)
		span.SetAttributes(attribute.String("error.type", res.Decision))
	}
	span.End(trace.WithTimestamp(call.Start.Add(max(res.Duration, time.Duration(0)))))
}

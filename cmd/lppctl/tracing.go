package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/lppctl/lppctl/actions"
	"github.com/lppctl/lppctl/internal/fsx"
	"github.com/lppctl/lppctl/internal/otelx"
	"github.com/lppctl/lppctl/machine"
	"github.com/lppctl/lppctl/machine/runstore"
)

// TraceFile is the file in a run's directory that keeps the run's trace id,
// so that a resumed run continues the same trace.
const TraceFile = "trace.json"

// traceShutdownTimeout bounds the flush at the end of a run.
const traceShutdownTimeout = 2 * time.Second

// traceTestExporter, when set by a test, receives every span (synchronously).
var traceTestExporter sdktrace.SpanExporter

// traceFlags are the tracing flags of run and resume.
func traceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Usage: "write the run's OpenTelemetry spans to `FILE` as JSON lines (appended; no collector needed). OTEL_EXPORTER_OTLP_ENDPOINT sends them over OTLP/HTTP"},
		&cli.BoolFlag{Name: "trace-content", EnvVars: []string{"LPPCTL_TRACE_CONTENT"}, Usage: "put prompts, replies, tool arguments and results in the spans (off by default: they may hold secrets)"},
	}
}

// preflightTrace refuses, before a run is created or touched, a --trace
// file that cannot be written and OTEL_* settings that cannot work.
func preflightTrace(c *cli.Context) error {
	if err := otelx.CheckEnv(os.Getenv); err != nil {
		return withCode(exitUsage, err)
	}
	if path := c.String("trace"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("cannot open the trace file: %w", err))
		}
		return f.Close()
	}
	return nil
}

// tracedRun is a run's tracing: its run span, under which every state visit
// gets a span (and, through the context, every model and tool call). A nil
// *tracedRun traces nothing.
type tracedRun struct {
	prov    *otelx.Provider
	ctx     context.Context // carries the run span
	span    trace.Span
	content bool
	log     *slog.Logger
}

// traceRef is what TraceFile holds: the first traced part's run span.
type traceRef struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
}

// startTrace starts the run span when --trace or the OTEL_* variables ask
// for tracing (nil otherwise). A resumed run continues the trace kept in
// its directory: its run span is a child of, and links to, the first one.
func startTrace(ctx context.Context, c *cli.Context, run *runstore.Run, resumed bool) (*tracedRun, error) {
	log := appLogger(c).With("run_id", run.Meta.ID)
	prov, err := otelx.New(ctx, otelx.Options{
		File: c.String("trace"), Getenv: os.Getenv, Exporter: traceTestExporter,
		ServiceVersion: version, Sync: traceTestExporter != nil,
	})
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if prov == nil {
		log.Info("run started", "spec", run.Meta.SpecName, "resumed", resumed)
		return nil, nil
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", run.Meta.SpecName),
		attribute.String("lppctl.run.id", run.Meta.ID),
		attribute.String("lppctl.spec.file", run.Meta.Spec),
		attribute.Bool("lppctl.run.resumed", resumed),
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	parent := ctx
	prev, perr := readTraceRef(run.Path(TraceFile))
	if perr != nil {
		log.Warn("cannot continue the run's trace; starting a new one", "error", perr)
	}
	if prev.IsValid() {
		parent = trace.ContextWithRemoteSpanContext(ctx, prev)
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: prev, Attributes: []attribute.KeyValue{attribute.String("lppctl.link", "resumed_from")}}))
	}
	opts = append(opts, trace.WithAttributes(attrs...))
	tctx, span := prov.Tracer().Start(parent, "invoke_agent "+run.Meta.SpecName, opts...)
	if !prev.IsValid() {
		if err := writeTraceRef(run.Path(TraceFile), span.SpanContext()); err != nil {
			log.Warn("cannot keep the trace id for a resume", "error", err)
		}
	}
	t := &tracedRun{prov: prov, ctx: tctx, span: span, content: c.Bool("trace-content"), log: log}
	log.InfoContext(tctx, "run started", "spec", run.Meta.SpecName, "resumed", resumed)
	return t, nil
}

func readTraceRef(path string) (trace.SpanContext, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return trace.SpanContext{}, nil
	}
	if err != nil {
		return trace.SpanContext{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	var ref traceRef
	if err := json.Unmarshal(b, &ref); err != nil {
		return trace.SpanContext{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	tid, err1 := trace.TraceIDFromHex(ref.TraceID)
	sid, err2 := trace.SpanIDFromHex(ref.SpanID)
	if err := errors.Join(err1, err2); err != nil {
		return trace.SpanContext{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true}), nil
}

func writeTraceRef(path string, sc trace.SpanContext) error {
	b, err := json.Marshal(traceRef{TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String()})
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// run drives r to its end like r.Run, with a span per state visit: the
// actions' model and tool spans are its children; stepSpans annotates it.
func (t *tracedRun) run(ctx context.Context, r *machine.Run) error {
	if t == nil {
		return r.Run(ctx)
	}
	var err error
	for {
		sctx := trace.ContextWithSpan(ctx, t.span) // ctx keeps the Ctrl-C; the span comes from the run
		if t.content {
			sctx = actions.WithTraceContent(sctx)
		}
		state := r.State()
		sctx, span := t.prov.Tracer().Start(sctx, "state "+state, trace.WithAttributes(
			attribute.String("lppctl.state", state),
			attribute.Int("lppctl.step.seq", r.Seq()+1),
		))
		var done bool
		done, err = r.Step(sctx)
		if err != nil {
			if _, paused := machine.AsPause(err); paused {
				span.SetAttributes(attribute.Bool("lppctl.paused", true))
			} else {
				span.RecordError(err)
				span.SetStatus(codes.Error, err.Error())
			}
		}
		span.End()
		if err != nil || done {
			break
		}
	}
	if errors.Is(err, machine.ErrFinished) {
		err = nil
	}
	t.span.SetAttributes(
		attribute.String("lppctl.run.outcome", string(r.Status())),
		attribute.String("lppctl.run.state", r.State()),
		attribute.Int("lppctl.run.steps", r.Seq()),
	)
	if _, paused := machine.AsPause(err); err != nil && !paused {
		t.span.SetStatus(codes.Error, err.Error())
	}
	t.log.InfoContext(t.ctx, "run stopped", "outcome", string(r.Status()), "state", r.State(), "steps", r.Seq())
	t.span.End()
	return err
}

// shutdown flushes the spans (bounded) and says once if some were lost.
func (t *tracedRun) shutdown() {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), traceShutdownTimeout)
	defer cancel()
	rep, err := t.prov.Shutdown(ctx)
	if err != nil {
		t.log.Warn("tracing: "+err.Error(), "trace_id", t.span.SpanContext().TraceID().String())
	}
	if rep.Dropped > 0 {
		t.log.Warn(fmt.Sprintf("tracing: %d of %d spans were not exported (the run itself is unaffected)", rep.Dropped, rep.Ended),
			"trace_id", t.span.SpanContext().TraceID().String(), "errors", strings.Join(rep.Errors, "; "))
	}
}

// stepSpans is an observer that puts each step's outcome on the state span
// its context carries (tracedRun.run's); without one it does nothing.
type stepSpans struct{ log *slog.Logger }

// BorrowsValues says that stepSpans keeps none of a record's values
// (machine.ValueBorrower).
func (stepSpans) BorrowsValues() {}

func (o stepSpans) OnStep(ctx context.Context, rec *machine.Record) error {
	if o.log != nil {
		o.log.DebugContext(ctx, "step", "seq", rec.Seq, "from", rec.From, "to", rec.To, "via", rec.Via, "duration_ms", rec.Duration.Milliseconds())
	}
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return nil
	}
	attrs := []attribute.KeyValue{attribute.String("lppctl.transition.via", rec.Via)}
	add := func(key, val string) {
		if val != "" {
			attrs = append(attrs, attribute.String(key, val))
		}
	}
	add("lppctl.action", rec.Action)
	add("lppctl.transition.to", rec.To)
	add("lppctl.transition.guard", rec.Guard)
	add("lppctl.transition.event", rec.Event)
	add("lppctl.warning", rec.Warn)
	add("lppctl.action.error", rec.Error)
	if rec.End {
		attrs = append(attrs, attribute.Bool("lppctl.final", true))
	}
	span.SetAttributes(attrs...)
	return nil
}

// traceOptions observes the run for its state spans and debug logs.
func traceOptions(c *cli.Context, run *runstore.Run) []machine.RunOption {
	return []machine.RunOption{machine.WithObserver(stepSpans{log: appLogger(c).With("run_id", run.Meta.ID)})}
}

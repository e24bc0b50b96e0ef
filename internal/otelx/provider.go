package otelx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Scope is the instrumentation scope of lppctl's spans.
const Scope = "github.com/lppctl/lppctl"

// Defaults that keep a slow or dead collector from holding a run back.
const (
	DefaultQueueSize     = 2048
	DefaultExportTimeout = 2 * time.Second
	DefaultBatchTimeout  = time.Second
)

var quietOnce sync.Once

// Options says where spans go.
type Options struct {
	File           string                // JSON lines appended here ("" = no file)
	Getenv         func(string) string   // the OTEL_* variables (default: none set)
	Exporter       sdktrace.SpanExporter // an extra exporter (tests: tracetest.InMemoryExporter)
	ServiceVersion string
	QueueSize      int           // spans waiting per exporter before new ones are dropped (default DefaultQueueSize)
	ExportTimeout  time.Duration // one export's limit (default DefaultExportTimeout)
	Sync           bool          // export each span as it ends (tests; the file and OTLP exporters stay batched otherwise)
}

// OTLPEnabled reports whether the OTEL_* variables ask for OTLP export:
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set,
// and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says no.
func OTLPEnabled(getenv func(string) string) bool {
	if getenv == nil {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none") {
		return false
	}
	return firstSet(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT")) != ""
}

// CheckEnv refuses OTEL_* settings lppctl cannot honour (an OTLP protocol
// other than HTTP with protobuf) when they ask for OTLP export.
func CheckEnv(getenv func(string) string) error {
	if !OTLPEnabled(getenv) {
		return nil
	}
	proto := firstSet(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	if proto != "" && proto != "http/protobuf" {
		return fmt.Errorf("cannot export traces: OTEL_EXPORTER_OTLP_PROTOCOL=%s is not supported; lppctl speaks OTLP over HTTP: set it to http/protobuf (or unset it) and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (usually 4318)", proto)
	}
	return nil
}

// Provider is a tracer provider with its exporters' bookkeeping.
type Provider struct {
	tp        *sdktrace.TracerProvider
	ended     atomic.Int64
	exporters []*countingExporter
	closeOnce sync.Once
	report    Report
	closeErr  error
}

// Report says what became of the spans once the provider is shut down.
type Report struct {
	Ended   int64    // spans the run ended
	Dropped int64    // span copies that did not reach an exporter (queue full, export failed or timed out), over all exporters
	Errors  []string // the last error of each exporter that failed, "NAME: error"
}

// New returns a provider exporting as opts say, or nil when opts ask for
// no exporter at all (tracing is off).
func New(ctx context.Context, opts Options) (*Provider, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	quietOnce.Do(func() {
		// The SDK prints export errors through the standard logger by
		// default; the counting exporters keep them for the end-of-run report.
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	})
	p := &Provider{}
	if opts.File != "" {
		fe, err := NewFileExporter(opts.File)
		if err != nil {
			return nil, err
		}
		p.exporters = append(p.exporters, &countingExporter{name: "file " + opts.File, next: fe})
	}
	timeout := cmp.Or(opts.ExportTimeout, DefaultExportTimeout)
	if OTLPEnabled(getenv) {
		if err := CheckEnv(getenv); err != nil {
			p.shutdownExporters(ctx)
			return nil, err
		}
		xopts := []otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}
		if firstSet(getenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"), getenv("OTEL_EXPORTER_OTLP_TIMEOUT")) == "" {
			xopts = append(xopts, otlptracehttp.WithTimeout(timeout))
		}
		xe, err := otlptracehttp.New(ctx, xopts...)
		if err != nil {
			p.shutdownExporters(ctx)
			return nil, fmt.Errorf("cannot export traces over OTLP: %w", err)
		}
		p.exporters = append(p.exporters, &countingExporter{name: "otlp", next: xe})
	}
	if opts.Exporter != nil {
		p.exporters = append(p.exporters, &countingExporter{name: "test", next: opts.Exporter})
	}
	if len(p.exporters) == 0 {
		return nil, nil
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", firstSet(getenv("OTEL_SERVICE_NAME"), "lppctl")),
		attribute.String("service.version", firstSet(opts.ServiceVersion, "dev")),
	))
	if err != nil {
		res = resource.Default()
	}
	tpOpts := []sdktrace.TracerProviderOption{
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(endCounter{&p.ended}),
	}
	for _, e := range p.exporters {
		if opts.Sync {
			tpOpts = append(tpOpts, sdktrace.WithSyncer(e))
			continue
		}
		tpOpts = append(tpOpts, sdktrace.WithBatcher(e,
			sdktrace.WithMaxQueueSize(cmp.Or(opts.QueueSize, DefaultQueueSize)),
			sdktrace.WithBatchTimeout(DefaultBatchTimeout),
			sdktrace.WithExportTimeout(timeout),
		))
	}
	p.tp = sdktrace.NewTracerProvider(tpOpts...)
	return p, nil
}

// firstSet returns the first value that is not blank, trimmed.
func firstSet(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Tracer returns lppctl's tracer (a no-op one from a nil provider).
func (p *Provider) Tracer() trace.Tracer {
	if p == nil {
		return noop.NewTracerProvider().Tracer(Scope)
	}
	return p.tp.Tracer(Scope)
}

// Shutdown flushes what is queued (bounded by ctx) and stops the exporters;
// it returns the report of every span the provider saw. Later calls return
// the same report.
func (p *Provider) Shutdown(ctx context.Context) (Report, error) {
	if p == nil {
		return Report{}, nil
	}
	p.closeOnce.Do(func() {
		err := p.tp.Shutdown(ctx)
		ended := p.ended.Load()
		rep := Report{Ended: ended}
		for _, e := range p.exporters {
			lost := max(0, ended-e.exported.Load())
			rep.Dropped += lost
			switch msg := e.lastErr(); {
			case msg != "":
				rep.Errors = append(rep.Errors, e.name+": "+msg)
			case lost > 0:
				rep.Errors = append(rep.Errors, e.name+": no answer within the time limit")
			}
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			p.closeErr = fmt.Errorf("cannot flush the trace exporters: %w", err)
		}
		p.report = rep
	})
	return p.report, p.closeErr
}

func (p *Provider) shutdownExporters(ctx context.Context) {
	for _, e := range p.exporters {
		_ = e.Shutdown(ctx)
	}
}

// endCounter counts the spans that end.
type endCounter struct{ n *atomic.Int64 }

func (c endCounter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c endCounter) OnEnd(sdktrace.ReadOnlySpan)                     { c.n.Add(1) }
func (c endCounter) Shutdown(context.Context) error                  { return nil }
func (c endCounter) ForceFlush(context.Context) error                { return nil }

// countingExporter counts the spans its exporter took and keeps its last error.
type countingExporter struct {
	name     string
	next     sdktrace.SpanExporter
	exported atomic.Int64
	mu       sync.Mutex
	err      string
}

func (e *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.next.ExportSpans(ctx, spans)
	if err != nil {
		e.mu.Lock()
		e.err = err.Error()
		e.mu.Unlock()
		return err
	}
	e.exported.Add(int64(len(spans)))
	return nil
}

func (e *countingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

func (e *countingExporter) lastErr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

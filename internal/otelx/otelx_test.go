package otelx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"encoding/json"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOTLPEnabledFollowsTheStandardVariables(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{"blank endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, false},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "TRUE"}, false},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := OTLPEnabled(envOf(tc.env)); got != tc.want {
				t.Fatalf("OTLPEnabled = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewWithoutExportersIsOff(t *testing.T) {
	p, err := New(context.Background(), Options{Getenv: envOf(nil)})
	if err != nil || p != nil {
		t.Fatalf("New = %v, %v; want nil, nil", p, err)
	}
	// A nil provider still gives a tracer whose spans record nothing.
	_, span := p.Tracer().Start(context.Background(), "x")
	if span.IsRecording() {
		t.Fatal("the nil provider's span records")
	}
	if rep, err := p.Shutdown(context.Background()); err != nil || rep.Ended != 0 {
		t.Fatalf("Shutdown = %+v, %v", rep, err)
	}
}

func TestNewRefusesOTLPOverGRPC(t *testing.T) {
	_, err := New(context.Background(), Options{Getenv: envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
	})})
	want := "cannot export traces: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; lppctl speaks OTLP over HTTP: set it to http/protobuf (or unset it) and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (usually 4318)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestFileExporterWritesOneJSONLinePerSpan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	p, err := New(context.Background(), Options{File: path, ServiceVersion: "v9"})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Tracer()
	ctx, root := tr.Start(context.Background(), "root", trace.WithAttributes(attribute.String("k", "v")))
	_, child := tr.Start(ctx, "child", trace.WithLinks(trace.Link{SpanContext: root.SpanContext()}))
	child.SetStatus(codes.Error, "broke")
	child.AddEvent("note", trace.WithAttributes(attribute.Int("n", 3)))
	child.End()
	root.End()
	rep, err := p.Shutdown(context.Background())
	if err != nil || rep.Ended != 2 || rep.Dropped != 0 {
		t.Fatalf("Shutdown = %+v, %v", rep, err)
	}
	lines := readLines(t, path)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	c, r := lines[0], lines[1]
	if c.Name != "child" || r.Name != "root" {
		t.Fatalf("names %q, %q", c.Name, r.Name)
	}
	if c.ParentID != r.SpanID || c.TraceID != r.TraceID || r.ParentID != "" {
		t.Fatalf("child %+v is not under root %+v", c, r)
	}
	if c.Status != "error" || c.StatusMsg != "broke" || len(c.Events) != 1 || c.Events[0].Attributes["n"] != float64(3) {
		t.Fatalf("child status/events: %+v", c)
	}
	if len(c.Links) != 1 || c.Links[0].SpanID != r.SpanID {
		t.Fatalf("child links: %+v", c.Links)
	}
	if r.Attributes["k"] != "v" || r.Service != "lppctl" || r.Kind != "internal" {
		t.Fatalf("root: %+v", r)
	}
	// A second provider on the same file appends (a resumed run).
	p2, err := New(context.Background(), Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	_, s := p2.Tracer().Start(context.Background(), "again")
	s.End()
	if _, err := p2.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if lines := readLines(t, path); len(lines) != 3 || lines[2].Name != "again" {
		t.Fatalf("after a second provider: %+v", lines)
	}
}

func TestFileExporterCannotOpen(t *testing.T) {
	_, err := New(context.Background(), Options{File: filepath.Join(t.TempDir(), "missing", "spans.jsonl")})
	if err == nil || !strings.HasPrefix(err.Error(), "cannot open the trace file: ") {
		t.Fatalf("err = %v", err)
	}
}

func readLines(t *testing.T, path string) []SpanLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []SpanLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l SpanLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// failing refuses every export.
type failing struct{ calls int }

func (f *failing) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	f.calls++
	return errors.New("connection refused")
}
func (f *failing) Shutdown(context.Context) error { return nil }

func TestFailedExportsCountAsDropped(t *testing.T) {
	for _, sync := range []bool{false, true} {
		t.Run(map[bool]string{false: "batched", true: "synchronous"}[sync], func(t *testing.T) {
			var logged bytes.Buffer // the SDK's default error handler writes here
			log.SetOutput(&logged)
			t.Cleanup(func() { log.SetOutput(os.Stderr) })
			f := &failing{}
			p, err := New(context.Background(), Options{Exporter: f, Sync: sync})
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				_, s := p.Tracer().Start(context.Background(), "s")
				s.End()
			}
			rep, err := p.Shutdown(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Ended != 5 || rep.Dropped != 5 || f.calls == 0 {
				t.Fatalf("report %+v after %d export calls, want 5 ended, 5 dropped", rep, f.calls)
			}
			if len(rep.Errors) != 1 || rep.Errors[0] != "test: connection refused" {
				t.Fatalf("errors %q", rep.Errors)
			}
			if logged.Len() > 0 {
				t.Fatalf("the export error was printed: %q", logged.String())
			}
		})
	}
}

// stuck holds every export until released.
type stuck struct {
	release chan struct{}
	mem     *tracetest.InMemoryExporter
}

func (s *stuck) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	<-s.release
	return s.mem.ExportSpans(ctx, spans)
}
func (s *stuck) Shutdown(context.Context) error { return nil }

func TestAFullQueueDropsSpansWithoutBlocking(t *testing.T) {
	ex := &stuck{release: make(chan struct{}), mem: tracetest.NewInMemoryExporter()}
	p, err := New(context.Background(), Options{Exporter: ex, QueueSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	for range 200 { // ends at once although nothing is exported: the queue drops
		_, s := p.Tracer().Start(context.Background(), "s")
		s.End()
	}
	close(ex.release)
	rep, err := p.Shutdown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := int64(len(ex.mem.GetSpans()))
	if len(rep.Errors) != 1 || rep.Errors[0] != "test: no answer within the time limit" {
		t.Fatalf("errors %q", rep.Errors)
	}
	if rep.Ended != 200 || rep.Dropped == 0 || rep.Dropped != 200-got {
		t.Fatalf("report %+v with %d exported; want 200 ended and the rest dropped", rep, got)
	}
}

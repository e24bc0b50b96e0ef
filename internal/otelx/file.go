package otelx

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// SpanLine is one line of a --trace file: a finished span.
type SpanLine struct {
	TraceID    string         `json:"trace_id"`
	SpanID     string         `json:"span_id"`
	ParentID   string         `json:"parent_span_id,omitempty"`
	Name       string         `json:"name"`
	Kind       string         `json:"kind"`
	Start      time.Time      `json:"start"`
	End        time.Time      `json:"end"`
	DurationMS float64        `json:"duration_ms"`
	Status     string         `json:"status,omitempty"` // "error" or "ok"; absent when unset
	StatusMsg  string         `json:"status_message,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
	Events     []EventLine    `json:"events,omitempty"`
	Links      []LinkLine     `json:"links,omitempty"`
	Service    string         `json:"service,omitempty"`
}

// EventLine is a span event (e.g. an exception).
type EventLine struct {
	Name       string         `json:"name"`
	Time       time.Time      `json:"time"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// LinkLine points at another span (a resumed run's earlier span).
type LinkLine struct {
	TraceID    string         `json:"trace_id"`
	SpanID     string         `json:"span_id"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// FileExporter appends finished spans to a file as JSON lines (SpanLine).
type FileExporter struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// NewFileExporter opens path for appending (a resumed run adds to the file
// its first part wrote), creating it if needed.
func NewFileExporter(path string) (*FileExporter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open the trace file: %w", err)
	}
	return &FileExporter{f: f, w: bufio.NewWriter(f)}, nil
}

// ExportSpans writes one line per span.
func (e *FileExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.f == nil {
		return fmt.Errorf("cannot write spans: the trace file is closed")
	}
	enc := json.NewEncoder(e.w)
	enc.SetEscapeHTML(false)
	for _, s := range spans {
		if err := enc.Encode(ToLine(s)); err != nil {
			return fmt.Errorf("cannot write a span: %w", err)
		}
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("cannot write spans: %w", err)
	}
	return nil
}

// Shutdown closes the file.
func (e *FileExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.f == nil {
		return nil
	}
	err := e.w.Flush()
	if cerr := e.f.Close(); err == nil {
		err = cerr
	}
	e.f = nil
	if err != nil {
		return fmt.Errorf("cannot close the trace file: %w", err)
	}
	return nil
}

// ToLine renders a finished span as a SpanLine.
func ToLine(s sdktrace.ReadOnlySpan) SpanLine {
	sc := s.SpanContext()
	l := SpanLine{
		TraceID:    sc.TraceID().String(),
		SpanID:     sc.SpanID().String(),
		Name:       s.Name(),
		Kind:       s.SpanKind().String(),
		Start:      s.StartTime().UTC(),
		End:        s.EndTime().UTC(),
		DurationMS: float64(s.EndTime().Sub(s.StartTime()).Microseconds()) / 1000,
		Attributes: attrMap(s.Attributes()),
	}
	if p := s.Parent(); p.IsValid() {
		l.ParentID = p.SpanID().String()
	}
	switch st := s.Status(); st.Code.String() {
	case "Error":
		l.Status, l.StatusMsg = "error", st.Description
	case "Ok":
		l.Status = "ok"
	}
	for _, ev := range s.Events() {
		l.Events = append(l.Events, EventLine{Name: ev.Name, Time: ev.Time.UTC(), Attributes: attrMap(ev.Attributes)})
	}
	for _, lk := range s.Links() {
		l.Links = append(l.Links, LinkLine{TraceID: lk.SpanContext.TraceID().String(), SpanID: lk.SpanContext.SpanID().String(), Attributes: attrMap(lk.Attributes)})
	}
	if r := s.Resource(); r != nil {
		if v, ok := r.Set().Value("service.name"); ok {
			l.Service = v.AsString()
		}
	}
	return l
}

func attrMap(kvs []attribute.KeyValue) map[string]any {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

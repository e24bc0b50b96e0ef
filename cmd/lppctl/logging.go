package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"
	"go.opentelemetry.io/otel/trace"
)

// logFlags are the global logging flags. Logs go to stderr through log/slog;
// the progress output of run and resume is not a log and stays as it is.
func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-format", Value: "text", EnvVars: []string{"LPPCTL_LOG_FORMAT"}, Usage: "write logs (stderr) as `text` for people or json for machines"},
		&cli.StringFlag{Name: "log-level", Value: "warn", EnvVars: []string{"LPPCTL_LOG_LEVEL"}, Usage: "log records at `LEVEL` and above: debug (every step), info (runs starting and stopping), warn, error"},
	}
}

// checkLogFlags refuses a --log-format or --log-level it does not know.
func checkLogFlags(c *cli.Context) error {
	if _, err := parseLogFormat(c.String("log-format")); err != nil {
		return err
	}
	_, err := parseLogLevel(c.String("log-level"))
	return err
}

func parseLogFormat(s string) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(s)); f {
	case "", "text":
		return "text", nil
	case "json":
		return f, nil
	}
	return "", usageErrorf("--log-format %s: give text or json", s)
}

func parseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if strings.TrimSpace(s) == "" {
		return slog.LevelWarn, nil
	}
	if err := l.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
		return 0, usageErrorf("--log-level %s: give debug, info, warn or error", s)
	}
	return l, nil
}

// appLogger returns the logger the global flags ask for, on the app's stderr.
func appLogger(c *cli.Context) *slog.Logger {
	format, _ := parseLogFormat(c.String("log-format"))
	level, err := parseLogLevel(c.String("log-level"))
	if err != nil {
		level = slog.LevelWarn
	}
	return newLogger(c.App.ErrWriter, format, level)
}

// newLogger writes records of level and above to w as text or JSON; records
// logged with a context that carries a span get its trace_id and span_id.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(traceHandler{h})
}

// traceHandler adds the trace and span ids of the record's context.
type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	if err := h.Handler.Handle(ctx, r); err != nil {
		return fmt.Errorf("cannot log: %w", err)
	}
	return nil
}

func (h traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(attrs)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}

// Package logging builds the JSON slog loggers used by every service.
//
// Every record carries the service name and, when the context holds an
// OpenTelemetry span, its trace_id and span_id, so a log line can be found
// from a trace and back. Always log with the ...Context methods.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// New returns a JSON logger writing to stdout at the given level ("debug",
// "info", "warn", "error"; "" means info). An unknown level falls back to
// info; validate it at start-up with ParseLevel to fail fast instead.
func New(service, level string) *slog.Logger {
	return NewWithWriter(os.Stdout, service, level)
}

// NewWithWriter is New with another destination, for tests.
func NewWithWriter(w io.Writer, service, level string) *slog.Logger {
	lvl, err := ParseLevel(level)
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl, ReplaceAttr: redact})
	log := slog.New(WithTrace(h)).With("service", service)
	if err != nil {
		log.Warn("unknown log level, using info", "level", level)
	}
	return log
}

// ParseLevel parses a level name, case-insensitively; "" is info.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", s)
}

// sensitive lists attribute names whose values are never written, as a
// last line of defence: the rule is still to not pass secrets to a logger.
var sensitive = []string{"password", "secret", "token", "authorization", "cookie", "otp", "api_key"}

// redact replaces the value of attributes named like a secret (exactly, or
// ending in "_<name>", e.g. smtp_password, access_token) with "***".
func redact(_ []string, a slog.Attr) slog.Attr {
	k := strings.ToLower(a.Key)
	for _, s := range sensitive {
		if k == s || strings.HasSuffix(k, "_"+s) {
			return slog.String(a.Key, "***")
		}
	}
	return a
}

// WithTrace wraps h so that records logged with a context holding a valid
// span get trace_id and span_id attributes (inside the open group, if the
// logger has one; avoid WithGroup on request loggers). Wrapping twice is
// harmless.
func WithTrace(h slog.Handler) slog.Handler {
	if _, ok := h.(traceHandler); ok {
		return h
	}
	return traceHandler{h}
}

type traceHandler struct{ next slog.Handler }

func (h traceHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(
			slog.String("trace_id", sc.TraceID().String()),
			slog.String("span_id", sc.SpanID().String()),
		)
	}
	return h.next.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{h.next.WithAttrs(as)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.next.WithGroup(name)}
}

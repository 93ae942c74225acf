package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"bidradar/pkg/logging"
)

func decode(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func spanCtx(t *testing.T) (context.Context, trace.SpanContext) {
	t.Helper()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	return trace.ContextWithSpanContext(context.Background(), sc), sc
}

func TestTraceIDsAndService(t *testing.T) {
	t.Parallel()
	ctx, sc := spanCtx(t)
	tests := []struct {
		name      string
		ctx       context.Context
		wantTrace string
	}{
		{"with span", ctx, sc.TraceID().String()},
		{"without span", context.Background(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			log := logging.NewWithWriter(&buf, "auth", "info")
			log.With("component", "x").WithGroup("g").InfoContext(tt.ctx, "hello", "k", "v")
			recs := decode(t, &buf)
			if len(recs) != 1 {
				t.Fatalf("got %d records", len(recs))
			}
			r := recs[0]
			if r["service"] != "auth" || r["msg"] != "hello" || r["component"] != "x" {
				t.Fatalf("record = %v", r)
			}
			g, _ := r["g"].(map[string]any)
			got, _ := g["trace_id"].(string)
			if got != tt.wantTrace {
				t.Fatalf("trace_id = %q, want %q (record %v)", got, tt.wantTrace, r)
			}
			if tt.wantTrace != "" && g["span_id"] != sc.SpanID().String() {
				t.Fatalf("span_id = %v", g["span_id"])
			}
		})
	}
}

func TestLevels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		level     string
		debugSeen bool
		infoSeen  bool
		wantErr   bool
	}{
		{"debug", true, true, false},
		{"", false, true, false},
		{"INFO", false, true, false},
		{"warn", false, false, false},
		{"error", false, false, false},
		{"loud", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			t.Parallel()
			if _, err := logging.ParseLevel(tt.level); (err != nil) != tt.wantErr {
				t.Fatalf("ParseLevel err = %v", err)
			}
			var buf bytes.Buffer
			log := logging.NewWithWriter(&buf, "svc", tt.level)
			buf.Reset() // drop the unknown-level warning
			log.Debug("d")
			log.Info("i")
			out := buf.String()
			if strings.Contains(out, `"msg":"d"`) != tt.debugSeen || strings.Contains(out, `"msg":"i"`) != tt.infoSeen {
				t.Fatalf("level %q wrote %q", tt.level, out)
			}
		})
	}
}

func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := logging.NewWithWriter(&buf, "svc", "info")
	log.Info("login", "password", "hunter2", "access_token", "eyJabc", "smtp_password", "pw",
		"Authorization", "Bearer x", "token_family_id", "fam-1", "email", "a@b.c")
	out := buf.String()
	for _, leak := range []string{"hunter2", "eyJabc", `"pw"`, "Bearer x"} {
		if strings.Contains(out, leak) {
			t.Errorf("log leaks %q: %s", leak, out)
		}
	}
	for _, keep := range []string{"fam-1", "a@b.c"} {
		if !strings.Contains(out, keep) {
			t.Errorf("log lost %q: %s", keep, out)
		}
	}
}

func TestWithTraceIdempotent(t *testing.T) {
	t.Parallel()
	h := logging.WithTrace(slog.NewJSONHandler(&bytes.Buffer{}, nil))
	if logging.WithTrace(h) != h {
		t.Fatal("WithTrace wrapped twice")
	}
}

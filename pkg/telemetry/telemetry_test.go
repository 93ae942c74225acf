package telemetry_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"

	"bidradar/pkg/telemetry"
)

// These tests change process-wide OpenTelemetry globals, so none is parallel.

func setup(t *testing.T) {
	t.Helper()
	shutdown, err := telemetry.Setup(context.Background(), "test-svc")
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = shutdown(ctx)
	})
}

func TestSetupSamplerFromEnv(t *testing.T) {
	tests := []struct {
		sampler     string
		wantSampled bool
	}{
		{"", true},
		{"always_off", false},
		{"always_on", true},
	}
	for _, tt := range tests {
		t.Run("sampler="+tt.sampler, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
			t.Setenv("OTEL_TRACES_SAMPLER", tt.sampler)
			setup(t)
			_, span := otel.Tracer("t").Start(context.Background(), "op")
			defer span.End()
			sc := span.SpanContext()
			if !sc.IsValid() {
				t.Fatal("span has no trace id: SDK provider not installed")
			}
			if sc.IsSampled() != tt.wantSampled {
				t.Fatalf("sampled = %v, want %v", sc.IsSampled(), tt.wantSampled)
			}
		})
	}
}

func TestSetupWithOTLPEndpoint(t *testing.T) {
	// Nothing listens there: start-up must not block or fail, and shutdown
	// must return within its deadline.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_SERVICE_NAME", "from-env")
	shutdown, err := telemetry.Setup(context.Background(), "test-svc")
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	_, span := otel.Tracer("t").Start(context.Background(), "op")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_ = shutdown(ctx) // an export error is expected
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
}

func TestInjectExtract(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	setup(t)
	ctx, span := otel.Tracer("t").Start(context.Background(), "publish")
	defer span.End()
	member, _ := baggage.NewMember("tenant", "acme")
	bag, _ := baggage.New(member)
	ctx = baggage.ContextWithBaggage(ctx, bag)
	want := span.SpanContext().TraceID()

	tests := []struct {
		name   string
		header func() map[string][]string
	}{
		{"http header", func() map[string][]string {
			h := http.Header{}
			telemetry.Inject(ctx, h)
			return h
		}},
		{"nats header", func() map[string][]string {
			msg := nats.NewMsg("projects.v1.x")
			telemetry.Inject(ctx, msg.Header)
			return msg.Header
		}},
		{"lower-case key from another publisher", func() map[string][]string {
			h := http.Header{}
			telemetry.Inject(ctx, h)
			return map[string][]string{"traceparent": h["Traceparent"], "baggage": h["Baggage"]}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := telemetry.Extract(context.Background(), tt.header())
			sc := trace.SpanContextFromContext(got)
			if !sc.IsRemote() || sc.TraceID() != want {
				t.Fatalf("extracted %v, want trace %v", sc, want)
			}
			if v := baggage.FromContext(got).Member("tenant").Value(); v != "acme" {
				t.Fatalf("baggage tenant = %q", v)
			}
		})
	}

	if sc := trace.SpanContextFromContext(telemetry.Extract(context.Background(), nats.Header{})); sc.IsValid() {
		t.Fatal("empty header produced a span context")
	}
}

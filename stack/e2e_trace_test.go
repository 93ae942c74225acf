package stack_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/pkg/events"
)

// TestOneTraceFromGatewayToConsumer follows one REST call through every
// hop with the OpenTelemetry SDK's in-memory recorder: the gateway, the
// interests service, its call to the projects service, SQL, the outbox
// relay's publication to NATS and the notification service's consumer all
// share one trace id.
func TestOneTraceFromGatewayToConsumer(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})

	e := startStack(t, map[string]string{"DEMO_DATA": "5"})
	a := bearer(e.registerVerified("ann", "ann@example.com", "long enough pass").str("access_token"))
	rows := e.call("GET", "/gen-infor?per_page=1", nil).Body["data"].([]any)
	project := rows[0].(map[string]any)["project_id"].(string)
	expect(t, e.call("PATCH", "/userInterests/"+project, map[string]any{"is_interestToStepChk": true}, a...), 200, "follow")

	// The consumer span of this change, then everything of its trace.
	changed, err := events.SubjectOf(&interestsv1.InterestChanged{})
	if err != nil {
		t.Fatal(err)
	}
	var consumer sdktrace.ReadOnlySpan
	deadline := time.Now().Add(15 * time.Second)
	for consumer == nil && time.Now().Before(deadline) {
		for _, s := range rec.Ended() {
			if s.SpanKind() == trace.SpanKindConsumer && strings.Contains(s.Name(), changed) {
				consumer = s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if consumer == nil {
		t.Fatal("no consumer span for " + changed)
	}
	id := consumer.SpanContext().TraceID()
	var names []string
	has := map[string]bool{}
	for _, s := range rec.Ended() {
		if s.SpanContext().TraceID() != id {
			continue
		}
		n := s.Name()
		names = append(names, n)
		switch {
		case s.SpanKind() == trace.SpanKindServer && strings.HasPrefix(n, "PATCH /app/backend/api/v1"):
			has["gateway"] = true
		case strings.Contains(n, "InterestsService/UpdateInterest") && s.SpanKind() == trace.SpanKindServer:
			has["interests"] = true
		case strings.Contains(n, "ProjectsService/") && s.SpanKind() == trace.SpanKindServer:
			has["projects (service to service)"] = true
		case s.SpanKind() == trace.SpanKindClient && s.InstrumentationScope().Name == "bidradar/pkg/pgdb":
			has["sql"] = true
		case s.SpanKind() == trace.SpanKindProducer:
			has["outbox → nats"] = true
		case s.SpanKind() == trace.SpanKindConsumer:
			has["consumer"] = true
		}
	}
	for _, want := range []string{"gateway", "interests", "projects (service to service)", "sql", "outbox → nats", "consumer"} {
		if !has[want] {
			t.Errorf("trace %s lacks %s; it has %v", id, want, names)
		}
	}
}

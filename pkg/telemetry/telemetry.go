// Package telemetry sets up OpenTelemetry tracing for a service and carries
// trace context across NATS messages.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Setup installs the global W3C TraceContext+Baggage propagator and an SDK
// TracerProvider. A provider is installed even without an exporter so that
// spans (and therefore log lines) get real trace ids. When
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set,
// spans are batched to an OTLP gRPC exporter configured by the standard
// OTEL_EXPORTER_OTLP_* variables. OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override service; OTEL_TRACES_SAMPLER(_ARG) and
// OTEL_BSP_* are read by the SDK.
//
// Call shutdown with a fresh context at exit to flush pending spans.
func Setup(ctx context.Context, service string) (shutdown func(context.Context) error, err error) {
	res, err := resource.Merge(
		resource.Default(),
		resource.NewSchemaless(attribute.String("service.name", service)),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	// The environment wins over the name given in code.
	envRes, err := resource.New(ctx, resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("telemetry resource from env: %w", err)
	}
	if res, err = resource.Merge(res, envRes); err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}

	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		// New does not wait for a connection, so a collector that is down
		// does not stop the service from starting.
		exp, err := otlptracegrpc.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("otlp trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)

	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{}, propagation.Baggage{},
	))
	return func(ctx context.Context) error {
		return errors.Join(tp.ForceFlush(ctx), tp.Shutdown(ctx))
	}, nil
}

package telemetry

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel"
)

// Inject writes the trace context of ctx (traceparent, tracestate, baggage)
// into h using the global propagator. h may be an http.Header or a
// nats.Header (both are map[string][]string) and must not be nil.
//
//	msg := nats.NewMsg(subject)
//	telemetry.Inject(ctx, msg.Header)
func Inject(ctx context.Context, h map[string][]string) {
	otel.GetTextMapPropagator().Inject(ctx, headerCarrier(h))
}

// Extract returns ctx with the remote trace context found in h, if any.
// Keys are matched case-insensitively, because NATS headers, unlike HTTP
// ones, are not canonicalised and other publishers write "traceparent".
func Extract(ctx context.Context, h map[string][]string) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, headerCarrier(h))
}

// headerCarrier is propagation.HeaderCarrier with a case-insensitive Get.
type headerCarrier map[string][]string

func (c headerCarrier) Get(key string) string {
	if v := http.Header(c).Get(key); v != "" {
		return v
	}
	for k, v := range c {
		if strings.EqualFold(k, key) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func (c headerCarrier) Set(key, value string) { http.Header(c).Set(key, value) }

func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

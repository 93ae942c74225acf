package server

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

// H2CClient is an HTTP client for another service's port: HTTP/2 without
// TLS (h2c), as Run serves it, so Connect and gRPC calls share connections.
// Its transport carries the caller's trace context (traceparent) and makes
// a client span per call, so a trace continues from service to service.
func H2CClient() *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: otelhttp.NewTransport(tr)}
}

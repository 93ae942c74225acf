package server

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"bidradar/pkg/access"
	"bidradar/pkg/authn"
)

// H2CClient is an HTTP client for another service's port: HTTP/2 without
// TLS (h2c), as Run serves it, so Connect and gRPC calls share connections.
// Its transport carries the caller's trace context (traceparent) and makes
// a client span per call, so a trace continues from service to service.
// It presents no service token: internal RPCs refuse it (ServiceClient).
func H2CClient() *http.Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: otelhttp.NewTransport(tr)}
}

// ServiceClient is H2CClient for one service's calls to the others: each
// call of an internal RPC (access rule AUDIENCE_INTERNAL) carries a service
// token from tokens, addressed to the called service, in
// authn.ServiceTokenHeader. Every service-to-service client is built on it.
func ServiceClient(tokens *authn.ServiceTokens) *http.Client {
	c := H2CClient()
	c.Transport = serviceTokens{tokens: tokens, next: c.Transport}
	return c
}

// internalProcedures are the procedures that need a service token.
var internalProcedures = func() map[string]bool {
	policy, err := access.All()
	if err != nil {
		panic("server: access rules: " + err.Error()) // a build defect (pkg/access tests)
	}
	out := map[string]bool{}
	for _, p := range policy.Procedures(func(r access.Rule) bool { return r.Audience == access.Internal }) {
		out[p] = true
	}
	return out
}()

type serviceTokens struct {
	tokens *authn.ServiceTokens
	next   http.RoundTripper
}

func (s serviceTokens) RoundTrip(r *http.Request) (*http.Response, error) {
	if !internalProcedures[r.URL.Path] {
		return s.next.RoundTrip(r)
	}
	name, _ := access.ServiceName(r.URL.Path)
	tok, err := s.tokens.Token(name)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change its request
	r.Header.Set(authn.ServiceTokenHeader, tok)
	return s.next.RoundTrip(r)
}

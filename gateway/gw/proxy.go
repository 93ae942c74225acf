package gw

import (
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"bidradar/pkg/access"
	"bidradar/pkg/authn"
)

// internalProcedures are the RPCs served to other services only, never to
// browsers: those whose proto declares the internal audience.
var internalProcedures = func() map[string]bool {
	policy, err := access.All()
	if err != nil {
		panic("gateway: access rules: " + err.Error()) // a build defect: every RPC declares one (pkg/access tests)
	}
	out := map[string]bool{}
	for _, p := range policy.Procedures(func(r access.Rule) bool { return r.Audience == access.Internal }) {
		out[p] = true
	}
	return out
}()

// newConnectProxy forwards Connect, gRPC-Web and gRPC calls to a service over h2c,
// streaming bodies as they come.
func newConnectProxy(target string, log *slog.Logger) http.Handler {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: target})
			pr.SetXForwarded()
			// A browser's call is never a service's, whatever it sends.
			pr.Out.Header.Del(authn.ServiceTokenHeader)
		},
		// The instrumented transport continues the browser's trace into the service.
		Transport:     otelhttp.NewTransport(tr),
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.WarnContext(r.Context(), "upstream unavailable", "target", target, "path", r.URL.Path, "err", err)
			gatewayError(w, r, http.StatusServiceUnavailable, reasonUnavailable, UnavailableMessage)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if internalProcedures[r.URL.Path] {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// newWebSocketProxy forwards /ws/... upgrades to the realtime service (HTTP/1.1).
func newWebSocketProxy(target string, log *slog.Logger) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: target})
			pr.SetXForwarded()
			// The realtime service checks the Origin against the public host.
			pr.Out.Host = pr.In.Host
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.WarnContext(r.Context(), "realtime unavailable", "err", err)
			gatewayError(w, r, http.StatusServiceUnavailable, reasonUnavailable, UnavailableMessage)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/ws/notifications/") {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		rp.ServeHTTP(w, r)
	})
}

package ports

import (
	"context"
	"net"
	"net/http"
	"strings"

	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/app"
)

// clientIP is the caller's address as the gateway saw it: the last
// X-Forwarded-For entry (the gateway appends its peer; entries before it
// are the client's own claims), else the connection's peer.
func clientIP(h http.Header, peer string) string {
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		parts := strings.Split(xff[len(xff)-1], ",")
		if ip := strings.TrimSpace(parts[len(parts)-1]); ip != "" {
			return ip
		}
	}
	if host, _, err := net.SplitHostPort(peer); err == nil {
		return host
	}
	return peer
}

// withDevice passes the browser's User-Agent to a use case that may start a
// session: REST calls carry it as grpc-gateway's metadata, Connect calls as is.
func withDevice(ctx context.Context, h http.Header) context.Context {
	ua := h.Get("Grpcgateway-User-Agent")
	if ua == "" {
		ua = h.Get("User-Agent")
	}
	return app.WithDevice(ctx, ua)
}

func callerID(ctx context.Context) string {
	if c, ok := authn.FromContext(ctx); ok {
		return c.UserID
	}
	return ""
}

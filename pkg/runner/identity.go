package runner

import (
	"context"
	"log/slog"
	"net/http"

	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/server"
)

// Identity is how a service presents itself to the services it calls: its
// name (the sub of its service tokens) and the key every service shares.
type Identity struct {
	Name string
	Key  *authn.ServiceKey
}

// ServiceKeyEnv is the variable holding the key service tokens are signed
// with (base64 of at least 32 random bytes), the same for every service.
const ServiceKeyEnv = "SERVICE_TOKEN_KEY"

// ReadServiceKey reads SERVICE_TOKEN_KEY through env (required: without it
// no internal RPC can be called or served); nil when env has a problem.
func ReadServiceKey(env *config.Loader) *authn.ServiceKey {
	raw := env.Secret(ServiceKeyEnv)
	if raw == "" {
		return nil
	}
	k, err := authn.ParseServiceKey(raw)
	if err != nil {
		env.Invalid(ServiceKeyEnv, "want the base64 of at least 32 random bytes")
		return nil
	}
	return k
}

type nameKey struct{}

// Assemble builds the component of s: its Build, with the service's name in
// ctx for the service tokens it signs (NameOf). Main and the in-process
// launcher build every service through it.
func (s Spec) Assemble(ctx context.Context, getenv Getenv, log *slog.Logger) (Component, error) {
	return s.Build(context.WithValue(ctx, nameKey{}, s.Name), getenv, log)
}

// NameOf is the name of the service being assembled in ctx ("service" when
// Build was called directly, as some tests do).
func NameOf(ctx context.Context) string {
	if n, _ := ctx.Value(nameKey{}).(string); n != "" {
		return n
	}
	return "service"
}

// Client is the HTTP client for this service's calls to other services
// (h2c, traced): its calls of internal RPCs carry this service's token.
func (s *RPCServer) Client() *http.Client { return server.ServiceClient(s.tokens) }

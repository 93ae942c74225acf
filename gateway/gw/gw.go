// Package gw is the public HTTP origin of BidRadar: the spec's REST paths through
// grpc-gateway, Connect/gRPC-Web forwarding to the owning services, the WebSocket
// proxy to realtime, the built frontend with SPA fallback, CSRF checks and the
// OpenAPI document. It holds no business logic.
package gw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/gen/teams/v1/teamsv1connect"
	"bidradar/pkg/access"
	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/runner"
	"bidradar/pkg/server"
)

// Config is the gateway's runtime configuration (environment,
// docs/architecture.md#runtime-contract).
type Config struct {
	// Targets are the host:port addresses (h2c) of the services by full
	// name ("auth.v1.AuthService"), each read from the variable its proto
	// declares ((access.v1.endpoint) target_env, e.g. AUTH_TARGET).
	Targets map[string]string
	// RealtimeTarget is the WebSocket service (REALTIME_TARGET).
	RealtimeTarget string
	// ServiceKey (SERVICE_TOKEN_KEY) signs the gateway's own calls of
	// internal RPCs: the Stripe webhook and the calendar feed. Calls it
	// forwards for browsers never carry a service token.
	ServiceKey *authn.ServiceKey
	// WebDir is the built frontend (frontend/dist); empty serves no frontend.
	WebDir string
	// AllowedOrigins may call the API from a browser besides the gateway's own origin.
	AllowedOrigins []string
	// RequestTimeout bounds one upstream call: a second under the client's 15 s
	// (docs/product.md#base-path-and-transport), so that a 503 reaches the client
	// before it gives up.
	RequestTimeout time.Duration
	// Production (APP_ENV=production) adds HSTS.
	Production bool
	// PublicURL is the public origin (PUBLIC_URL), e.g. https://bidradar.example;
	// empty: the request's own scheme and host.
	PublicURL string
	// MaxBody bounds a request body (GATEWAY_MAX_BODY bytes, default 1 MiB).
	MaxBody int64
	// PasswordInFlight bounds concurrent password-hashing calls (GATEWAY_PASSWORD_INFLIGHT);
	// 0 means 8 per CPU.
	PasswordInFlight int
}

// Getenv reads configuration the way os.Getenv does.
type Getenv func(string) string

// ConfigFromEnv reads the gateway's configuration and reports every problem at once.
func ConfigFromEnv(getenv Getenv) (Config, error) {
	env := config.FromGetenv(getenv)
	c := Config{
		Targets:          map[string]string{},
		RealtimeTarget:   env.String("REALTIME_TARGET", ""),
		WebDir:           env.String("WEB_DIR", ""),
		RequestTimeout:   14 * time.Second,
		Production:       env.String("APP_ENV", "development") == "production",
		PublicURL:        strings.TrimRight(env.String("PUBLIC_URL", ""), "/"),
		MaxBody:          int64(env.IntIn("GATEWAY_MAX_BODY", DefaultMaxBody, 1024, math.MaxInt)),
		PasswordInFlight: env.IntIn("GATEWAY_PASSWORD_INFLIGHT", 0, 1, math.MaxInt),
		AllowedOrigins:   env.List("ALLOWED_ORIGINS", nil),
		ServiceKey:       runner.ReadServiceKey(env),
	}
	for _, e := range endpoints {
		c.Targets[e.Service] = env.String(e.TargetEnv, "")
	}
	if err := errors.Join(env.Err(), c.Validate()); err != nil {
		return c, fmt.Errorf("gateway config: %w", err)
	}
	return c, nil
}

// Validate checks that every target is a host:port and every origin a URL.
func (c Config) Validate() error {
	var errs []error
	targets := []struct{ name, value string }{}
	for _, e := range endpoints {
		targets = append(targets, struct{ name, value string }{e.TargetEnv, c.Targets[e.Service]})
	}
	targets = append(targets, struct{ name, value string }{"REALTIME_TARGET", c.RealtimeTarget})
	for _, t := range targets {
		if t.value == "" || strings.Contains(t.value, "/") || !strings.Contains(t.value, ":") {
			errs = append(errs, fmt.Errorf("%s: must be host:port, got %q", t.name, t.value))
		}
	}
	if c.ServiceKey == nil {
		errs = append(errs, errors.New(runner.ServiceKeyEnv+": required (the key of the service tokens)"))
	}
	for _, o := range c.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("ALLOWED_ORIGINS: %q is not an origin", o))
		}
	}
	return errors.Join(errs...)
}

// Gateway is the assembled HTTP handler and its upstream connections.
type Gateway struct {
	handler http.Handler
	closers []func() error
	health  *upstreamHealth
}

// New dials the services (lazily, as gRPC does) and assembles the routes.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Gateway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &Gateway{}
	slots := newPasswordSlots(cfg.PasswordInFlight)
	rest, closers, err := newREST(ctx, cfg, slots.unary)
	if err != nil {
		return nil, err
	}
	g.closers = closers

	mux := http.NewServeMux()
	// The webhook, the calendar feeds and the API key checks call internal
	// RPCs as the gateway.
	own := server.ServiceClient(authn.NewServiceTokens(cfg.ServiceKey, "gateway"))
	teamsTarget := cfg.Targets[teamsv1connect.TeamsServiceName]
	keys := func(h http.Handler) http.Handler {
		return apiKeys(own, teamsTarget, cfg.ServiceKey, cfg.RequestTimeout, log, h)
	}
	mux.Handle(apiPrefix, trimTrailingSlash(keys(rest)))
	mux.HandleFunc("GET "+apiPrefix+"openapi.json", serveOpenAPI)
	mux.Handle("POST "+webhookPath, newStripeWebhook(own, cfg.Targets[subscriptionv1connect.SubscriptionServiceName]))
	mux.Handle("GET "+calendarPrefix+"{file}", newCalendarFeed(own, cfg.Targets[interestsv1connect.InterestsServiceName], cfg.PublicURL, cfg.RequestTimeout))
	mux.Handle("GET "+teamCalendarPrefix+"{file}", newTeamCalendarFeed(own, teamsTarget, cfg.PublicURL, cfg.RequestTimeout))
	for prefix, target := range connectRoutes(cfg) {
		mux.Handle(prefix, keys(slots.connect(newConnectProxy(target, log))))
	}
	mux.Handle("/ws/", newWebSocketProxy(cfg.RealtimeTarget, log))
	// /healthz and /readyz are answered by pkg/server in front of this mux.
	g.health = newUpstreamHealth(cfg)
	mux.Handle("/", notOurProcedures(newStatic(cfg.WebDir)))

	var h http.Handler = mux
	h = guardInput(cfg.MaxBody, h) // before the password slots: a slow client holds none
	h = csrf(cfg.AllowedOrigins, cfg.PublicURL, h)
	h = cors(cfg.AllowedOrigins, h)
	h = securityHeaders(cfg.Production, h)
	h = otelhttp.NewHandler(h, "gateway", otelhttp.WithFilter(func(r *http.Request) bool {
		// a calendar link's path is its secret: not recorded in a span
		return r.URL.Path != "/healthz" && r.URL.Path != "/readyz" && !strings.HasPrefix(r.URL.Path, calendarPrefix) &&
			!strings.HasPrefix(r.URL.Path, teamCalendarPrefix)
	}))
	g.handler = accessLog(log, h)
	return g, nil
}

// ServeHTTP makes the gateway an http.Handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.handler.ServeHTTP(w, r) }

// Ready reports whether every upstream service answers its /readyz.
func (g *Gateway) Ready(ctx context.Context) error { return g.health.check(ctx) }

// Close releases the upstream connections.
func (g *Gateway) Close() error {
	var errs []error
	for _, c := range g.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// apiPrefix is the REST base path (docs/product.md#base-path-and-transport).
const apiPrefix = "/app/backend/api/v1/"

// procedurePath is /<package>.<Service>/<Method>, the path of a gRPC or
// Connect call.
var procedurePath = regexp.MustCompile(`^/[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\.[A-Z][A-Za-z0-9_]*/[A-Za-z0-9_]+$`)

// notOurProcedures answers 404 to a call of a service that is not ours
// (grpc.health.v1.Health, grpc.reflection.v1.ServerReflection, …): the
// services serve health and reflection to the cluster, never through the
// public origin. Other paths go to next (the frontend).
func notOurProcedures(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if procedurePath.MatchString(r.URL.Path) {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// endpoints are the BidRadar services and the variables naming their
// targets, as their protos declare them.
var endpoints = func() []access.Endpoint {
	eps, err := access.Endpoints()
	if err != nil {
		panic("gateway: " + err.Error()) // a build defect: pkg/access tests check every service declares one
	}
	return eps
}()

// connectRoutes maps each BidRadar service's Connect/gRPC path prefix
// ("/auth.v1.AuthService/") to its target. Nothing else is forwarded:
// grpc.health.v1, grpc.reflection and any other service answer 404 here.
func connectRoutes(cfg Config) map[string]string {
	out := make(map[string]string, len(endpoints))
	for _, e := range endpoints {
		out["/"+e.Service+"/"] = cfg.Targets[e.Service]
	}
	return out
}

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
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

// Config is the gateway's runtime configuration (environment, DESIGN §3).
type Config struct {
	// Targets are host:port addresses of the services (h2c).
	AuthTarget         string
	ProjectsTarget     string
	InterestsTarget    string
	SubscriptionTarget string
	NotificationTarget string
	RealtimeTarget     string
	// WebDir is the built frontend (frontend/dist); empty serves no frontend.
	WebDir string
	// AllowedOrigins may call the API from a browser besides the gateway's own origin.
	AllowedOrigins []string
	// RequestTimeout bounds one upstream call: a second under the client's
	// 15 s (SPEC §9), so that a 503 reaches the client before it gives up.
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
	c := Config{
		AuthTarget:         getenv("AUTH_TARGET"),
		ProjectsTarget:     getenv("PROJECTS_TARGET"),
		InterestsTarget:    getenv("INTERESTS_TARGET"),
		SubscriptionTarget: getenv("SUBSCRIPTION_TARGET"),
		NotificationTarget: getenv("NOTIFICATION_TARGET"),
		RealtimeTarget:     getenv("REALTIME_TARGET"),
		WebDir:             getenv("WEB_DIR"),
		RequestTimeout:     14 * time.Second,
		Production:         getenv("APP_ENV") == "production",
		PublicURL:          strings.TrimRight(getenv("PUBLIC_URL"), "/"),
		MaxBody:            DefaultMaxBody,
	}
	if v := getenv("GATEWAY_MAX_BODY"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 {
			return c, fmt.Errorf("GATEWAY_MAX_BODY must be an integer of at least 1024 (bytes), got %q", v)
		}
		c.MaxBody = n
	}
	if v := getenv("GATEWAY_PASSWORD_INFLIGHT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("GATEWAY_PASSWORD_INFLIGHT must be a positive integer, got %q", v)
		}
		c.PasswordInFlight = n
	}
	for _, o := range strings.Split(getenv("ALLOWED_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.AllowedOrigins = append(c.AllowedOrigins, o)
		}
	}
	return c, c.Validate()
}

// Validate checks that every target is a host:port and every origin a URL.
func (c Config) Validate() error {
	var errs []error
	for name, t := range map[string]string{
		"AUTH_TARGET": c.AuthTarget, "PROJECTS_TARGET": c.ProjectsTarget, "INTERESTS_TARGET": c.InterestsTarget,
		"SUBSCRIPTION_TARGET": c.SubscriptionTarget, "NOTIFICATION_TARGET": c.NotificationTarget, "REALTIME_TARGET": c.RealtimeTarget,
	} {
		if t == "" || strings.Contains(t, "/") || !strings.Contains(t, ":") {
			errs = append(errs, fmt.Errorf("%s must be host:port, got %q", name, t))
		}
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
	mux.Handle(apiPrefix, trimTrailingSlash(rest))
	mux.HandleFunc("GET "+apiPrefix+"openapi.json", serveOpenAPI)
	mux.Handle("POST "+webhookPath, newStripeWebhook(cfg.SubscriptionTarget))
	for prefix, target := range connectRoutes(cfg) {
		mux.Handle(prefix, slots.connect(newConnectProxy(target, log)))
	}
	mux.Handle("/ws/", newWebSocketProxy(cfg.RealtimeTarget, log))
	// /healthz and /readyz are answered by pkg/server in front of this mux.
	g.health = newUpstreamHealth(cfg)
	mux.Handle("/", newStatic(cfg.WebDir))

	var h http.Handler = mux
	h = guardInput(cfg.MaxBody, h) // before the password slots: a slow client holds none
	h = csrf(cfg.AllowedOrigins, cfg.PublicURL, h)
	h = cors(cfg.AllowedOrigins, h)
	h = securityHeaders(cfg.Production, h)
	h = otelhttp.NewHandler(h, "gateway", otelhttp.WithFilter(func(r *http.Request) bool {
		return r.URL.Path != "/healthz" && r.URL.Path != "/readyz"
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

// apiPrefix is SPEC §7's base path.
const apiPrefix = "/app/backend/api/v1/"

// connectRoutes maps each Connect/gRPC service path prefix to its owner.
func connectRoutes(cfg Config) map[string]string {
	return map[string]string{
		"/auth.v1.AuthService/":                 cfg.AuthTarget,
		"/projects.v1.ProjectsService/":         cfg.ProjectsTarget,
		"/interests.v1.InterestsService/":       cfg.InterestsTarget,
		"/subscription.v1.SubscriptionService/": cfg.SubscriptionTarget,
		"/notification.v1.NotificationService/": cfg.NotificationTarget,
	}
}

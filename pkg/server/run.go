package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for Run.
const (
	DefaultShutdownTimeout = 15 * time.Second
	readinessCheckTimeout  = 3 * time.Second
	// ReadTimeout bounds reading one request, headers and body, from its
	// first byte; then the connection is closed. A client trickling a body
	// that nothing buffers (a streamed gRPC body, the gateway's other
	// paths) cannot hold a socket longer. The gateway's own body limit
	// (10 s) is shorter; a hijacked WebSocket and an HTTP/2 connection
	// drop the deadline once they take over.
	ReadTimeout = 30 * time.Second
)

type readinessCheck struct {
	name  string
	check func(context.Context) error
}

type options struct {
	shutdownTimeout time.Duration
	drainDelay      time.Duration
	checks          []readinessCheck
	log             *slog.Logger
	grpc            bool     // WithHealthAndReflection
	grpcServices    []string // the services health and reflection name
}

// Option configures Run.
type Option func(*options)

// WithReadiness adds a check run by /readyz (e.g. a database ping); each
// check gets a 3 s deadline and all run concurrently.
func WithReadiness(name string, check func(context.Context) error) Option {
	return func(o *options) { o.checks = append(o.checks, readinessCheck{name, check}) }
}

// WithShutdownTimeout bounds the graceful shutdown (default 15 s); keep it
// below the Kubernetes terminationGracePeriodSeconds.
func WithShutdownTimeout(d time.Duration) Option {
	return func(o *options) { o.shutdownTimeout = d }
}

// WithDrainDelay keeps serving for d after /readyz turns 503 and before
// connections are closed, so load balancers stop sending traffic first
// (default 0).
func WithDrainDelay(d time.Duration) Option {
	return func(o *options) { o.drainDelay = d }
}

// WithLogger sets the logger for start, shutdown and failed readiness
// checks (default slog.Default()).
func WithLogger(log *slog.Logger) Option {
	return func(o *options) { o.log = log }
}

// Listen opens a TCP listener on addr ("127.0.0.1:9001", ":0" for tests).
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, nil
}

// Run serves h on ln until ctx is done, then shuts down gracefully. It
// answers GET /healthz (liveness, always 200 while serving) and GET /readyz
// (the readiness checks; 503 as soon as shutdown begins) itself and passes
// every other request to h. HTTP/1.1 and unencrypted HTTP/2 (h2c) are both
// served, so grpc-go clients can call connect handlers. Run closes ln and
// returns nil after a clean shutdown.
func Run(ctx context.Context, ln net.Listener, h http.Handler, opts ...Option) error {
	o := options{shutdownTimeout: DefaultShutdownTimeout, log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	var stopping atomic.Bool

	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{
		Handler:           routes(h, &o, &stopping),
		Protocols:         &protocols,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       ReadTimeout,
		// No WriteTimeout: it would cut streaming RPCs; handlers use
		// deadlines from their callers instead.
		IdleTimeout: 2 * time.Minute,
		// The gateway multiplexes every user's calls over one h2c connection per
		// service: Go's default of 250 streams would queue them invisibly.
		HTTP2:       &http.HTTP2Config{MaxConcurrentStreams: 2000},
		ErrorLog:    slog.NewLogLogger(o.log.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	o.log.InfoContext(ctx, "serving", "addr", ln.Addr().String())

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	stopping.Store(true)
	o.log.InfoContext(ctx, "shutting down", "drain_delay", o.drainDelay.String(), "timeout", o.shutdownTimeout.String())
	if o.drainDelay > 0 {
		time.Sleep(o.drainDelay)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

func routes(next http.Handler, o *options, stopping *atomic.Bool) http.Handler {
	grpc := grpcRoutes(o, stopping)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(grpc) > 0 {
			if svc, _, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); ok {
				if h, ok := grpc["/"+svc+"/"]; ok {
					h.ServeHTTP(w, r)
					return
				}
			}
		}
		switch r.URL.Path {
		case "/healthz":
			if !getOrHead(w, r) {
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
		case "/readyz":
			if !getOrHead(w, r) {
				return
			}
			if stopping.Load() {
				writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "shutting_down"})
				return
			}
			status, body := ready(r.Context(), o)
			writeJSON(w, status, body)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func getOrHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"detail": "Method Not Allowed"})
	return false
}

// ready runs all checks concurrently. Failures are logged, and the body
// only says "fail": error texts can name hosts and users.
func ready(ctx context.Context, o *options) (int, map[string]any) {
	results := make(map[string]string, len(o.checks))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range o.checks {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, readinessCheckTimeout)
			defer cancel()
			res := "ok"
			if err := c.check(cctx); err != nil {
				res = "fail"
				o.log.WarnContext(ctx, "readiness check failed", "check", c.name, "err", err)
			}
			mu.Lock()
			results[c.name] = res
			mu.Unlock()
		})
	}
	wg.Wait()
	status, word := http.StatusOK, "ok"
	for _, res := range results {
		if res != "ok" {
			status, word = http.StatusServiceUnavailable, "unavailable"
		}
	}
	return status, map[string]any{"status": word, "checks": results}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

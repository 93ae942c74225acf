// Package runner is the process shell shared by every service binary and by the
// in-process launcher: subcommands, logging, tracing, signals, the listener, and
// an RPC server that verifies access tokens with keys fetched from auth.
package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"bidradar/pkg/access"
	"bidradar/pkg/authkeys"
	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/events"
	"bidradar/pkg/logging"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/server"
	"bidradar/pkg/telemetry"
)

// Component is a service ready to serve on a listener until ctx ends.
type Component interface {
	Run(ctx context.Context, ln net.Listener) error
}

// Getenv reads configuration (os.Getenv, or an overlay in the launcher and tests).
type Getenv func(string) string

// Spec describes one service binary.
type Spec struct {
	Name        string
	AddrEnv     string // e.g. AUTH_ADDR
	DefaultAddr string // e.g. 127.0.0.1:9001
	// Build assembles the service from its configuration.
	Build func(ctx context.Context, getenv Getenv, log *slog.Logger) (Component, error)
	// Migrate applies the service's database migrations; nil for services without a database.
	Migrate func(ctx context.Context, getenv Getenv, log *slog.Logger) error
}

// Main runs `<name> [serve|migrate|replay-dead-letters STREAM CONSUMER]` and
// exits non-zero on failure (bad config included).
func Main(spec Spec) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logging.New(spec.Name, os.Getenv("LOG_LEVEL"))
	TuneGC()
	if n := os.Getenv("NATS_REPLICAS"); n != "" {
		// Streams and durable consumers on that many servers of a NATS
		// cluster (docs/architecture.md#beyond-one-machine).
		r, err := strconv.Atoi(n)
		if err != nil || r < 1 || r > 5 {
			log.Error("NATS_REPLICAS must be 1 to 5", "value", n)
			os.Exit(1)
		}
		events.SetStreamReplicas(r)
	}
	if err := run(ctx, spec, log); err != nil {
		log.Error(spec.Name+" exited", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, spec Spec, log *slog.Logger) error {
	cmd := "serve"
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	switch cmd {
	case "migrate":
		if spec.Migrate == nil {
			log.Info("no database: nothing to migrate")
			return nil
		}
		return spec.Migrate(ctx, os.Getenv, log)
	case "replay-dead-letters":
		return ReplayDeadLetters(ctx, spec.Name, os.Args[2:], os.Getenv, log)
	case "serve":
	default:
		return fmt.Errorf("unknown command %q (want serve, migrate or replay-dead-letters)", cmd)
	}
	shutdown, err := telemetry.Setup(ctx, spec.Name)
	if err != nil {
		return err
	}
	defer func() { _ = shutdown(context.WithoutCancel(ctx)) }()
	addr := config.FromEnv().String(spec.AddrEnv, spec.DefaultAddr)
	comp, err := spec.Assemble(ctx, os.Getenv, log)
	if err != nil {
		return err
	}
	ln, err := server.Listen(addr)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", ln.Addr().String())
	return comp.Run(ctx, ln)
}

// ReplayDeadLetters is the replay-dead-letters command: it publishes again
// the events a consumer gave up on (args: its stream and durable name, e.g.
// PROJECTS notification-projects), on the NATS server of NATS_URL, once
// what failed them is mended. See events.ReplayDeadLetters.
func ReplayDeadLetters(ctx context.Context, name string, args []string, getenv Getenv, log *slog.Logger) error {
	if len(args) != 2 {
		return errors.New("usage: " + name + " replay-dead-letters STREAM CONSUMER (e.g. PROJECTS notification-projects)")
	}
	env := config.FromGetenv(getenv)
	url := env.Required("NATS_URL")
	if err := env.Err(); err != nil {
		return err
	}
	nc, js, err := events.Connect(url, name+"-replay")
	if err != nil {
		return err
	}
	defer nc.Close()
	st, err := events.ReplayDeadLetters(ctx, js, args[0], args[1])
	if err != nil {
		return fmt.Errorf("%w (%d replayed before)", err, st.Replayed)
	}
	log.Info("dead letters replayed", "stream", args[0], "consumer", args[1], "replayed", st.Replayed,
		"kept_inside_duplicate_window", st.Kept)
	return nil
}

// RPCServer serves connect handlers with the shared interceptors; requests are
// authenticated with access tokens verified against the auth service's keys.
type RPCServer struct {
	log *slog.Logger
	mux *http.ServeMux
	// keys fetches auth's keys; nil on auth itself, which verifies with its own.
	keys     *authkeys.Fetcher
	tokens   *authn.ServiceTokens
	verifier *authn.Verifier
	admins   authn.Admins
	authOpts []authn.InterceptorOption
	opts     []server.Option
	closers  []func()
	bg       []func(ctx context.Context)
	services []string // served, for gRPC health and reflection
	reads    *pgdb.Reads
	// secureCookies: production, the cookies it sets are Secure.
	secureCookies bool
}

// NewRPCServer prepares a server; id names the service and holds the
// service-token key (its internal RPCs require a token, its calls of others'
// carry one), authTarget is the auth service's host:port, admins the
// operators allowed to call admin procedures (ADMIN_EMAILS) and authOpts
// tune how callers are authenticated (authn.SecureCookiesOnly).
func NewRPCServer(log *slog.Logger, id Identity, authTarget string, admins authn.Admins, authOpts ...authn.InterceptorOption) (*RPCServer, error) {
	if authTarget == "" {
		return nil, errors.New("AUTH_TARGET is required (the auth service's host:port)")
	}
	if id.Key == nil || id.Name == "" {
		return nil, errors.New(ServiceKeyEnv + " is required (the key of the service tokens)")
	}
	tokens := authn.NewServiceTokens(id.Key, id.Name)
	keys := authkeys.New(server.ServiceClient(tokens), authTarget, log)
	s := newRPCServer(log, id, tokens, keys.Ring(), admins, authOpts)
	s.keys = keys
	return s, nil
}

// NewIssuerRPCServer prepares the server of the service that signs the
// access tokens (auth): it verifies them with keys, its own signer's, where
// every other service fetches them from AUTH_TARGET, which would be itself.
func NewIssuerRPCServer(log *slog.Logger, id Identity, keys authn.KeySource, admins authn.Admins, authOpts ...authn.InterceptorOption) (*RPCServer, error) {
	if id.Key == nil || id.Name == "" {
		return nil, errors.New(ServiceKeyEnv + " is required (the key of the service tokens)")
	}
	return newRPCServer(log, id, authn.NewServiceTokens(id.Key, id.Name), keys, admins, authOpts), nil
}

func newRPCServer(log *slog.Logger, id Identity, tokens *authn.ServiceTokens, keys authn.KeySource, admins authn.Admins, authOpts []authn.InterceptorOption) *RPCServer {
	return &RPCServer{
		log:      log,
		mux:      http.NewServeMux(),
		tokens:   tokens,
		verifier: authn.NewVerifier(keys, authn.WithEndedSessions(authn.NewEndedSessions())),
		admins:   admins,
		authOpts: append([]authn.InterceptorOption{authn.WithServiceKey(id.Key)}, authOpts...),
		opts:     []server.Option{server.WithLogger(log)},
	}
}

// HandlerOptions returns the interceptors for the handler of service (its
// full name, e.g. projectsv1connect.ProjectsServiceName), enforcing the
// access rules its protos declare. It fails when an RPC declares none.
func (s *RPCServer) HandlerOptions(service string) ([]connect.HandlerOption, error) {
	policy, err := access.ForService(service)
	if err != nil {
		return nil, err
	}
	s.services = append(s.services, service)
	chain := []connect.Interceptor{authn.NewInterceptor(s.verifier, policy, s.admins, s.authOpts...)}
	if s.reads.HasReplica() {
		chain = append(chain, readsInterceptor(s.reads, s.secureCookies))
	}
	return server.HandlerOptions(s.log, chain...), nil
}

// Mount adds a generated connect handler (path, handler).
func (s *RPCServer) Mount(path string, h http.Handler) { s.mux.Handle(path, h) }

// Handle adds a plain HTTP route.
func (s *RPCServer) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Readiness adds a /readyz check.
func (s *RPCServer) Readiness(name string, check func(context.Context) error) {
	s.opts = append(s.opts, server.WithReadiness(name, check))
}

// Background registers work that runs while the server serves; Run waits
// for it to return before closing anything registered with OnClose.
func (s *RPCServer) Background(f func(ctx context.Context)) { s.bg = append(s.bg, f) }

// OnClose registers cleanup run after the server stops.
func (s *RPCServer) OnClose(f func()) { s.closers = append(s.closers, f) }

// Verifier is the access-token verifier (for non-RPC routes such as WebSockets).
func (s *RPCServer) Verifier() *authn.Verifier { return s.verifier }

// Run serves until ctx ends, refreshing the auth keys in the background. It
// serves gRPC health (like /readyz) and reflection for the services whose
// HandlerOptions it made.
func (s *RPCServer) Run(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if s.keys != nil {
		go s.keys.Run(ctx, 10*time.Minute)
	}
	var bg sync.WaitGroup
	for _, f := range s.bg {
		bg.Go(func() { f(ctx) })
	}
	defer func() {
		// Background work stops before what it uses is closed.
		cancel()
		bg.Wait()
		for i := len(s.closers) - 1; i >= 0; i-- {
			s.closers[i]()
		}
	}()
	return server.Run(ctx, ln, s.mux, append(s.opts, server.WithHealthAndReflection(s.services...))...)
}

// Package authsvc is the public entry point of the auth service, for
// cmd/auth and for in-process launchers in other modules (the stack and
// end-to-end tests):
//
//	cfg, err := authsvc.ConfigFromEnv(os.Getenv)  // or build a Config
//	cfg.NATSURL = natsURL                          // e.g. an embedded server
//	svc, err := authsvc.New(ctx, cfg, log)         // connects, migrates, wires
//	defer svc.Close()
//	err = svc.Run(ctx, ln)                         // serves until ctx ends
//
// Handler returns only the RPC mux (Connect, gRPC and gRPC-Web of
// auth.v1.AuthService); Run serves it with /healthz and /readyz, h2c and
// graceful shutdown, and runs the outbox relay and periodic cleanup.
package authsvc

import (
	"context"
	"crypto/ed25519"
	"log/slog"
	"net"
	"net/http"

	"bidradar/services/auth/internal/service"
)

// Config is the service configuration; see ConfigFromEnv for the
// environment variables behind each field.
type Config = service.Config

// LineConfig is the LINE Login channel part of Config.
type LineConfig = service.LineConfig

// Argon2Config is the password hashing part of Config. Tests may lower the
// costs (e.g. MemoryKiB 64, Iterations 1); production refuses that.
type Argon2Config = service.Argon2Config

// ConfigFromEnv reads the configuration through getenv (os.Getenv):
// AUTH_ADDR, DATABASE_URL, NATS_URL, APP_ENV, LOG_LEVEL, AUTH_SIGNING_KEY,
// OTP_HMAC_KEY, AUTH_INTERNAL_TOKEN, SMTP_*/MAIL_FROM/MAIL_DIR,
// LINE_CHANNEL_ID, LINE_CHANNEL_SECRET, LINE_REDIRECT_URI,
// LINE_AUTHORIZE_URL, LINE_TOKEN_URL, LINE_PROFILE_URL, LOGIN_CONCURRENCY,
// LOGIN_QUEUE, AUTH_ARGON2_MEMORY_KIB, AUTH_ARGON2_ITERATIONS,
// AUTH_ARGON2_THREADS, AUTH_SKIP_MIGRATIONS.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	return service.ConfigFromEnv(getenv)
}

// Service is a running auth service.
type Service struct {
	s *service.Service
}

// New connects to PostgreSQL (creating the database outside production),
// runs the migrations unless cfg.SkipMigrations, connects to NATS when
// cfg.NATSURL is set (ensuring the AUTH stream, subjects auth.v1.>), loads
// or generates the keys and wires the handler.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Service, error) {
	s, err := service.New(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	return &Service{s: s}, nil
}

// Handler returns the RPC handler (no health endpoints).
func (s *Service) Handler() http.Handler { return s.s.Handler() }

// PublicKeys returns the access-token verification keys by key id, to
// build the authn.Verifier of other services in the same process.
func (s *Service) PublicKeys() map[string]ed25519.PublicKey { return s.s.PublicKeys() }

// Ready reports whether PostgreSQL and NATS are reachable.
func (s *Service) Ready(ctx context.Context) error { return s.s.Ready(ctx) }

// Run serves on ln and runs the outbox relay until ctx ends, then shuts
// down gracefully.
func (s *Service) Run(ctx context.Context, ln net.Listener) error { return s.s.Run(ctx, ln) }

// Close releases NATS and the database pool (after Run returned).
func (s *Service) Close() { s.s.Close() }

// Migrate applies the auth schema's migrations and returns.
func Migrate(ctx context.Context, cfg Config) error { return service.Migrate(ctx, cfg) }

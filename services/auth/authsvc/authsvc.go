// Package authsvc assembles the auth service (users, credentials, one-time
// codes, refresh-token families, LINE Login and the access-token signing
// key) for its binary and the in-process launcher. It is the only package of
// the service that imports the adapters.
//
//	runner.Main(authsvc.Spec)                        // cmd/auth
//	authsvc.NewSpec(authsvc.Options{Now: clock.Now}) // the stack's tests
//
// Like every service it is a runner.Spec: the database through
// runner.StartService, events through ConnectEvents, its jobs (mail,
// cleanup) on the server. Auth signs the access tokens, so its server
// verifies them with its own key rather than fetching it from AUTH_TARGET.
package authsvc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/authn"
	"bidradar/pkg/config"
	"bidradar/pkg/mail"
	"bidradar/pkg/runner"
	"bidradar/services/auth/internal/adapters/postgres"
	"bidradar/services/auth/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = postgres.Schema

// Spec is the auth binary and in-process component.
var Spec = NewSpec(Options{})

// Options replace parts of what the environment configures, for the
// in-process launcher and tests.
type Options struct {
	// Now is the clock; nil is time.Now. The stack's tests move it forward
	// to cross expiry and resend windows without waiting.
	Now func() time.Time
	// MailSender replaces the sender built from SMTP_*.
	MailSender mail.Sender
}

// NewSpec returns the auth runner.Spec with o applied.
func NewSpec(o Options) runner.Spec {
	if o.Now == nil {
		o.Now = time.Now
	}
	return runner.Spec{
		Name:        "auth",
		AddrEnv:     "AUTH_ADDR",
		DefaultAddr: DefaultAddr,
		Build: func(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
			return build(ctx, getenv, log, o)
		},
		Migrate: Migrate,
	}
}

// Open connects to DATABASE_URL (creating the database if needed) and
// migrates the schema, its outbox and its processed-events table.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return runner.OpenDatabase(ctx, url, Schema, migrations.FS)
}

// Migrate applies the schema migrations to the database of the
// configuration (DATABASE_URL, or the development default).
func Migrate(ctx context.Context, getenv runner.Getenv, _ *slog.Logger) error {
	s, _, err := loadSettings(getenv)
	if err != nil {
		return err
	}
	pool, err := Open(ctx, s.databaseURL)
	if err != nil {
		return err
	}
	pool.Close()
	return nil
}

// loadSettings reads the configuration and fails with every problem at once.
func loadSettings(getenv runner.Getenv) (settings, *config.Loader, error) {
	env := config.FromGetenv(getenv)
	s := readSettings(env)
	if err := env.Err(); err != nil {
		return settings{}, nil, fmt.Errorf("auth config: %w", err)
	}
	return s, env, nil
}

// build assembles the service: configuration, then the database and the
// server, then the keys, the use cases, events, jobs and the handler.
func build(ctx context.Context, getenv runner.Getenv, log *slog.Logger, o Options) (runner.Component, error) {
	s, env, err := loadSettings(getenv)
	if err != nil {
		return nil, err
	}
	// The server verifies tokens with the signing key, known once the
	// database (which keeps the development key) is open.
	ring := authn.NewKeyRing(nil)
	srv, pool, err := runner.StartService(ctx, log, runner.ServiceEnv{
		DatabaseURL: s.databaseURL, NATSURL: s.natsURL, Production: s.production, Keys: ring, ServiceKey: s.serviceKey,
	}, Open)
	if err != nil {
		return nil, err
	}
	if err := wire(ctx, srv, pool, ring, s, o, log); err != nil {
		srv.Close()
		return nil, err
	}
	log.InfoContext(ctx, "auth service ready", "config", env.Redacted())
	return srv, nil
}

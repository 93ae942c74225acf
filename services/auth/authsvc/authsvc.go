// Package authsvc assembles the auth service (users, credentials, one-time
// codes, refresh-token families, LINE Login and the access-token signing
// key) for its binary and the in-process launcher. It is the only package of
// the service that imports the adapters.
//
//	runner.Main(authsvc.Spec)                        // cmd/auth
//	authsvc.NewSpec(authsvc.Options{Now: clock.Now}) // the stack's tests
//
// Tests that need the service itself build a Config (or ConfigFromEnv) and
// call New; Handler is the RPC mux only, Run serves it with /healthz and
// /readyz, h2c and graceful shutdown, and runs the outbox relay, the mail
// workers and the periodic cleanup.
package authsvc

import (
	"context"
	"log/slog"
	"net"
	"time"

	"bidradar/pkg/mail"
	"bidradar/pkg/runner"
)

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
	return runner.Spec{
		Name:        "auth",
		AddrEnv:     "AUTH_ADDR",
		DefaultAddr: DefaultAddr,
		Build: func(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
			cfg, err := ConfigFromEnv(getenv)
			if err != nil {
				return nil, err
			}
			if o.Now != nil {
				cfg.Now = o.Now
			}
			if o.MailSender != nil {
				cfg.MailSender = o.MailSender
			}
			s, err := New(ctx, cfg, log)
			if err != nil {
				return nil, err
			}
			return component{s}, nil
		},
		Migrate: Migrate,
	}
}

// Migrate applies the auth schema's migrations to DATABASE_URL.
func Migrate(ctx context.Context, getenv runner.Getenv, _ *slog.Logger) error {
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	return migrate(ctx, cfg)
}

// component closes the service once it has stopped serving.
type component struct{ *Service }

func (c component) Run(ctx context.Context, ln net.Listener) error {
	defer c.Close()
	return c.Service.Run(ctx, ln)
}

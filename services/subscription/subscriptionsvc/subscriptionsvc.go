// Package subscriptionsvc assembles the subscription service: tiers and the
// user's plan now; checkout, webhooks and quotas in the subscription issue.
package subscriptionsvc

import (
	"context"
	"log/slog"
	"time"

	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/runner"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/ports"
	"bidradar/services/subscription/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "subscription"

// Spec is the subscription binary and in-process component.
var Spec = runner.Spec{
	Name:        "subscription",
	AddrEnv:     "SUBSCRIPTION_ADDR",
	DefaultAddr: "127.0.0.1:9004",
	Build:       Build,
	Migrate:     Migrate,
}

// Migrate applies the schema migrations.
func Migrate(ctx context.Context, getenv runner.Getenv, _ *slog.Logger) error {
	pool, err := pgdb.Open(ctx, getenv("DATABASE_URL"), Schema)
	if err != nil {
		return err
	}
	defer pool.Close()
	return pgdb.Migrate(ctx, pool, Schema, migrations.FS)
}

// Build assembles the service (DATABASE_URL, AUTH_TARGET); it migrates at start.
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	srv, err := runner.NewRPCServer(log, getenv("AUTH_TARGET"), authn.ParseAdmins(getenv("ADMIN_EMAILS")))
	if err != nil {
		return nil, err
	}
	pool, err := pgdb.Open(ctx, getenv("DATABASE_URL"), Schema)
	if err != nil {
		return nil, err
	}
	if err := pgdb.Migrate(ctx, pool, Schema, migrations.FS); err != nil {
		pool.Close()
		return nil, err
	}
	srv.OnClose(pool.Close)
	srv.Readiness("postgres", pool.Ping)
	opts, err := srv.HandlerOptions(subscriptionv1connect.SubscriptionServiceName)
	if err != nil {
		return nil, err
	}
	if url := getenv("NATS_URL"); url != "" {
		// Only to refuse the tokens of ended sessions (logout, password reset).
		nc, js, err := events.Connect(url, "subscription")
		if err != nil {
			pool.Close()
			return nil, err
		}
		srv.OnClose(func() { _ = nc.Drain() })
		srv.FollowEndedSessions(js)
	}
	h := ports.NewHandler(postgres.New(pool), time.Now)
	srv.Mount(subscriptionv1connect.NewSubscriptionServiceHandler(h, opts...))
	return srv, nil
}

// Package marketsvc assembles the market service (awards, benchmarks, price
// guide, supplier and agency profiles, competitor watch;
// docs/architecture.md#market-bid-intelligence) for its binary and the
// in-process launcher.
package marketsvc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/market/v1/marketv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/events"
	"bidradar/pkg/runner"
	"bidradar/services/market/internal/adapters/postgres"
	"bidradar/services/market/internal/adapters/projectsclient"
	"bidradar/services/market/internal/adapters/subscriptionclient"
	"bidradar/services/market/internal/app"
	"bidradar/services/market/internal/ports"
	"bidradar/services/market/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "market"

// Spec is the market binary and in-process component.
var Spec = runner.Spec{
	Name:        "market",
	AddrEnv:     "MARKET_ADDR",
	DefaultAddr: "127.0.0.1:9008",
	Build:       Build,
	Migrate:     Migrate,
}

// Open connects to DATABASE_URL (creating the database if needed) and
// migrates the schema and its outbox.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return runner.OpenDatabase(ctx, url, Schema, migrations.FS)
}

// Migrate applies the schema migrations.
var Migrate = runner.MigrateWith(Open)

// Build assembles the service. Environment: DATABASE_URL, PROJECTS_TARGET and
// SUBSCRIPTION_TARGET (host:port, h2c) are required; AUTH_TARGET; NATS_URL
// (the projects' award events in, competitor alerts out; unset: neither);
// MARKET_FLUSH_EVERY (how often pending alerts and stale rollups are
// handled, default 2s).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	se := runner.ReadServiceEnv(env)
	projectsTarget := env.Required("PROJECTS_TARGET")
	subscriptionTarget := env.Required("SUBSCRIPTION_TARGET")
	every := env.PositiveDuration("MARKET_FLUSH_EVERY", 2*time.Second)
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("market config: %w", err)
	}
	srv, pool, err := runner.StartService(ctx, log, se, Open)
	if err != nil {
		return nil, err
	}
	store := postgres.New(pool)
	store.ReadOn(srv.Reads()) // figures on DATABASE_READ_URL when set
	a := app.New(store, subscriptionclient.New(srv.Client(), subscriptionTarget, 5*time.Second),
		projectsclient.New(srv.Client(), projectsTarget, 5*time.Second), nil)
	if se.NATSURL != "" {
		ev := ports.NewEvents(a)
		if _, err := srv.ConnectEvents(ctx, se.NATSURL, pool, runner.Events{
			Name: "market", Forget: a.ForgetUser,
			Consumers: []events.Consumer{
				events.Durable("market-awards", events.On(ev.AwardRecorded), events.On(ev.AwardWithdrawn)),
			},
		}); err != nil {
			srv.Close()
			return nil, err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: no awards arrive and alerts wait in the outbox")
	}
	// Pending competitor alerts leave as events, and stale rollups are
	// recomputed, a few seconds after the writes (docs/market.md#competitor-watch).
	srv.Every(every, func(ctx context.Context) {
		if _, err := a.FlushAlerts(ctx); err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, "market: flush alerts", "err", err)
		}
		if err := a.RefreshRollups(ctx); err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, "market: refresh rollups", "err", err)
		}
	})
	opts, err := srv.HandlerOptions(marketv1connect.MarketServiceName)
	if err != nil {
		srv.Close()
		return nil, err
	}
	srv.Mount(marketv1connect.NewMarketServiceHandler(ports.NewHandler(a), opts...))
	return srv, nil
}

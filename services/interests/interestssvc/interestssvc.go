// Package interestssvc assembles the interests service (a user's marks,
// bids and comments on projects) for its binary and the in-process launcher.
package interestssvc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/runner"
	"bidradar/services/interests/internal/adapters/ical"
	"bidradar/services/interests/internal/adapters/postgres"
	"bidradar/services/interests/internal/adapters/projectsclient"
	"bidradar/services/interests/internal/app"
	"bidradar/services/interests/internal/ports"
	"bidradar/services/interests/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "interests"

// Spec is the interests binary and in-process component.
var Spec = runner.Spec{
	Name:        "interests",
	AddrEnv:     "INTERESTS_ADDR",
	DefaultAddr: "127.0.0.1:9003",
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

// Build assembles the service. Environment: DATABASE_URL and PROJECTS_TARGET
// (host:port of the projects service, h2c) are required; AUTH_TARGET;
// NATS_URL (outbox relay; unset keeps events in the outbox).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	se := runner.ReadServiceEnv(env)
	projectsTarget := env.Required("PROJECTS_TARGET")
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("interests config: %w", err)
	}
	srv, pool, err := runner.StartService(ctx, log, se, Open)
	if err != nil {
		return nil, err
	}
	repo := postgres.New(pool)
	a := app.New(repo, projectsclient.New(srv.Client(), projectsTarget, 5*time.Second), nil)
	a.SetFeeds(repo)
	if se.NATSURL != "" {
		if _, err := srv.ConnectEvents(ctx, se.NATSURL, pool, runner.Events{
			Name: "interests", Forget: a.ForgetUser,
		}); err != nil {
			srv.Close()
			return nil, err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}
	opts, err := srv.HandlerOptions(interestsv1connect.InterestsServiceName)
	if err != nil {
		srv.Close()
		return nil, err
	}
	h := ports.NewHandler(a)
	h.SetCalendar(ical.Encode)
	srv.Mount(interestsv1connect.NewInterestsServiceHandler(h, opts...))
	return srv, nil
}

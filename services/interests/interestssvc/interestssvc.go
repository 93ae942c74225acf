// Package interestssvc assembles the interests service (a user's marks,
// bids and comments on projects) for its binary and the in-process launcher.
package interestssvc

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/runner"
	"bidradar/services/interests/internal/adapters/postgres"
	"bidradar/services/interests/internal/adapters/projectsclient"
	"bidradar/services/interests/internal/app"
	"bidradar/services/interests/internal/ports"
	"bidradar/services/interests/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "interests"

// Stream is the JetStream stream of the events this service publishes.
const Stream = events.StreamInterests

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
func Migrate(ctx context.Context, getenv runner.Getenv, _ *slog.Logger) error {
	pool, err := Open(ctx, getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	pool.Close()
	return nil
}

// Build assembles the service. Environment: DATABASE_URL and PROJECTS_TARGET
// (host:port of the projects service, h2c) are required; AUTH_TARGET;
// NATS_URL (outbox relay; unset keeps events in the outbox).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	var problems []error
	if getenv("DATABASE_URL") == "" {
		problems = append(problems, errors.New("interests: DATABASE_URL is required"))
	}
	projectsTarget := getenv("PROJECTS_TARGET")
	if projectsTarget == "" {
		problems = append(problems, errors.New("interests: PROJECTS_TARGET is required (the projects service's host:port)"))
	}
	srv, err := runner.NewRPCServer(log, getenv("AUTH_TARGET"), authn.ParseAdmins(getenv("ADMIN_EMAILS")))
	if err != nil {
		problems = append(problems, err)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	pool, err := Open(ctx, getenv("DATABASE_URL"))
	if err != nil {
		return nil, err
	}
	srv.OnClose(pool.Close)
	srv.Readiness("postgres", pool.Ping)
	a := app.New(postgres.New(pool), projectsclient.New(projectsTarget, 5*time.Second), nil)
	if url := getenv("NATS_URL"); url != "" {
		nc, js, err := events.Connect(url, "interests")
		if err != nil {
			pool.Close()
			return nil, err
		}
		srv.OnClose(func() { _ = nc.Drain() })
		if err := events.EnsureStream(ctx, js, Stream, []string{"interests.>"}); err != nil {
			pool.Close()
			return nil, err
		}
		srv.FollowEndedSessions(js)
		if err := srv.OnUserDeactivated(ctx, js, "interests-forget-users", a.ForgetUser); err != nil {
			pool.Close()
			return nil, err
		}
		relay := outbox.NewRelay(pool, js, log, outbox.RelayOptions{})
		srv.Background(func(ctx context.Context) {
			if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
				log.ErrorContext(ctx, "outbox relay stopped", "err", err)
			}
		})
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}
	opts, err := srv.HandlerOptions(interestsv1connect.InterestsServiceName)
	if err != nil {
		pool.Close()
		return nil, err
	}
	srv.Mount(interestsv1connect.NewInterestsServiceHandler(ports.NewHandler(a), opts...))
	return srv, nil
}

// Package teamssvc assembles the teams service (teams, members,
// invitations, the shared pipeline, team API keys and calendar links) for
// its binary and the in-process launcher.
package teamssvc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/teams/v1/teamsv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/mail"
	"bidradar/pkg/queue"
	"bidradar/pkg/runner"
	"bidradar/services/teams/internal/adapters/clients"
	"bidradar/services/teams/internal/adapters/ical"
	"bidradar/services/teams/internal/adapters/postgres"
	"bidradar/services/teams/internal/app"
	"bidradar/services/teams/internal/ports"
	"bidradar/services/teams/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "teams"

// Spec is the teams binary and in-process component.
var Spec = runner.Spec{
	Name:        "teams",
	AddrEnv:     "TEAMS_ADDR",
	DefaultAddr: "127.0.0.1:9007",
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

// mailPolicy retries an invitation's mail for about a day.
var mailPolicy = mail.Policy{
	MaxAttempts: 10,
	Backoff:     func(attempts int) time.Duration { return time.Duration(1<<min(attempts, 8)) * 30 * time.Second },
	Lease:       time.Minute,
}

// Build assembles the service. Environment: DATABASE_URL, PROJECTS_TARGET
// and SUBSCRIPTION_TARGET are required; PUBLIC_URL (the links in
// invitations); TEAM_API_KEY_LIMIT calls per TEAM_API_KEY_WINDOW (default
// 60 a minute) for each API key; SMTP_*/MAIL_FROM as pkg/mail reads them.
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	se := runner.ReadServiceEnv(env)
	projectsTarget := env.Required("PROJECTS_TARGET")
	subscriptionTarget := env.Required("SUBSCRIPTION_TARGET")
	publicURL := env.String("PUBLIC_URL", "")
	keyLimit := env.IntIn("TEAM_API_KEY_LIMIT", 60, 1, 1_000_000)
	keyWindow := env.PositiveDuration("TEAM_API_KEY_WINDOW", time.Minute)
	mailCfg := mail.ConfigFrom(env)
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("teams config: %w", err)
	}
	srv, pool, err := runner.StartService(ctx, log, se, Open)
	if err != nil {
		return nil, err
	}
	a := app.New(postgres.New(pool), clients.NewProjects(srv.Client(), projectsTarget, 5*time.Second),
		clients.NewPlans(srv.Client(), subscriptionTarget, 5*time.Second),
		app.Options{PublicURL: publicURL, KeyLimit: keyLimit, KeyWindow: keyWindow})
	if se.NATSURL != "" {
		if _, err := srv.ConnectEvents(ctx, se.NATSURL, pool, runner.Events{Name: "teams", Forget: a.ForgetUser}); err != nil {
			srv.Close()
			return nil, err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}
	if sender, err := mail.New(mailCfg, log); err == nil {
		w, err := queue.New(pool, queue.Options{Log: log}, mail.Kind(mailPolicy, sender))
		if err != nil {
			srv.Close()
			return nil, err
		}
		srv.Background(w.Run)
	} else if mailCfg.Host != "" {
		srv.Close()
		return nil, err
	} else {
		log.WarnContext(ctx, "no mail sender: invitations stay queued", "err", err)
	}
	opts, err := srv.HandlerOptions(teamsv1connect.TeamsServiceName)
	if err != nil {
		srv.Close()
		return nil, err
	}
	srv.Mount(teamsv1connect.NewTeamsServiceHandler(ports.NewHandler(a, ical.Encode), opts...))
	return srv, nil
}

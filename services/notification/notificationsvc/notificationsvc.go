// Package notificationsvc assembles the notification service (the bell, its
// settings, and the alerts written from other services' events) for its
// binary and the in-process launcher.
package notificationsvc

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/notification/v1/notificationv1connect"
	"bidradar/pkg/authn"
	"bidradar/pkg/events"
	"bidradar/pkg/mail"
	"bidradar/pkg/outbox"
	"bidradar/pkg/runner"
	"bidradar/pkg/server"
	"bidradar/services/notification/internal/adapters/authcontacts"
	"bidradar/services/notification/internal/adapters/linepush"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/adapters/webhookpost"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/ports"
	"bidradar/services/notification/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "notification"

// Spec is the notification binary and in-process component.
var Spec = runner.Spec{
	Name:        "notification",
	AddrEnv:     "NOTIFICATION_ADDR",
	DefaultAddr: "127.0.0.1:9005",
	Build:       Build,
	Migrate:     Migrate,
}

// Open connects to DATABASE_URL (creating the database if needed) and
// migrates the schema, its outbox and its processed-events table.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pool, err := runner.OpenDatabase(ctx, url, Schema, migrations.FS)
	if err != nil {
		return nil, err
	}
	if err := events.EnsureProcessedTable(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
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

// Build assembles the service. Environment: DATABASE_URL is required;
// AUTH_TARGET; NATS_URL (the events it consumes, and the relay of the
// per-user events the realtime service pushes; unset, the bell still works
// but nothing arrives live and no alert is written).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	var problems []error
	if getenv("DATABASE_URL") == "" {
		problems = append(problems, errors.New("notification: DATABASE_URL is required"))
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
	ch, err := channels(getenv, log)
	if err != nil {
		pool.Close()
		return nil, err
	}
	a := app.New(postgres.New(pool), nil).WithChannels(ch)
	startChannelJobs(srv, a, log)
	if url := getenv("NATS_URL"); url != "" {
		if err := connectEvents(ctx, srv, pool, url, a, log); err != nil {
			pool.Close()
			return nil, err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: no alerts are written and the bell is not pushed live")
	}
	opts, err := srv.HandlerOptions(notificationv1connect.NotificationServiceName)
	if err != nil {
		pool.Close()
		return nil, err
	}
	srv.Mount(notificationv1connect.NewNotificationServiceHandler(ports.NewHandler(a), opts...))
	return srv, nil
}

// channels reads the ways out besides the bell: e-mail through SMTP_* (the
// development sender without SMTP_HOST), LINE when LINE_CHANNEL_ACCESS_TOKEN
// is set (LINE_API_BASE points tests at a fake), addresses from the auth
// service (AUTH_TARGET with AUTH_INTERNAL_TOKEN), links on PUBLIC_URL;
// outgoing webhooks always (APP_ENV=production: https to public addresses only).
func channels(getenv runner.Getenv, log *slog.Logger) (app.Channels, error) {
	var c app.Channels
	c.PublicURL = getenv("PUBLIC_URL")
	if target, token := getenv("AUTH_TARGET"), getenv("AUTH_INTERNAL_TOKEN"); target != "" && token != "" {
		c.Contacts = authcontacts.New(server.H2CClient(), target, token)
	} else {
		log.Warn("AUTH_INTERNAL_TOKEN unset: alerts reach the bell only (no e-mail, no LINE)")
	}
	sender, err := mail.NewFromEnv(getenv, log)
	if err != nil {
		return c, err
	}
	c.Mail = mailer{sender}
	if tok := getenv("LINE_CHANNEL_ACCESS_TOKEN"); tok != "" {
		c.Line = linepush.New(getenv("LINE_API_BASE"), tok)
	}
	// Outgoing webhooks: https to public addresses only in production.
	c.Production = getenv("APP_ENV") == "production"
	c.Webhook = webhookpost.New(c.Production)
	return c, nil
}

type mailer struct{ s mail.Sender }

func (m mailer) Mail(ctx context.Context, to, subject, text string) error {
	return m.s.Send(ctx, mail.Message{To: to, Subject: subject, Text: text})
}

// startChannelJobs sends due deliveries every few seconds and the daily
// digest once its hour has come (both safe on every replica).
func startChannelJobs(srv *runner.RPCServer, a *app.App, log *slog.Logger) {
	srv.Background(func(ctx context.Context) {
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			for {
				n, err := a.Deliver(ctx, 50)
				if err != nil && ctx.Err() == nil {
					log.WarnContext(ctx, "deliveries", "err", err)
				}
				if n < 50 || err != nil {
					break
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	srv.Background(func(ctx context.Context) {
		tick := time.NewTicker(5 * time.Minute)
		defer tick.Stop()
		for {
			if _, err := a.Digest(ctx); err != nil && ctx.Err() == nil {
				log.WarnContext(ctx, "daily digest", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

// connectEvents starts the outbox relay and the durable consumers.
func connectEvents(ctx context.Context, srv *runner.RPCServer, pool *pgxpool.Pool, url string, a *app.App, log *slog.Logger) error {
	nc, js, err := events.Connect(url, "notification")
	if err != nil {
		return err
	}
	srv.OnClose(func() { _ = nc.Drain() })
	for name, subjects := range map[string][]string{
		events.StreamNotification: {"notification.>"},
		events.StreamDeadLetter:   {events.DeadLetterPrefix + ".>"},
		// Created by their producers too; ensured here so this service can
		// start first.
		events.StreamProjects:  {"projects.>"},
		events.StreamInterests: {"interests.>"},
	} {
		if err := events.EnsureStream(ctx, js, name, subjects); err != nil {
			return err
		}
	}
	srv.FollowEndedSessions(js)
	relay := outbox.NewRelay(pool, js, log, outbox.RelayOptions{})
	srv.Background(func(ctx context.Context) {
		if err := relay.Run(ctx); err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, "outbox relay stopped", "err", err)
		}
	})
	h := ports.NewEvents(a)
	consumers := []struct {
		stream, durable string
		subjects        []string
		handle          events.Handler
	}{
		{events.StreamProjects, "notification-projects", []string{ports.SubjectCriteriaMatched, ports.SubjectAnnouncementAdded, ports.SubjectDeadline}, h.Projects},
		{events.StreamInterests, "notification-follows", []string{ports.SubjectInterestChanged}, h.Interests},
	}
	for _, c := range consumers {
		srv.Background(func(ctx context.Context) {
			events.ConsumeUntilDone(ctx, js, c.stream, c.durable, c.subjects, c.handle, log)
		})
	}
	return nil
}

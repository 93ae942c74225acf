// Package notificationsvc assembles the notification service (the bell, its
// settings, and the alerts written from other services' events) for its
// binary and the in-process launcher.
package notificationsvc

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/notification/v1/notificationv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/events"
	"bidradar/pkg/mail"
	"bidradar/pkg/queue"
	"bidradar/pkg/runner"
	"bidradar/services/notification/internal/adapters/authcontacts"
	"bidradar/services/notification/internal/adapters/linepush"
	"bidradar/services/notification/internal/adapters/plansclient"
	"bidradar/services/notification/internal/adapters/postgres"
	"bidradar/services/notification/internal/adapters/searchowners"
	"bidradar/services/notification/internal/adapters/webhookpost"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
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
	return runner.OpenDatabase(ctx, url, Schema, migrations.FS)
}

// Migrate applies the schema migrations.
var Migrate = runner.MigrateWith(Open)

// Build assembles the service. Environment: DATABASE_URL is required;
// AUTH_TARGET; NATS_URL (the events it consumes, and the relay of the
// per-user events the realtime service pushes; unset, the bell still works
// but nothing arrives live and no alert is written); with NATS_URL,
// PROJECTS_TARGET (the owners and names of the searches an alert names).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	se := runner.ReadServiceEnv(env)
	ch := readChannels(env)
	limits := readLimits(env)
	// The instant alerts name their searches by key: the projects service
	// tells their owners and names.
	var projectsTarget string
	if se.NATSURL != "" {
		projectsTarget = env.Required("PROJECTS_TARGET")
	}
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("notification config: %w", err)
	}
	srv, pool, err := runner.StartService(ctx, log, se, Open)
	if err != nil {
		return nil, err
	}
	c, err := ch.build(log, srv.Client())
	if err != nil {
		srv.Close()
		return nil, err
	}
	a := app.New(postgres.New(pool), nil).WithChannels(c).WithLimits(limits)
	if err := startChannelJobs(srv, pool, a, log); err != nil {
		srv.Close()
		return nil, err
	}
	if se.NATSURL != "" {
		if err := connectEvents(ctx, srv, pool, se.NATSURL, a, searchowners.New(srv.Client(), projectsTarget, 0)); err != nil {
			srv.Close()
			return nil, err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: no alerts are written and the bell is not pushed live")
	}
	opts, err := srv.HandlerOptions(notificationv1connect.NotificationServiceName)
	if err != nil {
		srv.Close()
		return nil, err
	}
	srv.Mount(notificationv1connect.NewNotificationServiceHandler(ports.NewHandler(a), opts...))
	return srv, nil
}

// readLimits reads the per-account rate limits: TEST_NOTIFICATIONS_PER_MINUTE
// (test and test-multiple together, default 30) and WEBHOOK_CHANGES_PER_HOUR
// (sets and removals, default 20).
func readLimits(env *config.Loader) domain.Limits {
	l := domain.DefaultLimits
	l.Test.Max = env.IntIn("TEST_NOTIFICATIONS_PER_MINUTE", l.Test.Max, 1, 100000)
	l.Webhook.Max = env.IntIn("WEBHOOK_CHANGES_PER_HOUR", l.Webhook.Max, 1, 100000)
	return l
}

// channelConfig is the ways out besides the bell: e-mail through SMTP_* (the
// development sender without SMTP_HOST), LINE when LINE_CHANNEL_ACCESS_TOKEN
// is set (LINE_API_BASE points tests at a fake), addresses from the auth
// service (AUTH_TARGET, its internal GetUser), links on PUBLIC_URL;
// outgoing webhooks always: https to public addresses only, unless the
// development flag WEBHOOK_ALLOW_PRIVATE (refused with APP_ENV=production)
// lets local receivers in; e-mail and LINE only for the tiers that include
// them (SUBSCRIPTION_TARGET).
type channelConfig struct {
	publicURL, authTarget  string
	subscriptionTarget     string
	mail                   mail.Config
	lineToken, lineAPIBase string
	allowPrivateWebhooks   bool
}

func readChannels(env *config.Loader) channelConfig {
	cc := channelConfig{
		publicURL:  env.String("PUBLIC_URL", ""),
		authTarget: env.String("AUTH_TARGET", ""),
		// Which channels each user's tier includes.
		subscriptionTarget:   env.String("SUBSCRIPTION_TARGET", ""),
		mail:                 mail.ConfigFrom(env),
		lineToken:            env.OptionalSecret("LINE_CHANNEL_ACCESS_TOKEN"),
		lineAPIBase:          env.String("LINE_API_BASE", ""),
		allowPrivateWebhooks: env.Bool("WEBHOOK_ALLOW_PRIVATE", false),
	}
	if cc.allowPrivateWebhooks && env.String("APP_ENV", "development") == "production" {
		env.Invalid("WEBHOOK_ALLOW_PRIVATE", "a development flag: refused with APP_ENV=production")
	}
	return cc
}

// build makes the channels; client calls the other services as this one.
func (cc channelConfig) build(log *slog.Logger, client *http.Client) (app.Channels, error) {
	var c app.Channels
	c.PublicURL = cc.publicURL
	if cc.authTarget != "" {
		c.Contacts = authcontacts.New(client, cc.authTarget)
	}
	if cc.subscriptionTarget != "" {
		c.Plans = plansclient.New(client, cc.subscriptionTarget, 0)
	} else {
		log.Warn("SUBSCRIPTION_TARGET unset: alerts reach the bell only (no tier is known to include e-mail or LINE)")
	}
	sender, err := mail.New(cc.mail, log)
	if err != nil {
		return c, err
	}
	c.Mail = mailer{sender}
	if cc.lineToken != "" {
		c.Line = linepush.New(cc.lineAPIBase, cc.lineToken)
	}
	// Outgoing webhooks: https to public addresses only, but for the flag.
	c.AllowPrivateWebhooks = cc.allowPrivateWebhooks
	c.Webhook = webhookpost.New(c.AllowPrivateWebhooks)
	return c, nil
}

type mailer struct{ s mail.Sender }

func (m mailer) Mail(ctx context.Context, to, subject, text string) error {
	return m.s.Send(ctx, mail.Message{To: to, Subject: subject, Text: text})
}

// startChannelJobs runs the queue worker of the deliveries (pkg/queue:
// woken by each one queued, a few at a time per destination) and the daily
// digest once its hour has come; both are safe on every replica.
func startChannelJobs(srv *runner.RPCServer, pool *pgxpool.Pool, a *app.App, log *slog.Logger) error {
	w, err := queue.New(pool, queue.Options{Log: log}, a.Jobs()...)
	if err != nil {
		return err
	}
	srv.Background(w.Run)
	srv.Every(5*time.Minute, func(ctx context.Context) {
		if _, err := a.Digest(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "daily digest", "err", err)
		}
	})
	return nil
}

// alertsConsumer reads the alerts: instant matches, overnight digests, new
// steps and deadlines of followed projects.
func alertsConsumer(h *ports.Events) events.Consumer {
	return events.Durable("notification-projects", events.On(h.ProjectMatched), events.On(h.ImportMatched), events.On(h.CriteriaMatched),
		events.On(h.AnnouncementAdded), events.On(h.DeadlineApproaching))
}

// connectEvents starts the outbox relay and the durable consumers.
func connectEvents(ctx context.Context, srv *runner.RPCServer, pool *pgxpool.Pool, url string, a *app.App, owners domain.SearchOwners) error {
	h := ports.NewEvents(a, owners)
	_, err := srv.ConnectEvents(ctx, url, pool, runner.Events{
		Name: "notification", Forget: a.ForgetUser,
		Consumers: []events.Consumer{
			alertsConsumer(h),
			// Who follows which project.
			events.Durable("notification-follows", events.On(h.InterestChanged)),
			// Teams: mentions in a discussion, stage changes of an owned item.
			events.Durable("notification-teams", events.On(h.MemberMentioned), events.On(h.ItemStageChanged)),
			// Competitor watch: awards of watched tax ids (docs/market.md#competitor-watch).
			events.Durable("notification-competitors", events.On(h.CompetitorWon)),
		},
	})
	return err
}

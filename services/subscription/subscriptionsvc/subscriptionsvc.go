// Package subscriptionsvc assembles the subscription service: tiers, the
// plan in force, quotas, checkout and payment fulfilment.
package subscriptionsvc

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/events"
	"bidradar/pkg/mail"
	"bidradar/pkg/queue"
	"bidradar/pkg/runner"
	"bidradar/services/subscription/internal/adapters/localpay"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/adapters/stripepay"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
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

// Open connects to DATABASE_URL (creating the database if needed) and
// migrates the schema, its outbox and its processed-events table.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) {
	return runner.OpenDatabase(ctx, url, Schema, migrations.FS)
}

// Migrate applies the schema migrations.
var Migrate = runner.MigrateWith(Open)

// provider chooses the payment provider: Stripe when STRIPE_SECRET_KEY is
// set (STRIPE_WEBHOOK_SECRET then required; STRIPE_API_BASE points at
// stripe-mock in tests), else the local provider of `make run` — refused in
// production (APP_ENV=production), where nobody may upgrade for free.
// seller reads the issuer printed on receipts: SELLER_NAME, SELLER_TAX_ID
// (13 digits, check digit), SELLER_BRANCH (5 digits; unset: head office) and
// SELLER_ADDRESS. Production needs them all (a tax invoice must name the
// real company); development falls back to domain.SampleSeller.
func seller(env *config.Loader) domain.Party {
	name, taxID, address := env.String("SELLER_NAME", ""), env.String("SELLER_TAX_ID", ""), env.String("SELLER_ADDRESS", "")
	branch := env.String("SELLER_BRANCH", "")
	if name == "" && taxID == "" && address == "" && branch == "" {
		if env.String("APP_ENV", "development") == "production" {
			env.Invalid("SELLER_NAME", "SELLER_NAME, SELLER_TAX_ID and SELLER_ADDRESS are required in production (receipts name the seller)")
		}
		return domain.SampleSeller
	}
	p, err := domain.ValidateSeller(domain.Party{Name: name, TaxID: taxID, HeadOffice: branch == "", Branch: branch, Address: address})
	if err != nil {
		env.Invalid("SELLER_*", err.Error())
	}
	return p
}

func provider(env *config.Loader) domain.Provider {
	key, secret := env.OptionalSecret("STRIPE_SECRET_KEY"), env.OptionalSecret("STRIPE_WEBHOOK_SECRET")
	apiBase, publicURL := env.String("STRIPE_API_BASE", ""), env.String("PUBLIC_URL", "")
	switch {
	case key != "" && secret == "":
		env.Invalid("STRIPE_WEBHOOK_SECRET", "required with STRIPE_SECRET_KEY")
		return nil
	case key != "":
		return stripepay.New(key, secret, apiBase, publicURL)
	case env.String("APP_ENV", "development") == "production":
		return nil // payments off rather than free upgrades
	}
	return localpay.Provider{}
}

// Build assembles the service. Environment: DATABASE_URL (required),
// AUTH_TARGET, NATS_URL (outbox relay), the Stripe settings of Provider,
// PUBLIC_URL (the app's origin for Stripe's return pages and e-mail links),
// CHECKOUT_PER_MINUTE (checkouts one account may start a minute),
// SMTP_*/MAIL_FROM (receipts and reminders, as pkg/mail reads them).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	se := runner.ReadServiceEnv(env)
	publicURL := env.String("PUBLIC_URL", "")
	provider := provider(env)
	issuer := seller(env)
	mailCfg := mail.ConfigFrom(env)
	checkoutLimit := env.IntIn("CHECKOUT_PER_MINUTE", domain.DefaultCheckoutsPerMinute, 1, 10_000)
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("subscription config: %w", err)
	}
	srv, pool, err := runner.StartService(ctx, log, se, Open)
	if err != nil {
		return nil, err
	}
	var m domain.Mailer
	if sender, err := mail.New(mailCfg, log); err == nil {
		m = mailer{sender}
	} else if mailCfg.Host != "" {
		srv.Close()
		return nil, err
	} else {
		// No SMTP and no writable mail folder (a read-only container):
		// receipts and reminders wait in the queue until mail is set up.
		log.WarnContext(ctx, "no mail sender: receipts and reminders stay queued", "err", err)
	}
	a := app.New(postgres.New(pool).WithSeller(issuer), provider, nil, log).WithMail(m, publicURL).WithCheckoutLimit(checkoutLimit)
	if se.NATSURL != "" {
		h := ports.NewEvents(a)
		if _, err := srv.ConnectEvents(ctx, se.NATSURL, pool, runner.Events{
			Name: "subscription", Forget: a.ForgetUser,
			Consumers: []events.Consumer{
				// The address receipts and reminders go to follows the account's.
				events.Durable("subscription-emails", events.On(h.EmailChanged)),
			},
		}); err != nil {
			srv.Close()
			return nil, err
		}
	}
	opts, err := srv.HandlerOptions(subscriptionv1connect.SubscriptionServiceName)
	if err != nil {
		srv.Close()
		return nil, err
	}
	if err := startJobs(srv, pool, a, log); err != nil {
		srv.Close()
		return nil, err
	}
	srv.Mount(subscriptionv1connect.NewSubscriptionServiceHandler(ports.NewHandler(a), opts...))
	return srv, nil
}

type mailer struct{ s mail.Sender }

func (m mailer) Send(ctx context.Context, x domain.Mail) error {
	return m.s.Send(ctx, mail.Message{To: x.To, Subject: x.Subject, Text: x.Text, HTML: x.HTML})
}

// reminderEvery is how often the reminders due today are looked for.
const reminderEvery = time.Minute

// startJobs runs the service's queue worker (plans past their end date,
// stops of replaced card subscriptions, mail; pkg/queue) and the reminder
// job; both are safe on every replica at once (jobs are leased per row,
// reminders remembered per plan end).
func startJobs(srv *runner.RPCServer, pool *pgxpool.Pool, a *app.App, log *slog.Logger) error {
	w, err := queue.New(pool, queue.Options{Log: log}, a.Jobs()...)
	if err != nil {
		return err
	}
	srv.Background(w.Run)
	srv.Every(reminderEvery, func(ctx context.Context) {
		if _, err := a.SendReminders(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "plan reminders", "err", err)
		}
	})
	return nil
}

package projectssvc

// The wiring after the database is open: the use cases and their clients,
// the demo data, the jobs, events and the Connect handler.

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/pkg/events"
	"bidradar/pkg/runner"
	"bidradar/services/projects/internal/adapters/egprss"
	"bidradar/services/projects/internal/adapters/interestsclient"
	"bidradar/services/projects/internal/adapters/ocds"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/adapters/quotaclient"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/internal/ports"
)

// wire completes srv on pool.
func wire(ctx context.Context, srv *runner.RPCServer, pool *pgxpool.Pool, s settings, log *slog.Logger) error {
	s.search.Reads = srv.Reads() // search, listings and details on DATABASE_READ_URL when set
	d, err := NewDeps(pool, log, s.search)
	if err != nil {
		return err
	}
	configure(ctx, srv, d, s, log)
	if s.demo > 0 {
		if err := SeedDemo(ctx, d, s.demo, log); err != nil {
			return err
		}
	}
	reloadSavedSearches(srv, d, log)
	if s.service.NATSURL != "" {
		if err := connectEvents(ctx, srv, d, s.service.NATSURL, log); err != nil {
			return err
		}
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}
	pollFeeds(srv, d, s.rss, log)
	overnight := scheduleAlerts(srv, d, log)
	return mount(srv, d, s, overnight)
}

// configure gives the use cases their clients of other services and the
// saved criteria's stores.
func configure(ctx context.Context, srv *runner.RPCServer, d *Deps, s settings, log *slog.Logger) {
	if s.interests != "" {
		d.App.SetInterests(interestsclient.New(srv.Client(), s.interests, 3*time.Second))
	} else {
		log.WarnContext(ctx, "INTERESTS_TARGET unset: listings carry no marks and the listing flags answer 503")
	}
	x := s.extras
	if s.quota.target != "" {
		q := quotaclient.New(srv.Client(), s.quota.target, s.quota.timeout)
		x.Quota, x.Plans = q, q
	}
	store := postgres.NewCriteriaStore(d.Pool)
	x.Cooldowns, x.Criteria = store, store
	d.App.Configure(x)
}

// reloadSavedSearches loads the saved searches of the instant alerts at
// start and again within a second of any change, here: a write then rarely
// waits for a reload (~0.4 s at 100,000 searches), and a user's refresh of a
// project never should.
func reloadSavedSearches(srv *runner.RPCServer, d *Deps, log *slog.Logger) {
	failing := false
	srv.Every(time.Second, func(ctx context.Context) {
		// A hung database holds no write behind the reload for long.
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := d.Alerts.Warm(wctx)
		cancel()
		if err != nil && !failing && ctx.Err() == nil {
			log.WarnContext(ctx, "instant alerts: saved searches not loaded; the next write loads them", "err", err)
		}
		failing = err != nil
	})
}

// connectEvents relays the outbox and follows the users' deactivations.
func connectEvents(ctx context.Context, srv *runner.RPCServer, d *Deps, natsURL string, log *slog.Logger) error {
	js, err := srv.ConnectEvents(ctx, natsURL, d.Pool, runner.Events{
		Name: "projects", Forget: d.App.ForgetUser,
	})
	if err != nil {
		return err
	}
	// The instant alerts were once a durable consumer of the project
	// events; writes now match in their own transaction. Its left-over
	// durable would keep every project event pending: deleted.
	streams, _ := events.StreamsOf("projects")
	for _, stream := range streams {
		if err := js.DeleteConsumer(ctx, stream, "projects-alerts"); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			log.WarnContext(ctx, "the former instant alerts' consumer projects-alerts not deleted", "err", err)
		}
	}
	return nil
}

// pollFeeds ingests the e-GP feeds of the configured agencies.
func pollFeeds(srv *runner.RPCServer, d *Deps, c rssConfig, log *slog.Logger) {
	if len(c.agencies) == 0 {
		return
	}
	client := egprss.NewClient(c.base)
	p := &egprss.Poller{
		Client: client, Agencies: c.agencies, Pace: 1500 * time.Millisecond, Interval: c.interval,
		Handle: func(ctx context.Context, q egprss.Query, f egprss.Feed) error {
			_, err := d.App.Ingest(ctx, feedSource{f}, client.BaseURL+"?deptId="+q.DeptID+"&anounceType="+q.AnounceType, nil)
			return err
		},
		OnError: func(q egprss.Query, err error) {
			log.Warn("rss poll failed", "dept", q.DeptID, "type", q.AnounceType, "err", err)
		},
	}
	srv.Background(func(ctx context.Context) { _ = p.Run(ctx) })
}

// feedSource adapts an already fetched feed to the ingestion port.
type feedSource struct{ f egprss.Feed }

func (s feedSource) Name() string { return domain.SourceRSS }

func (s feedSource) Each(_ context.Context, fn func(domain.Project) error, onErr func(domain.RecordError)) error {
	for _, e := range s.f.Skipped {
		onErr(e)
	}
	for _, p := range s.f.Projects {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// scheduleAlerts runs the alerts that follow the clock and returns the
// overnight run, which admins may also start now.
func scheduleAlerts(srv *runner.RPCServer, d *Deps, log *slog.Logger) *app.Overnight {
	// Overnight searches: at 02:00 Bangkok, once across replicas (a leased
	// run per date, resumed after a crash); admins may run it now. Checked
	// every minute: cheap, one claim that fails once the day is done.
	overnight := app.NewOvernight(d.Repo, log, nil)
	srv.Every(time.Minute, func(ctx context.Context) {
		if _, err := overnight.RunDue(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			log.WarnContext(ctx, "overnight run", "err", err)
		}
	})
	// Deadline reminders, the day before from 08:00 Bangkok: every replica
	// may run the job, each reminder is written once.
	deadlines := app.NewDeadlines(d.Repo, log, nil)
	srv.Every(5*time.Minute, func(ctx context.Context) {
		if _, err := deadlines.RemindDue(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "deadline reminders", "err", err)
		}
	})
	return overnight
}

// mount serves ProjectsService. Ingestion is for the operators named in
// ADMIN_EMAILS (e-mails or "@domain"), as the access rules say.
func mount(srv *runner.RPCServer, d *Deps, s settings, overnight *app.Overnight) error {
	handlerOpts, err := srv.HandlerOptions(projectsv1connect.ProjectsServiceName)
	if err != nil {
		return err
	}
	h := ports.NewHandler(d.App, newIngestSources(s.rss.base, s.hosts), func(p domain.Project) any { return ocds.FromProject(p, "") })
	h.SetOvernight(overnight)
	srv.Mount(projectsv1connect.NewProjectsServiceHandler(h, handlerOpts...))
	return nil
}

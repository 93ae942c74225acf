// Package projectssvc assembles the projects service (projects, ingestion,
// Thai search) for its binary and for the in-process launcher.
package projectssvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"bidradar/gen/projects/v1/projectsv1connect"
	"bidradar/pkg/config"
	"bidradar/pkg/events"
	"bidradar/pkg/runner"
	"bidradar/services/projects/internal/adapters/egprss"
	"bidradar/services/projects/internal/adapters/egpsource"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/interestsclient"
	"bidradar/services/projects/internal/adapters/ocds"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/adapters/quotaclient"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/internal/ports"
	"bidradar/services/projects/migrations"
)

// Schema is the PostgreSQL schema this service owns.
const Schema = "projects"

// DefaultDemoData is the number of demo projects seeded into an empty
// database when DEMO_DATA is unset.
const DefaultDemoData = 3000

// Spec is the projects binary and in-process component.
var Spec = runner.Spec{
	Name:        "projects",
	AddrEnv:     "PROJECTS_ADDR",
	DefaultAddr: "127.0.0.1:9002",
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

// Deps are the assembled parts, shared by the server and the CLI.
type Deps struct {
	Pool   *pgxpool.Pool
	Repo   *postgres.Repo
	App    *app.App
	Alerts *app.Alerts // the saved searches every write matches against
}

// NewDeps builds the repository and use cases on pool.
func NewDeps(pool *pgxpool.Pool, log *slog.Logger, opts postgres.Options) (*Deps, error) {
	repo := postgres.New(pool, eventproto.Encoder{}, opts)
	a, err := app.New(repo, repo, log)
	if err != nil {
		return nil, err
	}
	// Every write of projects (ingestion, refresh, the demo seed) matches
	// them against the saved searches: the instant alerts.
	alerts := app.NewAlerts(postgres.NewCriteriaStore(pool))
	repo.SetInstantAlerts(alerts)
	return &Deps{Pool: pool, Repo: repo, App: a, Alerts: alerts}, nil
}

// SeedDemo inserts n generated projects (deterministic, seed 1) when the
// table has fewer than n rows.
func SeedDemo(ctx context.Context, d *Deps, n int, log *slog.Logger) error {
	var have int
	if err := d.Pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM projects LIMIT $1) s", n).Scan(&have); err != nil {
		return err
	}
	if have >= n {
		return nil
	}
	g := demo.New(1, time.Now())
	start := time.Now()
	batch := make([]domain.Project, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, g.Project(i))
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := d.Repo.Upsert(ctx, 0, batch, time.Now()); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if _, err := d.Pool.Exec(ctx, "ANALYZE projects"); err != nil {
		return err
	}
	d.Repo.Invalidate()
	log.InfoContext(ctx, "demo data seeded", "projects", n, "took", time.Since(start).String())
	return nil
}

// Build assembles the service. Environment: DATABASE_URL (required),
// AUTH_TARGET, NATS_URL (outbox relay; unset keeps events in the outbox),
// DEMO_DATA (demo projects for an empty database, default 3000, 0 = none),
// EGP_RSS_URL (feed base URL), EGP_RSS_AGENCIES (comma-separated deptIds to
// poll; unset = no poller), EGP_RSS_INTERVAL, SEARCH_TOTAL_CAP, and for
// scrape / update-project-smart / saved criteria: EGP_PROJECT_URL (the
// e-GP getProjectDetail endpoint, default egpsource.DefaultURL),
// EGP_PROJECT_CONCURRENCY (parallel e-GP requests per scrape, default 4),
// EGP_PROJECT_PACE (least time between two e-GP requests, default 250ms),
// PROJECT_REFRESH_COOLDOWN (update-project-smart, default 10m),
// SUBSCRIPTION_TARGET (host:port of the subscription service, h2c: the
// tier limits; unset: saving criteria and the OCDS export answer 503), SUBSCRIPTION_TIMEOUT (default 5s) and
// INGEST_ALLOWED_HOSTS (hosts an admin ingest may fetch, default e-GP's) and
// INTERESTS_TARGET (host:port of the interests service: the users' marks on
// listing rows and the listing flags).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	env := config.FromGetenv(getenv)
	se := runner.ReadServiceEnv(env)
	interestsTarget := env.String("INTERESTS_TARGET", "")
	demoN := env.IntIn("DEMO_DATA", DefaultDemoData, 0, math.MaxInt)
	opts := postgres.Options{TotalCap: env.Int("SEARCH_TOTAL_CAP", 0)}
	rssBase := env.String("EGP_RSS_URL", "")
	agencies := env.List("EGP_RSS_AGENCIES", nil)
	interval := env.PositiveDuration("EGP_RSS_INTERVAL", 15*time.Minute)
	hosts := env.List("INGEST_ALLOWED_HOSTS", DefaultIngestHosts)
	x, quota := extras(env)
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("projects config: %w", err)
	}
	srv, pool, err := runner.StartService(ctx, log, se, Open)
	if err != nil {
		return nil, err
	}
	d, err := NewDeps(pool, log, opts)
	if err != nil {
		srv.Close()
		return nil, err
	}
	if interestsTarget != "" {
		d.App.SetInterests(interestsclient.New(srv.Client(), interestsTarget, 3*time.Second))
	} else {
		log.WarnContext(ctx, "INTERESTS_TARGET unset: listings carry no marks and the listing flags answer 503")
	}
	if quota.target != "" {
		q := quotaclient.New(srv.Client(), quota.target, quota.timeout)
		x.Quota, x.Plans = q, q
	}
	store := postgres.NewCriteriaStore(pool)
	x.Cooldowns, x.Criteria = store, store
	d.App.Configure(x)
	if demoN > 0 {
		if err := SeedDemo(ctx, d, demoN, log); err != nil {
			srv.Close()
			return nil, err
		}
	}
	// The saved searches are loaded at start and again within a second of
	// any change, here: a write then rarely waits for a reload (~0.4 s at
	// 100,000 searches), and a user's refresh of a project never should.
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
	if se.NATSURL != "" {
		js, err := srv.ConnectEvents(ctx, se.NATSURL, pool, runner.Events{
			Name: "projects", Forget: d.App.ForgetUser,
		})
		if err != nil {
			srv.Close()
			return nil, err
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
	} else {
		log.WarnContext(ctx, "NATS_URL unset: events wait in the outbox until a relay with NATS runs")
	}
	if len(agencies) > 0 {
		client := egprss.NewClient(rssBase)
		p := &egprss.Poller{
			Client: client, Agencies: agencies, Pace: 1500 * time.Millisecond, Interval: interval,
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
	// Ingestion is for the operators named in ADMIN_EMAILS (e-mails or "@domain").
	handlerOpts, err := srv.HandlerOptions(projectsv1connect.ProjectsServiceName)
	if err != nil {
		srv.Close()
		return nil, err
	}
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
	h := ports.NewHandler(d.App, newIngestSources(rssBase, hosts), func(p domain.Project) any { return ocds.FromProject(p, "") })
	h.SetOvernight(overnight)
	srv.Mount(projectsv1connect.NewProjectsServiceHandler(h, handlerOpts...))
	return srv, nil
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

// quotaConfig is where the subscription service answers (SUBSCRIPTION_TARGET;
// empty: no quota client).
type quotaConfig struct {
	target  string
	timeout time.Duration
}

// extras reads the configuration of scrape, update-project-smart and saved
// criteria (the stores and the quota client are added once the server and
// the pool are open).
func extras(env *config.Loader) (app.Extras, quotaConfig) {
	x := app.Extras{
		Source:      egpsource.New(env.String("EGP_PROJECT_URL", "")),
		Concurrency: env.IntIn("EGP_PROJECT_CONCURRENCY", 0, 1, 32), // 0: the app's default
		Pace:        env.Duration("EGP_PROJECT_PACE", 250*time.Millisecond),
		Cooldown:    env.PositiveDuration("PROJECT_REFRESH_COOLDOWN", 0), // 0: the app's default
	}
	timeout := env.PositiveDuration("SUBSCRIPTION_TIMEOUT", 5*time.Second)
	return x, quotaConfig{target: env.String("SUBSCRIPTION_TARGET", ""), timeout: timeout}
}

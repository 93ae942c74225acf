// Package projectssvc assembles the projects service (projects, ingestion,
// Thai search) for its binary and for the in-process launcher.
package projectssvc

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/runner"
	"bidradar/services/projects/internal/adapters/eventproto"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
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

// Build assembles the service: configuration (settings lists the
// environment), then the database and the server, then the rest (wire).
func Build(ctx context.Context, getenv runner.Getenv, log *slog.Logger) (runner.Component, error) {
	s, err := readSettings(getenv)
	if err != nil {
		return nil, err
	}
	srv, pool, err := runner.StartService(ctx, log, s.service, Open)
	if err != nil {
		return nil, err
	}
	if err := wire(ctx, srv, pool, s, log); err != nil {
		srv.Close()
		return nil, err
	}
	return srv, nil
}

package benchkit

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/events"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/internal/ports"
	"bidradar/services/projects/projectssvc"
)

// What bench/alerts needs: saved searches in bulk, an import through the
// ingestion use case, the instant alerts' event handler and the overnight run.

// SearchForm is a saved search's form (SPEC §3 fields).
type SearchForm = domain.SearchForm

// Money is an amount in satang.
type Money = domain.Money

// Project is a project as ingestion reads it.
type Project = domain.Project

// Search types.
const (
	SearchNormal    = domain.SearchNormal
	SearchOvernight = domain.SearchOvernight
)

// SaveCriteria inserts saved searches of searchType (form i owned by
// users[i] and named names[i]) with COPY, then bumps the criteria version
// once, as the trigger of an ordinary insert does.
func SaveCriteria(ctx context.Context, pool *pgxpool.Pool, forms []SearchForm, users, names []string, searchType string, at time.Time) error {
	rows := make([][]any, len(forms))
	for i, f := range forms {
		raw, err := json.Marshal(f)
		if err != nil {
			return err
		}
		rows[i] = []any{users[i], names[i], searchType, string(raw), at}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"search_criteria"},
		[]string{"user_id", "name", "search_type", "criteria", "created_at"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	_, err := pool.Exec(ctx, "UPDATE criteria_version SET v = v + 1")
	return err
}

// MatchInMemory builds the instant alerts' index of forms and matches every
// project against it (the matching alone, no database); it returns the
// matches per project and how long building and matching took.
func MatchInMemory(forms []SearchForm, ps []Project) (matches []int, build, match time.Duration) {
	saved := make([]domain.SavedCriteria, len(forms))
	for i, f := range forms {
		saved[i] = domain.SavedCriteria{ID: itoa(i), SearchType: domain.SearchNormal, Form: f}
	}
	start := time.Now()
	ix := domain.NewCriteriaIndex(saved)
	build = time.Since(start)
	start = time.Now()
	matches = make([]int, len(ps))
	for i := range ps {
		matches[i] = len(ix.Match(&ps[i]))
	}
	return matches, build, time.Since(start)
}

type sliceSource []domain.Project

func (s sliceSource) Name() string { return domain.SourceDemo }

func (s sliceSource) Each(ctx context.Context, fn func(domain.Project) error, _ func(domain.RecordError)) error {
	for _, p := range s {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// Ingest imports ps through the ingestion use case (the path of `projects
// ingest`: batches, upsert workers, one project.created event per new
// project in the outbox).
func Ingest(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, ps []Project) (created int, err error) {
	d, err := projectssvc.NewDeps(pool, log, postgres.Options{})
	if err != nil {
		return 0, err
	}
	run, err := d.App.Ingest(ctx, sliceSource(ps), "bench", nil)
	return run.Stats.Created, err
}

// AlertSubjects are the subjects the instant alerts consume.
var AlertSubjects = ports.AlertSubjects

// AlertBatching is how the instant alerts batch project events.
var AlertBatching = ports.AlertBatching

// AlertHandler is the projects service's instant-alerts consumer
// (app.NewAlerts behind ports.AlertEvents) on pool, its searches loaded as
// the service loads them when it starts.
func AlertHandler(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (events.BatchHandler, error) {
	d, err := projectssvc.NewDeps(pool, log, postgres.Options{})
	if err != nil {
		return nil, err
	}
	a := app.NewAlerts(d.Repo, postgres.NewCriteriaStore(pool), d.Repo, nil)
	if err := a.Warm(ctx); err != nil {
		return nil, err
	}
	return ports.AlertEvents(a), nil
}

// OvernightStats sums up an overnight run.
type OvernightStats = domain.OvernightStats

// RunOvernight runs today's overnight searches now (app.Overnight.RunNow,
// what `projects overnight-run` and the admin call do).
func RunOvernight(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (OvernightStats, error) {
	d, err := projectssvc.NewDeps(pool, log, postgres.Options{})
	if err != nil {
		return OvernightStats{}, err
	}
	return app.NewOvernight(d.Repo, log, nil).RunNow(ctx)
}

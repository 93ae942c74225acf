package benchkit

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
	"bidradar/services/projects/internal/domain"
	"bidradar/services/projects/projectssvc"
)

// What bench/alerts needs: saved searches in bulk, an import through the
// ingestion use case, with or without the instant alerts, and the overnight run.

// SearchForm is a saved search's form (docs/product.md#search-criteria).
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

// IngestStats counts what an import did (Alerted: new matches told).
type IngestStats = domain.UpsertStats

// Importer returns the ingestion use case on pool (the path of `projects
// ingest`: batches, upsert workers, one project.created event per new
// project in the outbox). With alerts, each write also matches its
// projects against the saved searches, loaded first as the service loads
// them when it starts; without, the import alone.
func Importer(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, alerts bool) (func(context.Context, []Project) (IngestStats, error), error) {
	d, err := projectssvc.NewDeps(pool, log, postgres.Options{})
	if err != nil {
		return nil, err
	}
	if !alerts {
		d.Repo.SetInstantAlerts(nil)
	} else if err := d.Alerts.Warm(ctx); err != nil {
		return nil, err
	}
	return func(ctx context.Context, ps []Project) (IngestStats, error) {
		run, err := d.App.Ingest(ctx, sliceSource(ps), "bench", nil)
		return run.Stats, err
	}, nil
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

// SearchOwners answers GetSearchOwners from pool as the service does: the
// owner and name of each saved search among keys that exists, and the
// version of the saved searches read.
func SearchOwners(ctx context.Context, pool *pgxpool.Pool, keys [][16]byte) (ids [][16]byte, users, names []string, version int64, err error) {
	ks := make([]domain.SearchKey, len(keys))
	for i, k := range keys {
		ks[i] = domain.SearchKey(k)
	}
	cs, ver, err := postgres.NewCriteriaStore(pool).SearchOwners(ctx, ks)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	for _, c := range cs {
		ids, users, names = append(ids, c.Key), append(users, c.UserID), append(names, c.Name)
	}
	return ids, users, names, ver, nil
}

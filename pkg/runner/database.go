package runner

import (
	"context"
	"errors"
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/events"
	"bidradar/pkg/outbox"
	"bidradar/pkg/pgdb"
	"bidradar/pkg/queue"
)

// OpenDatabase connects to url for a service that owns schema and publishes
// through an outbox: it creates the database when missing, then applies the
// outbox's migrations, creates the processed-events table its idempotent
// event consumers record in (events.MarkProcessed) and the job queue's
// table (pkg/queue: mail, deliveries, retried calls), and applies the
// schema's migrations, which may move older rows into the queue.
func OpenDatabase(ctx context.Context, url, schema string, migrations fs.FS) (*pgxpool.Pool, error) {
	return openDatabase(ctx, url, schema, func(pool *pgxpool.Pool) error {
		return pgdb.Migrate(ctx, pool, schema, migrations)
	})
}

// OpenDatabaseAt is OpenDatabase with the schema's migrations applied up to
// version only: tests of an upgrade from an older schema holding data.
func OpenDatabaseAt(ctx context.Context, url, schema string, migrations fs.FS, version int64) (*pgxpool.Pool, error) {
	return openDatabase(ctx, url, schema, func(pool *pgxpool.Pool) error {
		return pgdb.MigrateUpTo(ctx, pool, schema, migrations, version)
	})
}

func openDatabase(ctx context.Context, url, schema string, migrate func(*pgxpool.Pool) error) (*pgxpool.Pool, error) {
	if url == "" {
		return nil, errors.New(schema + ": DATABASE_URL is required")
	}
	if err := pgdb.EnsureDatabase(ctx, url); err != nil {
		return nil, err
	}
	pool, err := pgdb.Open(ctx, url, schema)
	if err != nil {
		return nil, err
	}
	for _, step := range []func(*pgxpool.Pool) error{
		func(p *pgxpool.Pool) error { return outbox.Migrate(ctx, p) },
		func(p *pgxpool.Pool) error { return events.EnsureProcessedTable(ctx, p) },
		func(p *pgxpool.Pool) error { return queue.Migrate(ctx, p) },
		migrate,
	} {
		if err := step(pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}

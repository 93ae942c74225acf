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
	if err := outbox.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	if err := events.EnsureProcessedTable(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	if err := queue.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	if err := pgdb.Migrate(ctx, pool, schema, migrations); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

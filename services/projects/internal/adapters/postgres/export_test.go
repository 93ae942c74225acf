package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/projects/internal/domain"
)

// ColumnNames exposes the column order of CopyProjects to the tests.
var ColumnNames = columnNames

// RetryOnDeadlock exposes the deadlock retry to the tests.
var RetryOnDeadlock = retryOnDeadlock

// RecordMatches records matches found by the tests in a transaction of its
// own, as a write of projects does in its own (recordMatches), and writes
// their events to the outbox.
func (r *Repo) RecordMatches(ctx context.Context, ms []domain.ProjectMatches, asOf int64, now time.Time) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		evs, told, err := recordMatches(ctx, tx, ms, asOf, now)
		if err != nil {
			return err
		}
		n = told
		return r.enqueue(ctx, tx, evs)
	})
	return n, err
}

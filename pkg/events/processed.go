package events

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EnsureProcessedTable creates processed_events(consumer, event_id,
// processed_at) in the current schema of pool (its search_path) if missing.
func EnsureProcessedTable(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS processed_events (
		consumer text NOT NULL,
		event_id text NOT NULL,
		processed_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (consumer, event_id))`)
	if err != nil && !createdConcurrently(err) {
		return fmt.Errorf("events: create processed_events: %w", err)
	}
	return nil
}

// createdConcurrently: concurrent IF NOT EXISTS creators can collide on the
// catalog (a unique violation, or "already exists"); the table is there.
func createdConcurrently(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "42P07")
}

// MarkProcessed records, inside tx, that consumer handled eventID. It
// returns first = true the first time and false when the event was already
// recorded (a redelivery): the caller then skips its side effects. Do the
// side effects in the same tx so that both commit or neither.
func MarkProcessed(ctx context.Context, tx pgx.Tx, consumer, eventID string) (first bool, err error) {
	tag, err := tx.Exec(ctx,
		`INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		consumer, eventID)
	if err != nil {
		return false, fmt.Errorf("events: mark processed: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

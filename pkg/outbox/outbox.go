// Package outbox implements the transactional outbox: use cases write their
// events to an outbox table in the same transaction as their changes
// (Enqueue), and a Relay publishes committed rows to NATS JetStream in
// sequence order, with Nats-Msg-Id = event id, and marks them published.
//
// Guarantees: a rolled-back transaction publishes nothing; every committed
// row is published at least once (rows are selected by published_at IS NULL,
// not by a sequence cursor, so rows committed out of sequence order are never
// skipped); a crash between publishing and marking only republishes rows,
// which JetStream drops by Nats-Msg-Id within its duplicate window.
package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"bidradar/pkg/events"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"
)

// Channel returns the LISTEN/NOTIFY channel of the outbox in schema.
func Channel(schema string) string { return schema + "_outbox" }

const migrationSQL = `
CREATE TABLE IF NOT EXISTS outbox (
	seq          bigserial PRIMARY KEY,
	event_id     text NOT NULL UNIQUE,
	subject      text NOT NULL,
	payload      bytea NOT NULL,
	headers      jsonb NOT NULL DEFAULT '{}',
	created_at   timestamptz NOT NULL DEFAULT now(),
	published_at timestamptz
);
CREATE INDEX IF NOT EXISTS outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL;
CREATE INDEX IF NOT EXISTS outbox_published_at_idx ON outbox (published_at) WHERE published_at IS NOT NULL;
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify(TG_TABLE_SCHEMA || '_outbox', '');
	RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER outbox_notify AFTER INSERT ON outbox
	FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
`

// Migrate creates the outbox table, its indexes and its insert trigger (which
// does pg_notify('<schema>_outbox', ”)) in the current schema of pool. It is
// idempotent and safe to run from several replicas at once.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		schema, err := currentSchema(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "outbox:"+schema); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, migrationSQL)
		return err
	})
	if err != nil {
		return fmt.Errorf("outbox: migrate: %w", err)
	}
	return nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func currentSchema(ctx context.Context, q querier) (string, error) {
	var schema *string
	if err := q.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", err
	}
	if schema == nil {
		return "", errors.New("outbox: no current schema (search_path names no existing schema)")
	}
	return *schema, nil
}

// Enqueue adds an event to the outbox inside tx; it is published only if tx
// commits. eventID must be unique (it becomes the Nats-Msg-Id); the trace
// context of ctx (traceparent) is stored with the row and sent as NATS
// headers, so consumers continue the trace of the request.
func Enqueue(ctx context.Context, tx pgx.Tx, subject, eventID string, payload []byte) error {
	if subject == "" || eventID == "" {
		return errors.New("outbox: subject and event id are required")
	}
	if payload == nil {
		payload = []byte{}
	}
	carrier := propagation.MapCarrier{}
	events.Propagator.Inject(ctx, carrier)
	headers, err := json.Marshal(map[string]string(carrier))
	if err != nil {
		return fmt.Errorf("outbox: encode headers: %w", err)
	}
	_, err = tx.Exec(ctx,
		`INSERT INTO outbox (event_id, subject, payload, headers) VALUES ($1, $2, $3, $4)`,
		eventID, subject, payload, headers)
	if err != nil {
		return fmt.Errorf("outbox: enqueue %s: %w", subject, err)
	}
	return nil
}

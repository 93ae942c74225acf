// Package outbox implements the transactional outbox: use cases write their
// events to an outbox table in the same transaction as their changes
// (EnqueueEvent, EnqueueBatch: each on the subject its proto declares), and
// a Relay publishes committed rows to NATS JetStream in sequence order, with
// Nats-Msg-Id = event id, and marks them published.
//
// Guarantees: a rolled-back transaction publishes nothing; every committed
// row is published at least once (rows are selected by published_at IS NULL,
// not by a sequence cursor, so rows committed out of sequence order are never
// skipped); a crash between publishing and marking only republishes rows,
// which JetStream drops by Nats-Msg-Id within its duplicate window.
package outbox

import (
	"context"
	"encoding/binary"
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
-- Batch rows carry many events in payload (EnqueueBatch). Payloads are
-- stored out of line uncompressed: pglz on a batch row's ~300 kB of
-- protobuf was ~6 % of the database's CPU in a bulk import, for rows the
-- relay reads once and prunes after days. Only when missing: ALTER TABLE
-- locks the table even when there is nothing to do.
DO $outbox$ BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'outbox'::regclass AND attname = 'batch' AND NOT attisdropped) THEN
		ALTER TABLE outbox ADD COLUMN batch boolean NOT NULL DEFAULT false;
		ALTER TABLE outbox ALTER COLUMN payload SET STORAGE EXTERNAL;
	END IF;
END $outbox$;
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

// enqueue adds an event to the outbox inside tx; it is published only if tx
// commits. eventID must be unique (it becomes the Nats-Msg-Id); the trace
// context of ctx (traceparent) is stored with the row and sent as NATS
// headers, so consumers continue the trace of the request.
func enqueue(ctx context.Context, tx pgx.Tx, subject, eventID string, payload []byte) error {
	if subject == "" || eventID == "" {
		return errors.New("outbox: subject and event id are required")
	}
	if payload == nil {
		payload = []byte{}
	}
	headers, err := traceHeaders(ctx)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx,
		`INSERT INTO outbox (event_id, subject, payload, headers) VALUES ($1, $2, $3, $4)`,
		eventID, subject, payload, headers)
	if err != nil {
		return fmt.Errorf("outbox: enqueue %s: %w", subject, err)
	}
	return nil
}

func traceHeaders(ctx context.Context) ([]byte, error) {
	carrier := propagation.MapCarrier{}
	events.Propagator.Inject(ctx, carrier)
	headers, err := json.Marshal(map[string]string(carrier))
	if err != nil {
		return nil, fmt.Errorf("outbox: encode headers: %w", err)
	}
	return headers, nil
}

// Event is one message as the outbox stores it (Stored).
type Event struct {
	ID      string // unique; the Nats-Msg-Id
	Subject string
	Payload []byte
}

// enqueueBatch writes evs as one row (EnqueueBatch).
func enqueueBatch(ctx context.Context, tx pgx.Tx, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	if len(evs) == 1 {
		return enqueue(ctx, tx, evs[0].Subject, evs[0].ID, evs[0].Payload)
	}
	size := 0
	for _, e := range evs {
		if e.Subject == "" || e.ID == "" {
			return errors.New("outbox: subject and event id are required")
		}
		size += len(e.ID) + len(e.Subject) + len(e.Payload) + 3*binary.MaxVarintLen32
	}
	payload := make([]byte, 0, size)
	for _, e := range evs {
		for _, f := range [][]byte{[]byte(e.ID), []byte(e.Subject), e.Payload} {
			payload = binary.AppendUvarint(payload, uint64(len(f)))
			payload = append(payload, f...)
		}
	}
	headers, err := traceHeaders(ctx)
	if err != nil {
		return err
	}
	// "batch:" + the first event's id: unique, and never an event id.
	_, err = tx.Exec(ctx,
		`INSERT INTO outbox (event_id, subject, payload, headers, batch) VALUES ($1, $2, $3, $4, true)`,
		"batch:"+evs[0].ID, evs[0].Subject, payload, headers)
	if err != nil {
		return fmt.Errorf("outbox: enqueue batch of %d: %w", len(evs), err)
	}
	return nil
}

// decodeBatch reverses EnqueueBatch's payload.
func decodeBatch(p []byte) ([]Event, error) {
	var out []Event
	for len(p) > 0 {
		var f [3][]byte
		for i := range f {
			n, k := binary.Uvarint(p)
			if k <= 0 || uint64(len(p)-k) < n {
				return nil, errors.New("outbox: damaged batch payload")
			}
			f[i], p = p[k:k+int(n)], p[k+int(n):]
		}
		out = append(out, Event{ID: string(f[0]), Subject: string(f[1]), Payload: f[2]})
	}
	return out, nil
}

// Stored returns every event in the outbox of q's current schema, published
// or not, in the order the relay publishes them (batch rows expanded). For
// tests and operators; it reads the whole table.
func Stored(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}) ([]Event, error) {
	rows, err := q.Query(ctx, `SELECT event_id, subject, payload, batch FROM outbox ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("outbox: read: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var batch bool
		if err := rows.Scan(&e.ID, &e.Subject, &e.Payload, &batch); err != nil {
			return nil, fmt.Errorf("outbox: read: %w", err)
		}
		if !batch {
			out = append(out, e)
			continue
		}
		evs, err := decodeBatch(e.Payload)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, rows.Err()
}

// Package queue is the one engine for work a service does after a
// transaction commits and retries until it succeeds: e-mail, LINE pushes,
// webhooks, calls to a payment provider, plan changes due at a date.
//
// A job is a row of queue_jobs in the service's schema (Migrate creates the
// table in every schema, like the outbox), written in the transaction that
// decided it (Enqueue, Put). A Worker runs on every replica: it claims due
// rows with FOR UPDATE SKIP LOCKED and leases them (next_attempt_at moves
// past the attempt), runs the handler of the row's kind with no connection
// held, and records the outcome: done, retried after the kind's back-off,
// or given up after MaxAttempts. A payload (it may hold a one-time code or
// a receipt) is erased once its job is done or given up. A worker that dies
// mid-attempt leaves a lease that runs out; the row is then claimed again.
//
// Jobs run concurrently, at most PerDestination at once per destination
// (the SMTP server, the LINE API, one webhook host), so a slow receiver
// fills its own slots and delays nobody else's jobs. Every insert wakes the
// workers (a trigger NOTIFYs), so a fresh job starts within milliseconds.
package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Table is the jobs table in every service schema.
const Table = "queue_jobs"

// Channel returns the NOTIFY channel of the jobs table in schema.
func Channel(schema string) string { return schema + "_queue" }

// The one shape of every queue: a service's own record of what a job is
// for (a delivery, a plan) stays in its own tables and names the job by
// kind and key. destination groups jobs that share a receiver, for the
// per-destination limit. next_attempt_at is when the job is due, and while
// an attempt runs, the end of its lease.
const migrationSQL = `
CREATE TABLE IF NOT EXISTS queue_jobs (
	id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	kind            text NOT NULL,
	key             text,
	destination     text NOT NULL DEFAULT '',
	payload         jsonb,
	attempts        integer NOT NULL DEFAULT 0,
	next_attempt_at timestamptz NOT NULL DEFAULT now(),
	created_at      timestamptz NOT NULL DEFAULT now(),
	done_at         timestamptz,
	failed_at       timestamptz,
	last_error      text,
	CONSTRAINT queue_jobs_kind_key UNIQUE (kind, key)
);
CREATE INDEX IF NOT EXISTS queue_jobs_due ON queue_jobs (next_attempt_at) WHERE done_at IS NULL AND failed_at IS NULL;
CREATE INDEX IF NOT EXISTS queue_jobs_finished ON queue_jobs (kind, (coalesce(done_at, failed_at)))
	WHERE done_at IS NOT NULL OR failed_at IS NOT NULL;
CREATE OR REPLACE FUNCTION queue_jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify(TG_TABLE_SCHEMA || '_queue', '');
	RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER queue_jobs_notify AFTER INSERT ON queue_jobs
	FOR EACH STATEMENT EXECUTE FUNCTION queue_jobs_notify();
`

// Migrate creates the jobs table, its indexes and its wake-up trigger in
// the current schema of pool. It is idempotent and safe from several
// replicas at once; run it before the service's own migrations, which may
// move older queues' rows into it.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		schema, err := currentSchema(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "queue:"+schema); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, migrationSQL)
		return err
	})
	if err != nil {
		return fmt.Errorf("queue: migrate: %w", err)
	}
	return nil
}

func currentSchema(ctx context.Context, q Querier) (string, error) {
	var schema *string
	if err := q.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", err
	}
	if schema == nil {
		return "", errors.New("queue: no current schema (search_path names no existing schema)")
	}
	return *schema, nil
}

// Execer is a pool or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Querier is a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Job is a job to write.
type Job struct {
	Kind string
	// Key names the job among its kind (a delivery id, a subscription id);
	// empty for none. A kind has one job per key: Enqueue leaves an
	// existing one alone, Put replaces it.
	Key string
	// Destination is the receiver the job talks to ("mail", "line",
	// "webhook:host"): the jobs of one destination run at most
	// PerDestination at once.
	Destination string
	// Payload is stored as JSON (nil: none) and erased once the job is
	// done or given up.
	Payload any
	// Due is when the job may run first; zero is now (the database's clock).
	Due time.Time
}

// Enqueue writes jobs in db (the caller's transaction, so they exist only
// if it commits). A job whose kind and key exist already is left out.
func Enqueue(ctx context.Context, db Execer, jobs ...Job) error {
	return write(ctx, db, jobs, `ON CONFLICT (kind, key) DO NOTHING`)
}

// Put writes jobs replacing those of the same kind and key, whatever their
// state: each is pending again, due at its Due, with no attempts. An
// attempt running meanwhile loses its claim (its outcome is not recorded).
func Put(ctx context.Context, db Execer, jobs ...Job) error {
	for _, j := range jobs {
		if j.Key == "" {
			return fmt.Errorf("queue: put %s: a job replaced needs a key", j.Kind)
		}
	}
	return write(ctx, db, jobs, `ON CONFLICT (kind, key) DO UPDATE SET destination = excluded.destination,
		payload = excluded.payload, attempts = 0, next_attempt_at = excluded.next_attempt_at, done_at = NULL,
		failed_at = NULL, last_error = NULL`)
}

func write(ctx context.Context, db Execer, jobs []Job, conflict string) error {
	if len(jobs) == 0 {
		return nil
	}
	kinds, dests := make([]string, len(jobs)), make([]string, len(jobs))
	keys, payloads := make([]*string, len(jobs)), make([]*string, len(jobs))
	due := make([]*time.Time, len(jobs))
	for i, j := range jobs {
		if j.Kind == "" {
			return errors.New("queue: a job without a kind")
		}
		kinds[i], dests[i] = j.Kind, j.Destination
		if j.Key != "" {
			keys[i] = &j.Key
		}
		if j.Payload != nil {
			b, err := json.Marshal(j.Payload)
			if err != nil {
				return fmt.Errorf("queue: payload of %s: %w", j.Kind, err)
			}
			s := string(b)
			payloads[i] = &s
		}
		if !j.Due.IsZero() {
			due[i] = &j.Due
		}
	}
	_, err := db.Exec(ctx, `INSERT INTO queue_jobs (kind, key, destination, payload, next_attempt_at, created_at)
		SELECT j.kind, j.key, j.dest, j.payload::jsonb, coalesce(j.due, now()), now()
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS j (kind, key, dest, payload, due, i)
		ORDER BY j.i `+conflict, kinds, keys, dests, payloads, due)
	if err != nil {
		return fmt.Errorf("queue: write jobs: %w", err)
	}
	return nil
}

// Cancel gives up the pending jobs of kind with these keys (the thing they
// were for is gone), erasing their payloads and recording reason.
func Cancel(ctx context.Context, db Execer, kind string, keys []string, reason string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := db.Exec(ctx, `UPDATE queue_jobs SET failed_at = now(), last_error = $3, payload = NULL
		WHERE kind = $1 AND key = ANY($2) AND done_at IS NULL AND failed_at IS NULL`, kind, keys, reason)
	if err != nil {
		return fmt.Errorf("queue: cancel %s: %w", kind, err)
	}
	return nil
}

// Delete removes the jobs of kind with these keys, whatever their state
// (the data of a deleted account).
func Delete(ctx context.Context, db Execer, kind string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	if _, err := db.Exec(ctx, `DELETE FROM queue_jobs WHERE kind = $1 AND key = ANY($2)`, kind, keys); err != nil {
		return fmt.Errorf("queue: delete %s: %w", kind, err)
	}
	return nil
}

// Redirect moves the pending jobs of kind with these keys to destination
// (the receiver they will reach has changed).
func Redirect(ctx context.Context, db Execer, kind string, keys []string, destination string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := db.Exec(ctx, `UPDATE queue_jobs SET destination = $3
		WHERE kind = $1 AND key = ANY($2) AND done_at IS NULL AND failed_at IS NULL`, kind, keys, destination)
	if err != nil {
		return fmt.Errorf("queue: redirect %s: %w", kind, err)
	}
	return nil
}

// Exists tells whether a job of kind and key exists, in any state.
func Exists(ctx context.Context, db Querier, kind, key string) (bool, error) {
	var ok bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM queue_jobs WHERE kind = $1 AND key = $2)`, kind, key).Scan(&ok); err != nil {
		return false, fmt.Errorf("queue: exists %s: %w", kind, err)
	}
	return ok, nil
}

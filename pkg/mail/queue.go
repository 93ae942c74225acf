package mail

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The mail outbox a service keeps in its own schema (its migration creates
// it; auth's 00003_mail_outbox.sql is the shape):
//
//	mail_outbox (id bigserial, recipient, subject, body_text, body_html,
//	             created_at, attempts, next_attempt_at, sent_at, failed_at, last_error)
//
// A message is queued in the transaction of what it tells, and sent later
// with retries by any replica; its body (it may hold a code or a receipt)
// is erased once it is sent or given up.

// Policy is how a queue retries.
type Policy struct {
	// MaxAttempts: after that many failed sends a message is given up.
	MaxAttempts int
	// Backoff is the wait after the attempts-th failed send (1, 2, …).
	Backoff func(attempts int) time.Duration
	// Lease is how long a claimed message is left to its worker before
	// another may try it (a worker that died mid-send).
	Lease time.Duration
	// Channel, when set, is NOTIFYed on every Enqueue (a worker LISTENs).
	Channel string
}

// Queue is a service's mail outbox.
type Queue struct {
	pool   *pgxpool.Pool
	policy Policy
}

// NewQueue returns the queue of the mail_outbox table on pool (its
// search_path is the service's schema).
func NewQueue(pool *pgxpool.Pool, p Policy) *Queue { return &Queue{pool: pool, policy: p} }

// Execer is a pool or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Enqueue queues m in the mail_outbox of db (the caller's transaction, or
// a pool), due at at (the database's clock when zero). A message without a
// recipient is dropped.
func Enqueue(ctx context.Context, db Execer, m Message, at time.Time) error {
	return enqueue(ctx, db, m, at, "")
}

// Enqueue is the package Enqueue, due now, that also wakes a worker
// listening on the queue's Channel when db commits.
func (q *Queue) Enqueue(ctx context.Context, db Execer, m Message) error {
	return enqueue(ctx, db, m, time.Time{}, q.policy.Channel)
}

func enqueue(ctx context.Context, db Execer, m Message, at time.Time, channel string) error {
	if m.To == "" {
		return nil
	}
	var due any
	if !at.IsZero() {
		due = at
	}
	sql := `INSERT INTO mail_outbox (recipient, subject, body_text, body_html, created_at, next_attempt_at)
		VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()), coalesce($5::timestamptz, now()))`
	if channel != "" {
		sql = `WITH ins AS (` + sql + `) SELECT pg_notify('` + channel + `', '')`
	}
	if _, err := db.Exec(ctx, sql, m.To, m.Subject, m.Text, m.HTML, due); err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	return nil
}

// DeliverDue sends up to limit due messages with send and records each
// outcome; it returns how many it handled. No connection is held while a
// message is being sent: a message is claimed (leased) in one short
// statement and its outcome written in another, so a slow mail server
// never holds up the requests that share the pool.
func (q *Queue) DeliverDue(ctx context.Context, limit int, now time.Time, send func(context.Context, Message) error) (int, error) {
	rows, err := q.pool.Query(ctx, `UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = $3
		WHERE id IN (SELECT id FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
			ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING id, recipient, subject, coalesce(body_text, ''), coalesce(body_html, ''), attempts`,
		now, limit, now.Add(q.policy.Lease))
	if err != nil {
		return 0, fmt.Errorf("claim mail: %w", err)
	}
	type due struct {
		id       int64
		m        Message
		attempts int
	}
	batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
		var d due
		err := r.Scan(&d.id, &d.m.To, &d.m.Subject, &d.m.Text, &d.m.HTML, &d.attempts)
		return d, err
	})
	if err != nil {
		return 0, fmt.Errorf("claim mail: %w", err)
	}
	for _, d := range batch {
		var err error
		if sendErr := send(ctx, d.m); sendErr == nil {
			_, err = q.pool.Exec(ctx, `UPDATE mail_outbox SET sent_at = $2, last_error = NULL, body_text = NULL, body_html = NULL WHERE id = $1`, d.id, now)
		} else if d.attempts >= q.policy.MaxAttempts {
			_, err = q.pool.Exec(ctx, `UPDATE mail_outbox SET failed_at = $2, last_error = $3, body_text = NULL, body_html = NULL WHERE id = $1`,
				d.id, now, sendErr.Error())
		} else {
			_, err = q.pool.Exec(ctx, `UPDATE mail_outbox SET next_attempt_at = $2, last_error = $3 WHERE id = $1`,
				d.id, now.Add(q.policy.Backoff(d.attempts)), sendErr.Error())
		}
		if err != nil {
			return len(batch), fmt.Errorf("record mail outcome: %w", err)
		}
	}
	return len(batch), nil
}

// Listen returns a connection listening on the queue's Channel (release it
// when done).
func (q *Queue) Listen(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := q.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{q.policy.Channel}.Sanitize()); err != nil {
		conn.Release()
		return nil, err
	}
	return conn, nil
}

// WaitForMail blocks on conn (from Listen) until a message is queued or
// timeout passes.
func (q *Queue) WaitForMail(ctx context.Context, conn *pgxpool.Conn, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, _ = conn.Conn().WaitForNotification(ctx)
}

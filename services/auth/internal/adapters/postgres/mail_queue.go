package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/mail"
)

// MailChannel is the NOTIFY channel that wakes the mail worker.
const MailChannel = "auth_mail"

// MailMaxAttempts is how often a message is tried before it is given up.
const MailMaxAttempts = 8

// MailQueue is the auth service's e-mail outbox: Enqueue is one INSERT, so
// a request takes the same time whether or not it sends mail; DeliverDue
// sends what is due, from any replica (rows are claimed with SKIP LOCKED).
type MailQueue struct{ pool *pgxpool.Pool }

// NewMailQueue returns the queue on pool.
func NewMailQueue(pool *pgxpool.Pool) *MailQueue { return &MailQueue{pool: pool} }

// Enqueue queues m and wakes a worker.
func (q *MailQueue) Enqueue(ctx context.Context, m mail.Message) error {
	_, err := q.pool.Exec(ctx, `WITH ins AS (INSERT INTO mail_outbox (recipient, subject, body_text, body_html) VALUES ($1, $2, $3, $4))
		SELECT pg_notify('`+MailChannel+`', '')`, m.To, m.Subject, m.Text, m.HTML)
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	return nil
}

// mailBackoff is the wait after a failed attempt: 2 s, 4 s, … up to 10 min.
func mailBackoff(attempts int) time.Duration {
	d := 2 * time.Second << min(attempts, 9)
	return min(d, 10*time.Minute)
}

// mailLease is how long a claimed message is left to its worker before
// another may try it (a worker that died mid-send).
const mailLease = 2 * time.Minute

// DeliverDue sends up to limit due messages with send and records each
// outcome; it returns how many it handled. No connection is held while a
// message is being sent: a message is claimed (leased) in one short
// statement and its outcome written in another, so a slow mail server
// never holds up the requests that share the pool.
func (q *MailQueue) DeliverDue(ctx context.Context, limit int, now time.Time, send func(context.Context, mail.Message) error) (int, error) {
	rows, err := q.pool.Query(ctx, `UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = $3
		WHERE id IN (SELECT id FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
			ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING id, recipient, subject, coalesce(body_text, ''), coalesce(body_html, ''), attempts`,
		now, limit, now.Add(mailLease))
	if err != nil {
		return 0, fmt.Errorf("claim mail: %w", err)
	}
	type due struct {
		id       int64
		m        mail.Message
		attempts int
	}
	var batch []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.m.To, &d.m.Subject, &d.m.Text, &d.m.HTML, &d.attempts); err != nil {
			rows.Close()
			return 0, err
		}
		batch = append(batch, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, d := range batch {
		var err error
		if sendErr := send(ctx, d.m); sendErr == nil {
			_, err = q.pool.Exec(ctx, `UPDATE mail_outbox SET sent_at = $2, last_error = NULL, body_text = NULL, body_html = NULL WHERE id = $1`, d.id, now)
		} else if d.attempts >= MailMaxAttempts {
			_, err = q.pool.Exec(ctx, `UPDATE mail_outbox SET failed_at = $2, last_error = $3, body_text = NULL, body_html = NULL WHERE id = $1`,
				d.id, now, sendErr.Error())
		} else {
			_, err = q.pool.Exec(ctx, `UPDATE mail_outbox SET next_attempt_at = $2, last_error = $3 WHERE id = $1`,
				d.id, now.Add(mailBackoff(d.attempts-1)), sendErr.Error())
		}
		if err != nil {
			return len(batch), fmt.Errorf("record mail outcome: %w", err)
		}
	}
	return len(batch), nil
}

// WaitForMail blocks until a message is queued or timeout passes.
func (q *MailQueue) WaitForMail(ctx context.Context, conn *pgxpool.Conn, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, _ = conn.Conn().WaitForNotification(ctx)
}

// Listen returns a connection listening on MailChannel (release it when done).
func (q *MailQueue) Listen(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := q.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+MailChannel); err != nil {
		conn.Release()
		return nil, err
	}
	return conn, nil
}

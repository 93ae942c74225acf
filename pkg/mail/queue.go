package mail

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/queue"
)

// Mail waits in the service's job queue (pkg/queue, kind JobKind): a
// message is queued in the transaction of what it tells and sent later,
// with retries, by any replica; its body (it may hold a code or a receipt)
// is erased once it is sent or given up.
const (
	JobKind = "mail"
	// Destination is the SMTP server every message goes through: mail
	// takes at most the queue's per-destination slots at once.
	Destination = "mail"
	// Retain is how long a sent or given-up message's row (no body left,
	// its error kept for the operator) stays before the worker deletes it:
	// mail is keyed by nothing, so nothing is deduplicated on it.
	Retain = 30 * 24 * time.Hour
)

// message is a queued Message as the job's payload stores it.
type message struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Text    string `json:"text,omitempty"`
	HTML    string `json:"html,omitempty"`
}

// Policy is how a service retries its mail.
type Policy struct {
	// MaxAttempts: after that many failed sends a message is given up.
	MaxAttempts int
	// Backoff is the wait after the attempts-th failed send (1, 2, …).
	Backoff func(attempts int) time.Duration
	// Lease is how long a claimed message is left to its sender before
	// another may try it (a worker that died mid-send); a send gets half.
	Lease time.Duration
}

// Kind is the queue kind that sends the service's mail with s.
func Kind(p Policy, s Sender) queue.Kind {
	return queue.Kind{
		Name: JobKind, MaxAttempts: p.MaxAttempts, Backoff: p.Backoff, Timeout: p.Lease / 2, Retain: Retain,
		Handle: func(ctx context.Context, a queue.Attempt) error {
			var m message
			if err := a.Decode(&m); err != nil {
				return err
			}
			msg := Message(m)
			if err := validate(msg); err != nil {
				return queue.Permanent(err) // no retry mends an address
			}
			return s.Send(ctx, msg)
		},
	}
}

// SenderFunc is a Sender.
type SenderFunc func(ctx context.Context, m Message) error

// Send implements Sender.
func (f SenderFunc) Send(ctx context.Context, m Message) error { return f(ctx, m) }

// Execer is a pool or a transaction.
type Execer = queue.Execer

// Enqueue queues m in db (the caller's transaction, or a pool), due at at
// (the database's clock when zero). A message without a recipient is
// dropped.
func Enqueue(ctx context.Context, db Execer, m Message, at time.Time) error {
	if m.To == "" {
		return nil
	}
	err := queue.Enqueue(ctx, db, queue.Job{Kind: JobKind, Destination: Destination, Due: at,
		Payload: message(m)})
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	return nil
}

// DropPending deletes the messages to any of recipients not sent yet (an
// account deleted: nothing more goes to its addresses).
func DropPending(ctx context.Context, db Execer, recipients []string) error {
	if len(recipients) == 0 {
		return nil
	}
	_, err := db.Exec(ctx, `DELETE FROM queue_jobs WHERE kind = $1 AND done_at IS NULL AND failed_at IS NULL
		AND payload->>'to' = ANY($2)`, JobKind, recipients)
	if err != nil {
		return fmt.Errorf("drop pending mail: %w", err)
	}
	return nil
}

// Redirect sends the messages to any of from not sent yet to to instead
// (the account's address changed).
func Redirect(ctx context.Context, db Execer, from []string, to string) error {
	if len(from) == 0 {
		return nil
	}
	_, err := db.Exec(ctx, `UPDATE queue_jobs SET payload = jsonb_set(payload, '{to}', to_jsonb($3::text))
		WHERE kind = $1 AND done_at IS NULL AND failed_at IS NULL AND payload->>'to' = ANY($2)`, JobKind, from, to)
	if err != nil {
		return fmt.Errorf("redirect pending mail: %w", err)
	}
	return nil
}

// Queue is a service's mail in its job queue with its retry policy: Kind is
// its handler for the service's queue.Worker.
type Queue struct {
	pool   *pgxpool.Pool
	policy Policy
}

// NewQueue returns the mail of the job queue on pool (its search_path is
// the service's schema).
func NewQueue(pool *pgxpool.Pool, p Policy) *Queue { return &Queue{pool: pool, policy: p} }

// Enqueue is the package Enqueue, due now. The insert wakes the workers.
func (q *Queue) Enqueue(ctx context.Context, db Execer, m Message) error {
	return Enqueue(ctx, db, m, time.Time{})
}

// Kind is the queue kind sending this queue's mail with s.
func (q *Queue) Kind(s Sender) queue.Kind { return Kind(q.policy, s) }

// DeliverDue sends up to limit due messages with send (at once) and records
// each outcome as of now; it returns how many it handled. No connection is
// held while a message is being sent.
//
// Deprecated: a service runs a queue.Worker with Kind; kept while auth's
// wiring moves onto the runner.
func (q *Queue) DeliverDue(ctx context.Context, limit int, now time.Time, send func(context.Context, Message) error) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	lease := q.policy.Lease
	if lease <= 0 {
		lease = 2 * time.Minute
	}
	w, err := queue.New(q.pool, queue.Options{
		Concurrency: limit, PerDestination: limit, Lease: lease, Now: func() time.Time { return now },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), // the caller sees the failures through send
	}, q.Kind(SenderFunc(send)))
	if err != nil {
		return 0, err
	}
	st, err := w.RunOnce(ctx, limit)
	return st.Claimed, err
}

// Listen returns a connection listening for new jobs of the queue's schema
// (release it when done).
//
// Deprecated: queue.Worker listens itself; kept while auth's wiring moves
// onto the runner.
func (q *Queue) Listen(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := q.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		conn.Release()
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{queue.Channel(schema)}.Sanitize()); err != nil {
		conn.Release()
		return nil, err
	}
	return conn, nil
}

// WaitForMail blocks on conn (from Listen) until a job is queued or
// timeout passes.
//
// Deprecated: queue.Worker listens itself; kept while auth's wiring moves
// onto the runner.
func (q *Queue) WaitForMail(ctx context.Context, conn *pgxpool.Conn, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, _ = conn.Conn().WaitForNotification(ctx)
}

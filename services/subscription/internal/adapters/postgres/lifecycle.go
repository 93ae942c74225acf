package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/types/known/timestamppb"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/subscription/internal/domain"
)

// UpdatePlan changes a user's plan under its row lock: change sees the
// stored plan (found = false when none) and returns the plan to write, or an
// error that rolls back. A change of tier or status is published.
func (r *Repo) UpdatePlan(ctx context.Context, userID string, now time.Time, change func(domain.Subscription, bool) (domain.Subscription, error)) (domain.Subscription, error) {
	var out domain.Subscription
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		cur, err := scanSubscription(tx.QueryRow(ctx, `SELECT `+subColumns+` FROM subscriptions WHERE user_id = $1 FOR UPDATE`, userID))
		found := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if out, err = change(cur, found); err != nil {
			return err
		}
		if err := writeSubscription(ctx, tx, out, now); err != nil {
			return err
		}
		if found && cur.Tier == out.Tier && cur.Status == out.Status {
			return nil
		}
		return changed(ctx, tx, out, now)
	})
	return out, err
}

func changed(ctx context.Context, tx pgx.Tx, s domain.Subscription, now time.Time) error {
	return outbox.EnqueueEvent(ctx, tx, SubjectSubscriptionChanged, &subscriptionv1.SubscriptionChanged{
		EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: s.UserID, Tier: s.Tier, Status: s.Status})
}

// RollDue moves plans past their end date (Bangkok day before today) on:
// roll decides (the downgrade waiting after it, or expired). Rows are
// claimed with FOR UPDATE SKIP LOCKED and re-checked under the lock, so
// replicas running this at once each move a plan at most once, and each
// move publishes one subscription.changed. It returns how many moved.
func (r *Repo) RollDue(ctx context.Context, now time.Time, limit int, roll func(domain.Subscription) (domain.Subscription, bool)) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+subColumns+` FROM subscriptions
			WHERE status = 'active' AND end_date < $1 ORDER BY end_date LIMIT $2 FOR UPDATE SKIP LOCKED`, domain.DayOf(now), limit)
		if err != nil {
			return err
		}
		due, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Subscription, error) { return scanSubscription(row) })
		if err != nil {
			return fmt.Errorf("due plans: %w", err)
		}
		for _, s := range due {
			next, moved := roll(s)
			if !moved {
				continue
			}
			if err := writeSubscription(ctx, tx, next, now); err != nil {
				return err
			}
			if err := changed(ctx, tx, next, now); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// EndingBetween lists active plans with an address whose end date falls in
// [from, to] (reminder candidates).
func (r *Repo) EndingBetween(ctx context.Context, from, to time.Time) ([]domain.Subscription, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+subColumns+` FROM subscriptions
		WHERE status = 'active' AND email <> '' AND end_date BETWEEN $1 AND $2 ORDER BY end_date LIMIT 1000`, from, to)
	if err != nil {
		return nil, fmt.Errorf("ending plans: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Subscription, error) { return scanSubscription(row) })
}

// QueueReminder remembers a reminder and queues its mail in one
// transaction; false when this reminder was already sent (or another
// replica is sending it: the primary key waits for it, then conflicts).
func (r *Repo) QueueReminder(ctx context.Context, userID string, end time.Time, kind string, m domain.Mail, now time.Time) (bool, error) {
	queued := false
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO pass_reminders (user_id, end_date, kind, sent_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, userID, end, kind, now)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		queued = true
		return queueMail(ctx, tx, m, now)
	})
	return queued, err
}

func queueMail(ctx context.Context, tx pgx.Tx, m domain.Mail, now time.Time) error {
	if m.To == "" {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO mail_queue (id, recipient, subject, text_body, html_body, created_at, next_attempt_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, uuid.New(), m.To, m.Subject, m.Text, m.HTML, now)
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	return nil
}

// ClaimMail leases up to limit due mails for lease: other workers skip them
// until it runs out (a worker that dies leaves them to be retried).
func (r *Repo) ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]domain.QueuedMail, error) {
	rows, err := r.pool.Query(ctx, `UPDATE mail_queue SET next_attempt_at = $1::timestamptz + $2::interval, attempts = attempts + 1
		WHERE id IN (SELECT id FROM mail_queue WHERE sent_at IS NULL AND next_attempt_at <= $1 AND attempts < 10
			ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING id::text, attempts, recipient, subject, text_body, html_body`, now, lease, limit)
	if err != nil {
		return nil, fmt.Errorf("claim mail: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.QueuedMail, error) {
		var m domain.QueuedMail
		err := row.Scan(&m.ID, &m.Attempts, &m.To, &m.Subject, &m.Text, &m.HTML)
		return m, err
	})
}

// MailSent marks a mail sent; with sendErr it is retried at retryAt.
func (r *Repo) MailSent(ctx context.Context, id string, now time.Time, sendErr error, retryAt time.Time) error {
	var err error
	if sendErr == nil {
		_, err = r.pool.Exec(ctx, `UPDATE mail_queue SET sent_at = $2, last_error = NULL WHERE id = $1`, id, now)
	} else {
		_, err = r.pool.Exec(ctx, `UPDATE mail_queue SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, id, retryAt, sendErr.Error())
	}
	return err
}

// ForgetUser implements app.Store, in one transaction.
func (r *Repo) ForgetUser(ctx context.Context, userID string) error {
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		var emails []string
		rows, err := tx.Query(ctx, `SELECT email FROM subscriptions WHERE user_id = $1 AND email <> ''
			UNION SELECT email FROM checkouts WHERE user_id = $1 AND email <> ''`, userID)
		if err != nil {
			return fmt.Errorf("forget user: %w", err)
		}
		if emails, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return fmt.Errorf("forget user: %w", err)
		}
		for _, q := range []string{
			`DELETE FROM billing_profiles WHERE user_id = $1`,
			`DELETE FROM usage_counters WHERE user_id = $1`,
			`UPDATE subscriptions SET email = '' WHERE user_id = $1`,
			`UPDATE checkouts SET email = '' WHERE user_id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("forget user: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM mail_queue WHERE recipient = ANY($1) AND sent_at IS NULL`, emails); err != nil {
			return fmt.Errorf("forget user's mail: %w", err)
		}
		return nil
	})
}

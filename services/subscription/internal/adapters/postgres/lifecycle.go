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
	"bidradar/pkg/events"
	"bidradar/pkg/mail"
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
	return outbox.EnqueueEvent(ctx, tx, &subscriptionv1.SubscriptionChanged{
		EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: s.UserID, Tier: s.Tier, Status: s.Status})
}

// RollPlan moves the user's plan on past its end date as roll decides
// (the downgrade waiting after it, or expired), under its row lock; a move
// publishes one subscription.changed. moved is false when there was
// nothing to move (renewed meanwhile, moved already).
func (r *Repo) RollPlan(ctx context.Context, userID string, now time.Time, roll func(domain.Subscription) (domain.Subscription, bool)) (moved bool, err error) {
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		cur, err := scanSubscription(tx.QueryRow(ctx, `SELECT `+subColumns+` FROM subscriptions WHERE user_id = $1 FOR UPDATE`, userID))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		next, ok := roll(cur)
		if moved = ok; !ok {
			return nil
		}
		if err := writeSubscription(ctx, tx, next, now); err != nil {
			return err
		}
		return changed(ctx, tx, next, now)
	})
	if err != nil {
		return false, fmt.Errorf("roll plan: %w", err)
	}
	return moved, nil
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

// queueMail queues m in the transaction that decided it (pkg/mail, in the
// service's job queue).
func queueMail(ctx context.Context, tx pgx.Tx, m domain.Mail, now time.Time) error {
	return mail.Enqueue(ctx, tx, mail.Message{To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML}, now)
}

// EndPlanForDeletion implements domain.Store: under the user's fulfilment
// lock (a payment being fulfilled finishes first), end decides from the
// plan and the user's running provider subscriptions; the plan it returns
// is written and its provider cancels queued, in one transaction.
func (r *Repo) EndPlanForDeletion(ctx context.Context, userID string, now time.Time,
	end func(domain.Subscription, bool, []string) (domain.Subscription, []domain.ProviderCancel, bool)) error {
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('subscription:' || $1, 0))`, userID); err != nil {
			return err
		}
		cur, err := scanSubscription(tx.QueryRow(ctx, `SELECT `+subColumns+` FROM subscriptions WHERE user_id = $1 FOR UPDATE`, userID))
		found := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT subscription_id FROM provider_subscriptions
			WHERE user_id = $1 AND status <> 'deleted' ORDER BY subscription_id`, userID)
		if err != nil {
			return err
		}
		running, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		plan, pcs, changedPlan := end(cur, found, running)
		for _, pc := range pcs {
			if err := recordProviderCancel(ctx, tx, pc, now); err != nil {
				return err
			}
		}
		if !changedPlan {
			return nil
		}
		if err := writeSubscription(ctx, tx, plan, now); err != nil {
			return err
		}
		return changed(ctx, tx, plan, now)
	})
	if err != nil {
		return fmt.Errorf("end plan for deletion: %w", err)
	}
	return nil
}

// ForgetUser implements domain.Store, in one transaction.
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
			`DELETE FROM checkout_attempts WHERE user_id = $1`,
			`UPDATE subscriptions SET email = '' WHERE user_id = $1`,
			`UPDATE checkouts SET email = '', buyer_kind = NULL, buyer_name = NULL, buyer_tax_id = NULL, buyer_head_office = NULL,
				buyer_branch = NULL, buyer_address = NULL WHERE user_id = $1`,
			// No address, and no change later than this one: a change
			// arriving late stores none.
			`INSERT INTO email_changes (user_id, changed_at, email) VALUES ($1, 'infinity', NULL)
				ON CONFLICT (user_id) DO UPDATE SET changed_at = 'infinity', email = NULL`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return fmt.Errorf("forget user: %w", err)
			}
		}
		return mail.DropPending(ctx, tx, emails)
	})
}

// LatestEmail implements domain.Store.
func (r *Repo) LatestEmail(ctx context.Context, userID string) (string, time.Time, bool, error) {
	var email string
	var at time.Time
	err := r.pool.QueryRow(ctx, `SELECT email, changed_at FROM email_changes WHERE user_id = $1 AND email IS NOT NULL`, userID).Scan(&email, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("latest email: %w", err)
	}
	return email, at, true, nil
}

// EmailChanged implements domain.Store, in one transaction.
func (r *Repo) EmailChanged(ctx context.Context, consumer, eventID, userID, email string, at time.Time) error {
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if first, err := events.MarkProcessed(ctx, tx, consumer, eventID); err != nil || !first {
			return err
		}
		// Only a change newer than the last one applied moves the address.
		tag, err := tx.Exec(ctx, `INSERT INTO email_changes (user_id, changed_at, email) VALUES ($1, $2, $3)
			ON CONFLICT (user_id) DO UPDATE SET changed_at = excluded.changed_at, email = excluded.email
			WHERE email_changes.changed_at < excluded.changed_at`, userID, at, email)
		if err != nil {
			return fmt.Errorf("email changed: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `SELECT email FROM subscriptions WHERE user_id = $1 AND email <> '' AND email <> $2
			UNION SELECT email FROM checkouts WHERE user_id = $1 AND email <> '' AND email <> $2`, userID, email)
		if err != nil {
			return fmt.Errorf("email changed: %w", err)
		}
		old, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("email changed: %w", err)
		}
		// An erased address (a deleted account) stays erased.
		for _, q := range []string{
			`UPDATE subscriptions SET email = $2 WHERE user_id = $1 AND email <> ''`,
			`UPDATE checkouts SET email = $2 WHERE user_id = $1 AND email <> ''`,
		} {
			if _, err := tx.Exec(ctx, q, userID, email); err != nil {
				return fmt.Errorf("email changed: %w", err)
			}
		}
		return mail.Redirect(ctx, tx, old, email)
	})
}

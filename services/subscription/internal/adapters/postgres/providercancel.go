package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/subscription/internal/domain"
)

// recordProviderCancel writes a provider cancel in the fulfilment's
// transaction, due at once. One row a subscription: a request to cancel now
// overrides one for the period's end (even a done one); anything else is
// already asked for.
func recordProviderCancel(ctx context.Context, tx pgx.Tx, pc domain.ProviderCancel, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO provider_cancels (subscription_id, at_period_end, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $3) ON CONFLICT (subscription_id) DO UPDATE
		SET at_period_end = false, attempts = 0, next_attempt_at = $3, last_error = NULL, done_at = NULL
		WHERE provider_cancels.at_period_end AND NOT excluded.at_period_end`, pc.SubscriptionID, pc.AtPeriodEnd, now)
	if err != nil {
		return fmt.Errorf("record provider cancel: %w", err)
	}
	return nil
}

// ClaimProviderCancels implements app.Store: up to limit provider cancels
// due at now (only that subscription's when only is set), each counted as
// an attempt and leased until now+lease in one statement. Rows another
// worker holds (locked, or leased) are skipped, so replicas never call the
// provider for the same row at once; a worker that dies mid-call leaves a
// lease that expires.
func (r *Repo) ClaimProviderCancels(ctx context.Context, now time.Time, lease time.Duration, limit int, only string) ([]domain.PendingCancel, error) {
	rows, err := r.pool.Query(ctx, `UPDATE provider_cancels SET attempts = attempts + 1, next_attempt_at = $3
		WHERE subscription_id IN (SELECT subscription_id FROM provider_cancels
			WHERE done_at IS NULL AND next_attempt_at <= $1 AND ($4 = '' OR subscription_id = $4)
			ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING subscription_id, at_period_end, attempts, next_attempt_at, coalesce(last_error, ''), created_at`,
		now, limit, now.Add(lease), only)
	if err != nil {
		return nil, fmt.Errorf("claim provider cancels: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.PendingCancel, error) {
		var c domain.PendingCancel
		err := row.Scan(&c.SubscriptionID, &c.AtPeriodEnd, &c.Attempts, &c.Lease, &c.LastError, &c.CreatedAt)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim provider cancels: %w", err)
	}
	return out, nil
}

// ProviderCancelDone implements app.Store: the claimed call succeeded.
// Nothing changes when the claim was lost (its lease ran out and another
// worker took the row, or a cancel-now replaced the request).
func (r *Repo) ProviderCancelDone(ctx context.Context, c domain.PendingCancel, now time.Time) error {
	if _, err := r.pool.Exec(ctx, `UPDATE provider_cancels SET done_at = $3
		WHERE subscription_id = $1 AND next_attempt_at = $2 AND done_at IS NULL`, c.SubscriptionID, c.Lease, now); err != nil {
		return fmt.Errorf("provider cancel done: %w", err)
	}
	return nil
}

// ProviderCancelFailed implements app.Store: the claimed call failed; the
// row is due again at retryAt (unless the claim was lost).
func (r *Repo) ProviderCancelFailed(ctx context.Context, c domain.PendingCancel, retryAt time.Time, failure string) error {
	if _, err := r.pool.Exec(ctx, `UPDATE provider_cancels SET next_attempt_at = $3, last_error = $4
		WHERE subscription_id = $1 AND next_attempt_at = $2 AND done_at IS NULL`, c.SubscriptionID, c.Lease, retryAt, failure); err != nil {
		return fmt.Errorf("provider cancel failed: %w", err)
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/subscription/internal/domain"
)

// Consume adds amount to every window atomically: all fit, or nothing changes.
// amount 0 only reads.
func (r *Repo) Consume(ctx context.Context, userID, kind string, windows []domain.Window, amount int) (domain.QuotaResult, error) {
	var res domain.QuotaResult
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		res = domain.QuotaResult{Allowed: true}
		for _, w := range windows {
			var used int
			// Lock the counter row (created at 0 when missing) so concurrent
			// consumers serialise on it.
			err := tx.QueryRow(ctx, `INSERT INTO usage_counters (user_id, kind, period, period_start, used)
				VALUES ($1, $2, $3, $4, 0)
				ON CONFLICT (user_id, kind, period, period_start) DO UPDATE SET used = usage_counters.used
				RETURNING used`, userID, kind, w.Period, w.Start).Scan(&used)
			if err != nil {
				return fmt.Errorf("lock usage: %w", err)
			}
			next := max(used+amount, 0)
			if amount > 0 && w.Limit != domain.Unlimited && next > w.Limit {
				res = domain.QuotaResult{Allowed: false, Refused: w, Remaining: nil}
				return errRefused
			}
			if amount != 0 {
				if _, err := tx.Exec(ctx, `UPDATE usage_counters SET used = $5
					WHERE user_id = $1 AND kind = $2 AND period = $3 AND period_start = $4`,
					userID, kind, w.Period, w.Start, next); err != nil {
					return fmt.Errorf("update usage: %w", err)
				}
			}
			left := -1
			if w.Limit != domain.Unlimited {
				left = max(w.Limit-next, 0)
			}
			res.Remaining = append(res.Remaining, left)
		}
		return nil
	})
	if errors.Is(err, errRefused) { // rolled back: nothing was consumed
		return res, nil
	}
	return res, err
}

var errRefused = errors.New("quota refused")

// Usage returns the counts used in the current day and month windows, keyed
// "kind/period".
func (r *Repo) Usage(ctx context.Context, userID string, day, month time.Time) (map[string]int, error) {
	rows, err := r.pool.Query(ctx, `SELECT kind, period, used FROM usage_counters WHERE user_id = $1
		AND ((period = 'day' AND period_start = $2) OR (period = 'month' AND period_start = $3))`,
		userID, day, month)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var kind, period string
		var used int
		if err := rows.Scan(&kind, &period, &used); err != nil {
			return nil, err
		}
		out[kind+"/"+period] = used
	}
	return out, rows.Err()
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/notification/internal/domain"
)

// TakeRate implements domain.RateStore: the user's calls of the action are
// counted and the new one recorded under a transaction-level advisory lock
// of (user, action), so replicas and concurrent calls take turns.
func (s *Store) TakeRate(ctx context.Context, userID string, l domain.RateLimit, now time.Time) (time.Duration, error) {
	var wait time.Duration
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('rate:' || $1 || ':' || $2, 0))`, userID, l.Action); err != nil {
			return err
		}
		since := now.Add(-l.Window)
		if _, err := tx.Exec(ctx, `DELETE FROM rate_events WHERE user_id = $1 AND action = $2 AND at <= $3`, userID, l.Action, since); err != nil {
			return err
		}
		// The oldest call that must leave the window before one more fits.
		var oldest *time.Time
		if err := tx.QueryRow(ctx, `SELECT at FROM rate_events WHERE user_id = $1 AND action = $2
			ORDER BY at DESC OFFSET $3 - 1 LIMIT 1`, userID, l.Action, l.Max).Scan(&oldest); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if oldest != nil {
			wait = oldest.Add(l.Window).Sub(now)
			return nil
		}
		_, err := tx.Exec(ctx, `INSERT INTO rate_events (user_id, action, at) VALUES ($1, $2, $3)`, userID, l.Action, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("rate limit %s: %w", l.Action, err)
	}
	return wait, nil
}

package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/auth/internal/domain"
)

// BeginLogin implements domain.LoginLimiter: the account's attempts are
// counted and the new one recorded under a per-account advisory lock.
func (s *Store) BeginLogin(ctx context.Context, account, client string, now time.Time) (int64, time.Duration, error) {
	var id int64
	var wait time.Duration
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('login:' || $1, 0))`, account); err != nil {
			return err
		}
		since := now.Add(-domain.LoginWindow)
		var h domain.LoginHistory
		var accLast, cliLast *time.Time
		if err := tx.QueryRow(ctx, `SELECT
				(SELECT count(*) FROM login_attempts WHERE account = $1 AND at > $3),
				(SELECT max(at) FROM login_attempts WHERE account = $1 AND at > $3),
				(SELECT count(*) FROM login_attempts WHERE client = $2 AND at > $3),
				(SELECT max(at) FROM login_attempts WHERE client = $2 AND at > $3)`,
			account, client, since).Scan(&h.AccountFailures, &accLast, &h.ClientFailures, &cliLast); err != nil {
			return err
		}
		if accLast != nil {
			h.AccountLast = *accLast
		}
		if cliLast != nil {
			h.ClientLast = *cliLast
		}
		if wait = domain.LoginDelay(h, now); wait > 0 {
			return nil
		}
		if err := tx.QueryRow(ctx, `INSERT INTO login_attempts (account, client, at) VALUES ($1, $2, $3) RETURNING id`,
			account, client, now).Scan(&id); err != nil {
			return err
		}
		if id%200 == 0 { // now and then, forget what no window needs
			_, err := tx.Exec(ctx, `DELETE FROM login_attempts WHERE at < $1`, since)
			return err
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("login attempt: %w", err)
	}
	return id, wait, nil
}

// LoginSucceeded implements domain.LoginLimiter.
func (s *Store) LoginSucceeded(ctx context.Context, account string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM login_attempts WHERE account = $1`, account); err != nil {
		return fmt.Errorf("login succeeded: %w", err)
	}
	return nil
}

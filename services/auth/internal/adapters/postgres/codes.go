package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/auth/internal/domain"
)

// IssueCode implements domain.Store. Issuers of one (purpose, e-mail) are
// serialised by a transaction-level advisory lock, so the throttle cannot be
// raced; older live codes are invalidated in the same transaction.
func (s *Store) IssueCode(ctx context.Context, c domain.NewCode, now time.Time) (domain.OTPCode, error) {
	if !c.Purpose.Valid() {
		return domain.OTPCode{}, errors.New("postgres: invalid code purpose")
	}
	out := domain.OTPCode{Purpose: c.Purpose, Email: c.Email, HMAC: c.HMAC, CreatedAt: now,
		ExpiresAt: now.Add(domain.OTPTTL), AuthAt: c.AuthAt}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if c.Owner != "" {
			// The owner first (then the address, as every issuer does), so
			// one account's requests for different addresses take turns.
			if err := checkOwnerAddresses(ctx, tx, c, now); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
			"otp:"+string(c.Purpose)+":"+c.Email); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT created_at FROM otp_codes
			WHERE purpose = $1 AND email = $2 AND created_at > $3 ORDER BY created_at`,
			c.Purpose, c.Email, now.Add(-time.Hour))
		if err != nil {
			return err
		}
		history, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
		if err != nil {
			return err
		}
		if err := (domain.SendHistory{LastHour: history}).CheckSend(now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE otp_codes SET invalidated_at = $3
			WHERE purpose = $1 AND email = $2 AND used_at IS NULL AND invalidated_at IS NULL`,
			c.Purpose, c.Email, now); err != nil {
			return err
		}
		var invalidated *time.Time
		if c.HMAC == nil {
			invalidated = &now // a throttle record only: born dead
		}
		return tx.QueryRow(ctx, `INSERT INTO otp_codes (purpose, email, code_hmac, created_at, expires_at, invalidated_at, auth_at, owner_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
			c.Purpose, c.Email, c.HMAC, now, out.ExpiresAt, invalidated, nullTime(c.AuthAt), nullString(c.Owner)).Scan(&out.ID)
	})
	if err != nil {
		return domain.OTPCode{}, err
	}
	return out, nil
}

// checkOwnerAddresses applies domain.CheckEmailChangeAddresses to the
// addresses c.Owner asked codes of c.Purpose for in the last hour, under a
// lock of the owner.
func checkOwnerAddresses(ctx context.Context, tx pgx.Tx, c domain.NewCode, now time.Time) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "otp-owner:"+c.Owner); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT email, max(created_at) FROM otp_codes
		WHERE owner_id = $1 AND purpose = $2 AND created_at > $3 GROUP BY email`, c.Owner, c.Purpose, now.Add(-time.Hour))
	if err != nil {
		return err
	}
	recent := map[string]time.Time{}
	var email string
	var at time.Time
	if _, err := pgx.ForEachRow(rows, []any{&email, &at}, func() error { recent[email] = at; return nil }); err != nil {
		return err
	}
	return domain.CheckEmailChangeAddresses(recent, c.Email, now)
}

// DailyFailures implements domain.Store. Codes live five minutes, so the
// failures of codes created since the cut-off are those of the period.
func (s *Store) DailyFailures(ctx context.Context, p domain.Purpose, email string, since time.Time) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(failures), 0) FROM otp_codes
		WHERE purpose = $1 AND email = $2 AND created_at > $3`, p, email, since).Scan(&n)
	return n, err
}

// SubmitCode implements domain.Store: the attempt is counted by the UPDATE
// itself (row lock, RETURNING the new count) before the caller compares
// anything, so concurrent submissions see 1, 2, 3, ... and only the first
// domain.OTPMaxAttempts are ever evaluated.
func (s *Store) SubmitCode(ctx context.Context, p domain.Purpose, email string) (domain.OTPCode, error) {
	c := domain.OTPCode{Purpose: p, Email: email}
	var authAt *time.Time
	err := s.pool.QueryRow(ctx, `UPDATE otp_codes SET attempts = attempts + 1
		WHERE purpose = $1 AND email = $2 AND used_at IS NULL AND invalidated_at IS NULL
		RETURNING id, code_hmac, created_at, expires_at, attempts, auth_at`, p, email).
		Scan(&c.ID, &c.HMAC, &c.CreatedAt, &c.ExpiresAt, &c.Attempts, &authAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.OTPCode{}, domain.ErrInvalidCode
	}
	if err != nil {
		return domain.OTPCode{}, err
	}
	if authAt != nil {
		c.AuthAt = *authAt
	}
	return c, nil
}

// RecordFailure implements domain.Store.
func (s *Store) RecordFailure(ctx context.Context, id int64, _ time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE otp_codes SET failures = failures + 1 WHERE id = $1`, id)
	return err
}

// ConsumeCode implements domain.Store.
func (s *Store) ConsumeCode(ctx context.Context, id int64, now time.Time) error {
	return consumeCode(ctx, s.pool, id, now)
}

// consumeCode makes a code single-use: only one UPDATE can win.
func consumeCode(ctx context.Context, q querier, id int64, now time.Time) error {
	tag, err := q.Exec(ctx, `UPDATE otp_codes SET used_at = $2
		WHERE id = $1 AND used_at IS NULL AND invalidated_at IS NULL`, id, now)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return domain.ErrInvalidCode
	}
	return nil
}

// LatestLoginAuth implements domain.Store.
func (s *Store) LatestLoginAuth(ctx context.Context, email string) (time.Time, error) {
	var t *time.Time
	err := s.pool.QueryRow(ctx, `SELECT max(auth_at) FROM otp_codes WHERE purpose = 'login' AND email = $1`, email).Scan(&t)
	if err != nil || t == nil {
		return time.Time{}, err
	}
	return *t, nil
}

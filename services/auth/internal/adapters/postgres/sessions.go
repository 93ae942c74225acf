package postgres

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"bidradar/services/auth/internal/domain"
)

// StartSession implements domain.Store.
func (s *Store) StartSession(ctx context.Context, ns domain.NewSession) (domain.Family, error) {
	var f domain.Family
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if ns.ConsumeCodeID != 0 {
			if err := consumeCode(ctx, tx, ns.ConsumeCodeID, ns.Now); err != nil {
				return err
			}
		}
		var err error
		f, err = startSession(ctx, tx, ns)
		return err
	})
	return f, err
}

func startSession(ctx context.Context, tx pgx.Tx, ns domain.NewSession) (domain.Family, error) {
	f := domain.Family{ID: ns.FamilyID, UserID: ns.UserID, Provider: ns.Provider, CreatedAt: ns.Now,
		ExpiresAt: ns.Now.Add(domain.FamilyLifetime)}
	if _, err := tx.Exec(ctx, `INSERT INTO token_families (id, user_id, provider, created_at, expires_at, device, last_used_at)
		VALUES ($1, $2, $3, $4, $5, $6, $4)`, f.ID, f.UserID, f.Provider, f.CreatedAt, f.ExpiresAt, domain.DescribeDevice(ns.Device)); err != nil {
		return domain.Family{}, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO refresh_tokens (token_hash, family_id, created_at) VALUES ($1, $2, $3)`,
		ns.TokenHash, f.ID, ns.Now); err != nil {
		return domain.Family{}, err
	}
	return f, nil
}

// Refresh implements domain.Store. The family row is locked first, then the
// token is read again, so concurrent refreshes of one family are decided
// one after the other on fresh state.
func (s *Store) Refresh(ctx context.Context, token string, rot domain.Rotator, now time.Time) (domain.Family, string, error) {
	hash := domain.HashToken(token)
	var fam domain.Family
	var child string
	var decision domain.RefreshDecision
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var familyID string
		err := tx.QueryRow(ctx, `SELECT family_id::text FROM refresh_tokens WHERE token_hash = $1`, hash).Scan(&familyID)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrRefreshInvalid
		}
		if err != nil {
			return err
		}
		var revoked *time.Time
		err = tx.QueryRow(ctx, `SELECT id::text, user_id::text, provider, created_at, expires_at, revoked_at
			FROM token_families WHERE id = $1 FOR UPDATE`, familyID).
			Scan(&fam.ID, &fam.UserID, &fam.Provider, &fam.CreatedAt, &fam.ExpiresAt, &revoked)
		if err != nil {
			return err
		}
		if revoked != nil {
			fam.RevokedAt = *revoked
		}
		var t domain.RefreshToken
		var rotated *time.Time
		var childActive *bool
		err = tx.QueryRow(ctx, `SELECT r.created_at, r.rotated_at, r.child_hash, (c.token_hash IS NOT NULL AND c.rotated_at IS NULL)
			FROM refresh_tokens r LEFT JOIN refresh_tokens c ON c.token_hash = r.child_hash
			WHERE r.token_hash = $1`, hash).Scan(&t.CreatedAt, &rotated, &t.ChildHash, &childActive)
		if err != nil {
			return err
		}
		if rotated != nil {
			t.RotatedAt = *rotated
		}
		t.ChildActive = childActive != nil && *childActive

		decision = domain.DecideRefresh(fam, t, now)
		switch decision {
		case domain.RefreshRotate:
			child = rot.Child(token)
			if _, err := tx.Exec(ctx, `INSERT INTO refresh_tokens (token_hash, family_id, created_at) VALUES ($1, $2, $3)`,
				domain.HashToken(child), fam.ID, now); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE refresh_tokens SET rotated_at = $2, child_hash = $3 WHERE token_hash = $1`,
				hash, now, domain.HashToken(child)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `UPDATE token_families SET last_used_at = $2 WHERE id = $1`, fam.ID, now)
			return err
		case domain.RefreshGraceReplay:
			child = rot.Child(token)
			if !bytes.Equal(domain.HashToken(child), t.ChildHash) {
				// The rotation key changed since: the child cannot be re-derived.
				return domain.ErrRefreshInvalid
			}
			return nil
		case domain.RefreshRevokeFamily:
			if err := endSessions(ctx, tx, "reuse", "id = $3", now, fam.ID); err != nil {
				return err
			}
			return nil // commit the revocation, then report it
		default:
			return decision.Err()
		}
	})
	if err != nil {
		return domain.Family{}, "", err
	}
	if decision == domain.RefreshRevokeFamily {
		return domain.Family{}, "", domain.ErrRefreshReused
	}
	return fam, child, nil
}

// RevokeByToken implements domain.Store.
func (s *Store) RevokeByToken(ctx context.Context, token string, now time.Time) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		return endSessions(ctx, tx, "logout", "id = (SELECT family_id FROM refresh_tokens WHERE token_hash = $3)", now, domain.HashToken(token))
	})
}

// RevokeFamily implements domain.Store: the session an access token names.
func (s *Store) RevokeFamily(ctx context.Context, familyID, userID string, now time.Time) error {
	if _, err := uuid.Parse(familyID); err != nil {
		return nil
	}
	if _, err := uuid.Parse(userID); err != nil {
		return nil
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		return endSessions(ctx, tx, "logout", "id = $3 AND user_id = $4", now, familyID, userID)
	})
}

// FamilyActive implements domain.Store.
func (s *Store) FamilyActive(ctx context.Context, familyID string, now time.Time) (bool, error) {
	if _, err := uuid.Parse(familyID); err != nil {
		return false, nil
	}
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM token_families
		WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2)`, familyID, now).Scan(&ok)
	return ok, err
}

// FamilyEnded reports whether a family was revoked or has expired. A family
// that no longer exists (its user was deleted) is not "ended": the caller then
// gets the user's own answer, e.g. 404 'User not found'.
func (s *Store) FamilyEnded(ctx context.Context, familyID string, now time.Time) (bool, error) {
	if _, err := uuid.Parse(familyID); err != nil {
		return true, nil
	}
	var ended bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM token_families
		WHERE id = $1 AND (revoked_at IS NOT NULL OR expires_at <= $2))`, familyID, now).Scan(&ended)
	return ended, err
}

// Cleanup deletes what can no longer be used: codes older than a day (the
// throttle and the daily cap look back 24 h), expired LINE states and link
// requests, and families expired or revoked more than a day ago.
func (s *Store) Cleanup(ctx context.Context, now time.Time) error {
	day := now.Add(-24 * time.Hour)
	for _, q := range []struct {
		sql string
		arg time.Time
	}{
		{`DELETE FROM otp_codes WHERE created_at < $1`, day},
		{`DELETE FROM line_login_states WHERE expires_at < $1`, now},
		{`DELETE FROM line_link_requests WHERE expires_at < $1`, now},
		{`DELETE FROM token_families WHERE expires_at < $1 OR revoked_at < $1`, day},
	} {
		if _, err := s.pool.Exec(ctx, q.sql, q.arg); err != nil {
			return err
		}
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "bidradar/gen/auth/v1"
	"bidradar/pkg/mail"
	"bidradar/pkg/outbox"
	"bidradar/services/auth/internal/domain"
)

// ListSessions implements domain.AccountStore.
func (s *Store) ListSessions(ctx context.Context, userID string, now time.Time) ([]domain.SessionInfo, error) {
	if _, err := uuid.Parse(userID); err != nil {
		return nil, domain.ErrUserNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT id::text, provider, device, created_at, coalesce(last_used_at, created_at), expires_at
		FROM token_families WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2
		ORDER BY coalesce(last_used_at, created_at) DESC, id LIMIT 100`, userID, now)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.SessionInfo, error) {
		var si domain.SessionInfo
		err := r.Scan(&si.ID, &si.Provider, &si.Device, &si.CreatedAt, &si.LastUsedAt, &si.ExpiresAt)
		return si, err
	})
}

// EndSessions implements domain.AccountStore.
func (s *Store) EndSessions(ctx context.Context, userID, keepFamilyID string, now time.Time) (int, error) {
	if _, err := uuid.Parse(userID); err != nil {
		return 0, domain.ErrUserNotFound
	}
	var n int
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM token_families WHERE user_id = $1 AND revoked_at IS NULL
			AND id::text IS DISTINCT FROM $2`, userID, keepFamilyID).Scan(&n); err != nil {
			return err
		}
		return endSessions(ctx, tx, "logout_all", "user_id = $3 AND id::text IS DISTINCT FROM $4", now, userID, keepFamilyID)
	})
	return n, err
}

// EndSession implements domain.AccountStore.
func (s *Store) EndSession(ctx context.Context, userID, familyID string, now time.Time) error {
	if _, err := uuid.Parse(familyID); err != nil {
		return domain.ErrSessionNotFound
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM token_families WHERE id = $1 AND user_id = $2
			AND revoked_at IS NULL AND expires_at > $3)`, familyID, userID, now).Scan(&mine); err != nil {
			return err
		}
		if !mine {
			return domain.ErrSessionNotFound
		}
		return endSessions(ctx, tx, "logout", "id = $3 AND user_id = $4", now, familyID, userID)
	})
}

// UpdateProfile implements domain.AccountStore.
func (s *Store) UpdateProfile(ctx context.Context, userID, name string, picture *string, now time.Time) (domain.User, error) {
	if _, err := uuid.Parse(userID); err != nil {
		return domain.User{}, domain.ErrUserNotFound
	}
	return scanUser(s.pool.QueryRow(ctx, `UPDATE users SET name = $2, picture_url = coalesce($3, picture_url), updated_at = $4
		WHERE id = $1 AND deleted_at IS NULL RETURNING `+userColumns, userID, name, picture, now))
}

// DeleteAccount implements domain.AccountStore. The row stays (payment
// records name it) with nothing that identifies the person: the username
// and e-mail become unusable placeholders, the password and LINE link go.
func (s *Store) DeleteAccount(ctx context.Context, userID string, codeID int64, ev domain.UserDeactivated, now time.Time) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		var email string
		err := tx.QueryRow(ctx, `SELECT email FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, userID).Scan(&email)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrUserNotFound
		} else if err != nil {
			return err
		}
		if err := consumeCode(ctx, tx, codeID, now); err != nil {
			return err
		}
		placeholder := "deleted-" + userID
		if _, err := tx.Exec(ctx, `UPDATE users SET username = $2, email = $3, name = '', picture_url = '', line_id = NULL,
			password_hash = '', active = false, two_step = false, deleted_at = $4, updated_at = $4 WHERE id = $1`,
			userID, placeholder, placeholder+"@deleted.invalid", now); err != nil {
			return err
		}
		// Codes and queued mail hold the address; contact messages keep
		// their text for support but lose the address.
		if _, err := tx.Exec(ctx, `DELETE FROM otp_codes WHERE email = $1`, email); err != nil {
			return err
		}
		if err := mail.DropPending(ctx, tx, []string{email}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE contact_messages SET email = '' WHERE user_id = $1`, userID); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, "deactivated", "user_id = $3", now, userID); err != nil {
			return err
		}
		return outbox.EnqueueEvent(ctx, tx, &authv1.UserDeactivated{
			EventId: ev.EventID, OccurredAt: timestamppb.New(ev.OccurredAt), UserId: ev.UserID,
		})
	})
}

// SaveContact implements domain.AccountStore: at most ContactPerHour
// messages per user in the hour before m.CreatedAt, counted under a lock on
// the user's row so concurrent submissions cannot pass the limit together.
func (s *Store) SaveContact(ctx context.Context, m domain.ContactMessage) error {
	if _, err := uuid.Parse(m.UserID); err != nil {
		return domain.ErrUserNotFound
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := userByID(ctx, tx, m.UserID, true); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM contact_messages WHERE user_id = $1 AND created_at > $2`,
			m.UserID, m.CreatedAt.Add(-time.Hour)).Scan(&n); err != nil {
			return err
		}
		if n >= domain.ContactPerHour {
			return domain.ErrContactTooMany
		}
		_, err := tx.Exec(ctx, `INSERT INTO contact_messages (user_id, email, topic, message, created_at) VALUES ($1, $2, $3, $4, $5)`,
			m.UserID, m.Email, m.Topic, m.Message, m.CreatedAt)
		return err
	})
}

// SetEmail implements domain.AccountStore. Every session ends (reason
// "email_change"; the other services hear it through
// auth.v1.session.ended): an access token names the address, and rights
// that follow the address must not outlive it.
func (s *Store) SetEmail(ctx context.Context, userID, email string, codeID int64, ev domain.UserEmailChanged, ns domain.NewSession) (domain.User, domain.Family, error) {
	var u domain.User
	var f domain.Family
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := consumeCode(ctx, tx, codeID, ns.Now); err != nil {
			return err
		}
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET email = $2, updated_at = $3
			WHERE id = $1 AND deleted_at IS NULL RETURNING `+userColumns, userID, email, ns.Now))
		if err = translateUserConflict(err); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, "email_change", "user_id = $3", ns.Now, u.ID); err != nil {
			return err
		}
		ns.UserID = u.ID
		if f, err = startSession(ctx, tx, ns); err != nil {
			return err
		}
		return outbox.EnqueueEvent(ctx, tx, &authv1.UserEmailChanged{
			EventId: ev.EventID, OccurredAt: timestamppb.New(ev.OccurredAt), UserId: u.ID, Email: u.Email,
		})
	})
	return u, f, err
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/auth/internal/domain"
)

// SaveLineState implements domain.Store.
func (s *Store) SaveLineState(ctx context.Context, st domain.LineState) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO line_login_states
		(state_hash, nonce, code_verifier, redirect_to, user_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		st.StateHash, st.Nonce, st.CodeVerifier, st.RedirectTo, nullString(st.UserID), st.CreatedAt, st.ExpiresAt)
	return err
}

// TakeLineState implements domain.Store: DELETE ... RETURNING makes the
// state single-use.
func (s *Store) TakeLineState(ctx context.Context, stateHash []byte, now time.Time) (domain.LineState, error) {
	var st domain.LineState
	var userID *string
	err := s.pool.QueryRow(ctx, `DELETE FROM line_login_states WHERE state_hash = $1
		RETURNING nonce, code_verifier, redirect_to, user_id::text, created_at, expires_at`, stateHash).
		Scan(&st.Nonce, &st.CodeVerifier, &st.RedirectTo, &userID, &st.CreatedAt, &st.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.LineState{}, domain.ErrLineStateInvalid
	}
	if err != nil {
		return domain.LineState{}, err
	}
	if !now.Before(st.ExpiresAt) {
		return domain.LineState{}, domain.ErrLineStateInvalid
	}
	st.StateHash = stateHash
	if userID != nil {
		st.UserID = *userID
	}
	return st, nil
}

// SaveLinkRequest implements domain.Store.
func (s *Store) SaveLinkRequest(ctx context.Context, r domain.LinkRequest) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO line_link_requests (token_hash, line_id, email, name, picture_url, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		r.TokenHash, r.Identity.LineID, r.Identity.Email, r.Identity.Name, r.Identity.PictureURL, r.ExpiresAt)
	return err
}

// LinkRequest implements domain.Store.
func (s *Store) LinkRequest(ctx context.Context, tokenHash []byte, now time.Time) (domain.LinkRequest, error) {
	r := domain.LinkRequest{TokenHash: tokenHash}
	err := s.pool.QueryRow(ctx, `SELECT line_id, email, name, picture_url, expires_at FROM line_link_requests
		WHERE token_hash = $1`, tokenHash).
		Scan(&r.Identity.LineID, &r.Identity.Email, &r.Identity.Name, &r.Identity.PictureURL, &r.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !now.Before(r.ExpiresAt)) {
		return domain.LinkRequest{}, domain.ErrLinkTokenInvalid
	}
	if err != nil {
		return domain.LinkRequest{}, err
	}
	return r, nil
}

// LinkLine implements domain.Store.
func (s *Store) LinkLine(ctx context.Context, userID string, id domain.LineIdentity) (domain.User, error) {
	var u domain.User
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		u, err = linkLine(ctx, tx, userID, id)
		return err
	})
	return u, err
}

// linkLine sets the user's LINE id and, when the user has none, their LINE picture.
func linkLine(ctx context.Context, tx pgx.Tx, userID string, id domain.LineIdentity) (domain.User, error) {
	lineID := id.LineID
	u, err := userByID(ctx, tx, userID, true)
	if err != nil {
		return domain.User{}, err
	}
	switch u.LineID {
	case lineID:
		return u, nil
	case "":
	default:
		return domain.User{}, domain.ErrUserHasOtherLine
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET line_id = $2, updated_at = now(),
		picture_url = CASE WHEN picture_url = '' THEN $3 ELSE picture_url END WHERE id = $1`, userID, lineID, id.PictureURL); err != nil {
		return domain.User{}, translateUserConflict(err)
	}
	u.LineID = lineID
	if u.PictureURL == "" {
		u.PictureURL = id.PictureURL
	}
	return u, nil
}

// CompleteLineLink implements domain.Store.
func (s *Store) CompleteLineLink(ctx context.Context, c domain.LineLinkCompletion) (domain.User, domain.Family, error) {
	var u domain.User
	var fam domain.Family
	now := c.Session.Now
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := consumeCode(ctx, tx, c.CodeID, now); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM line_link_requests WHERE token_hash = $1`, c.LinkHash)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return domain.ErrLinkTokenInvalid
		}
		var existingID string
		err = tx.QueryRow(ctx, `SELECT id::text FROM users WHERE email = $1 FOR UPDATE`, c.Email).Scan(&existingID)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			u = c.NewUser
			u.LineID = c.Identity.LineID
			if err := insertUser(ctx, tx, u); err != nil {
				return err
			}
			c.Registered.UserID = u.ID
			if err := enqueueRegistered(ctx, tx, c.Registered); err != nil {
				return err
			}
			c.Verified.UserID = u.ID
			if err := enqueueVerified(ctx, tx, c.Verified); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			if u, err = linkLine(ctx, tx, existingID, c.Identity); err != nil {
				return err
			}
			if !u.Active {
				// The code proved the e-mail: the account is verified now.
				if _, err := tx.Exec(ctx, `UPDATE users SET active = true, verified_at = $2, updated_at = $2 WHERE id = $1`,
					u.ID, now); err != nil {
					return err
				}
				u.Active, u.VerifiedAt = true, now
				c.Verified.UserID = u.ID
				if err := enqueueVerified(ctx, tx, c.Verified); err != nil {
					return err
				}
			}
		}
		c.Session.UserID = u.ID
		fam, err = startSession(ctx, tx, c.Session)
		return err
	})
	if err != nil {
		return domain.User{}, domain.Family{}, err
	}
	return u, fam, nil
}

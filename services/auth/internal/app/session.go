package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"bidradar/services/auth/internal/domain"
)

// Refresh exchanges a refresh token for a new pair.
type Refresh struct{ Token string }

// RefreshMessage is the success answer.
const RefreshMessage = "Token refreshed successfully"

// RefreshHandler rotates a refresh token (see domain.DecideRefresh): the
// active token gets its child; the parent of the active token, within the
// grace period, gets the current child again; any other reuse revokes the
// family. The user must still exist and be active.
type RefreshHandler struct{ c *core }

// Handle runs the use case.
func (h RefreshHandler) Handle(ctx context.Context, cmd Refresh) (Session, error) {
	tok := strings.TrimSpace(cmd.Token)
	if tok == "" {
		return Session{}, domain.ErrRefreshMissing
	}
	if !domain.ValidRefreshTokenFormat(tok) {
		return Session{}, domain.ErrRefreshInvalid
	}
	now := h.c.now()
	fam, child, err := h.c.store.Refresh(ctx, tok, h.c.rotator, now)
	if err != nil {
		return Session{}, err
	}
	u, err := h.c.store.UserByID(ctx, fam.UserID)
	if errors.Is(err, domain.ErrUserNotFound) {
		return Session{}, domain.ErrSessionRevoked
	} else if err != nil {
		return Session{}, err
	}
	if !u.Active {
		return Session{}, domain.ErrAccountInactive
	}
	return h.c.sessionFor(u, fam, child, now)
}

// Logout ends a session.
type Logout struct {
	Token string // the refresh token, if any
	// The session and user of the caller's access token, if any.
	AccessFamily, UserID string
}

// LogoutMessage is the answer, whether or not the token was known.
const LogoutMessage = "Logged out successfully."

// LogoutHandler revokes the family of the refresh token, if any. It always
// succeeds so that clients can clear their state.
type LogoutHandler struct{ c *core }

// Handle runs the use case.
func (h LogoutHandler) Handle(ctx context.Context, cmd Logout) (string, error) {
	tok := strings.TrimSpace(cmd.Token)
	if tok != "" && domain.ValidRefreshTokenFormat(tok) {
		if err := h.c.store.RevokeByToken(ctx, tok, h.c.now()); err != nil {
			return "", err
		}
	}
	// The access token's session ends too, even when the client sent no
	// refresh token: a logged-out token must not keep working elsewhere.
	if cmd.AccessFamily != "" {
		if err := h.c.store.RevokeFamily(ctx, cmd.AccessFamily, cmd.UserID, h.c.now()); err != nil {
			return "", err
		}
	}
	return LogoutMessage, nil
}

// GetUserHandler returns an account by id (404 'User not found').
type GetUserHandler struct{ c *core }

// Handle runs the use case.
func (h GetUserHandler) Handle(ctx context.Context, userID string) (domain.User, error) {
	if _, err := uuid.Parse(userID); err != nil {
		return domain.User{}, domain.ErrUserIDInvalid
	}
	return h.c.store.UserByID(ctx, userID)
}

// SecuritySettings is the security state of an account.
type SecuritySettings struct {
	TwoStep           bool
	HasPassword       bool
	LineLinked        bool
	PasswordChangedAt time.Time
}

// SecuritySettingsHandler reads the security state of the signed-in user.
type SecuritySettingsHandler struct{ c *core }

// Handle runs the use case.
func (h SecuritySettingsHandler) Handle(ctx context.Context, userID string) (SecuritySettings, error) {
	u, err := h.c.store.UserByID(ctx, userID)
	if err != nil {
		return SecuritySettings{}, err
	}
	return SecuritySettings{
		TwoStep: u.TwoStep, HasPassword: u.HasPassword(), LineLinked: u.LineID != "",
		PasswordChangedAt: u.PasswordChangedAt,
	}, nil
}

// UpdateTwoStep turns two-step verification on or off.
type UpdateTwoStep struct {
	UserID          string
	Enabled         bool
	CurrentPassword string
}

// UpdateTwoStepHandler stores the two-step setting. Turning it off weakens
// the account, so it needs the current password (accounts without one, made
// through LINE, sign in through LINE); either way the owner is told by mail.
type UpdateTwoStepHandler struct{ c *core }

// Handle runs the use case.
func (h UpdateTwoStepHandler) Handle(ctx context.Context, cmd UpdateTwoStep) (string, error) {
	u, err := h.c.store.UserByID(ctx, cmd.UserID)
	if err != nil {
		return "", err
	}
	if !cmd.Enabled && u.HasPassword() {
		if err := h.c.checkCurrentPassword(ctx, u, cmd.CurrentPassword); err != nil {
			return "", err
		}
	}
	if err := h.c.store.SetTwoStep(ctx, u.ID, cmd.Enabled); err != nil {
		return "", err
	}
	if u.Email != "" && u.TwoStep != cmd.Enabled {
		h.c.notify(ctx, securityNoticeMail(u.Email, u.Name, twoStepNotice(cmd.Enabled)))
	}
	if cmd.Enabled {
		return "Two-step verification enabled", nil
	}
	return "Two-step verification disabled", nil
}

// checkCurrentPassword is the re-authentication of sensitive changes.
func (c *core) checkCurrentPassword(ctx context.Context, u domain.User, password string) error {
	if password == "" {
		return domain.ErrCurrentPassword
	}
	ok, err := c.hasher.Verify(ctx, domain.NormalizePassword(password), u.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return domain.ErrCurrentPassword
	}
	return nil
}

// notify queues a security notice; a failure is logged, not the caller's.
func (c *core) notify(ctx context.Context, m domain.Mail) {
	if err := c.mailer.Send(ctx, m); err != nil {
		c.log.ErrorContext(ctx, "queue security notice", "err", err)
	}
}

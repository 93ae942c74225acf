package app

import (
	"context"
	"errors"

	"bidradar/services/auth/internal/domain"
)

// ForgotPassword asks for a password reset code.
type ForgotPassword struct{ Email string }

// ForgotPasswordMessage is the answer for known and unknown e-mails alike.
const ForgotPasswordMessage = "If an account exists for this email, a password reset code has been sent."

// ForgotPasswordHandler e-mails a reset code to an existing account and
// answers the same (with the same throttle, without a mail) otherwise.
type ForgotPasswordHandler struct{ c *core }

// Handle runs the use case.
func (h ForgotPasswordHandler) Handle(ctx context.Context, cmd ForgotPassword) (int, string, error) {
	email, err := checkEmail(cmd.Email)
	if err != nil {
		return 0, "", err
	}
	req := codeRequest{Purpose: domain.PurposePasswordReset, Email: email, Delivery: deliverNothing}
	u, err := h.c.store.UserByEmail(ctx, email)
	switch {
	case err == nil:
		req.Delivery, req.Name = deliverCode, u.Name
	case !errors.Is(err, domain.ErrUserNotFound):
		return 0, "", err
	}
	if err := h.c.issueCode(ctx, req); err != nil {
		return 0, "", err
	}
	return expiresIn, ForgotPasswordMessage, nil
}

// ResetPassword sets a new password with a reset code.
type ResetPassword struct {
	Email       string
	OTP         string
	NewPassword string
}

// ResetPasswordMessage is the success answer.
const ResetPasswordMessage = "Password reset successfully"

// ResetPasswordHandler validates the new password first (a policy mistake
// must not burn a code attempt), then the code, and stores the new hash
// while revoking every session in one transaction.
type ResetPasswordHandler struct{ c *core }

// Handle runs the use case.
func (h ResetPasswordHandler) Handle(ctx context.Context, cmd ResetPassword) (string, error) {
	email, otp, err := checkEmailAndOTP(cmd.Email, cmd.OTP)
	if err != nil {
		return "", err
	}
	if err := domain.ValidatePassword(cmd.NewPassword, "", email); err != nil {
		return "", err
	}
	code, u, err := h.c.verifyUserCode(ctx, domain.PurposePasswordReset, email, otp)
	if err != nil {
		return "", err
	}
	if err := domain.ValidatePassword(cmd.NewPassword, u.Username, email); err != nil {
		return "", err
	}
	hash, err := h.c.hasher.Hash(ctx, domain.NormalizePassword(cmd.NewPassword))
	if err != nil {
		return "", err
	}
	if err := h.c.store.SetPassword(ctx, u.ID, hash, "", code.ID, h.c.now()); err != nil {
		return "", err
	}
	return ResetPasswordMessage, nil
}

// ChangePassword changes the signed-in user's password.
type ChangePassword struct {
	UserID          string
	FamilyID        string // the current session, kept signed in
	CurrentPassword string
	NewPassword     string
}

// ChangePasswordMessage is the success answer.
const ChangePasswordMessage = "Password changed successfully"

// ChangePasswordHandler checks the current password, stores the new one and
// revokes every other session. An account created through LINE has no
// password yet: it may set one without a current password.
type ChangePasswordHandler struct{ c *core }

// Handle runs the use case.
func (h ChangePasswordHandler) Handle(ctx context.Context, cmd ChangePassword) (string, error) {
	u, err := h.c.store.UserByID(ctx, cmd.UserID)
	if err != nil {
		return "", err
	}
	if err := domain.ValidatePassword(cmd.NewPassword, u.Username, u.Email); err != nil {
		return "", err
	}
	if u.HasPassword() {
		if err := h.c.checkCurrentPassword(ctx, u, cmd.CurrentPassword); err != nil {
			return "", err
		}
		if cmd.CurrentPassword == cmd.NewPassword {
			return "", domain.ErrPasswordUnchanged
		}
	}
	hash, err := h.c.hasher.Hash(ctx, domain.NormalizePassword(cmd.NewPassword))
	if err != nil {
		return "", err
	}
	if err := h.c.store.SetPassword(ctx, u.ID, hash, cmd.FamilyID, 0, h.c.now()); err != nil {
		return "", err
	}
	if u.Email != "" {
		h.c.notify(ctx, securityNoticeMail(u.Email, u.Name, passwordChangedNotice))
	}
	return ChangePasswordMessage, nil
}

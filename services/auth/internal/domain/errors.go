package domain

import (
	"fmt"
	"time"

	"bidradar/pkg/apperr"
)

// Errors the auth service answers with. Their messages are user-facing: they
// become the REST "detail" and several are quoted by docs/product.md#error-catalogue, so keep
// the wording exact.
var (
	// Validation (422).
	ErrInvalidOTPFormat = apperr.New(apperr.Validation, "otp-format", "Please enter a valid 6-digit verification code")
	ErrEmailRequired    = apperr.New(apperr.Validation, "email-required", "Email is required")
	ErrEmailInvalid     = apperr.New(apperr.Validation, "email-invalid", "Please enter a valid email address")
	ErrUsernameInvalid  = apperr.New(apperr.Validation, "username-invalid", "Username must be 3 to 32 characters: letters, digits, dot, underscore or hyphen")
	ErrNameInvalid      = apperr.New(apperr.Validation, "name-invalid", "Name must be at most 100 characters without control characters")
	ErrPasswordTooShort = apperr.New(apperr.Validation, "password-too-short", fmt.Sprintf("Password must be at least %d characters", PasswordMinLength))
	ErrPasswordTooLong  = apperr.New(apperr.Validation, "password-too-long", fmt.Sprintf("Password must be at most %d characters", PasswordMaxLength))
	ErrPasswordInvalid  = apperr.New(apperr.Validation, "password-invalid", "Password must be valid text without control characters")
	ErrPasswordCommon   = apperr.New(apperr.Validation, "password-common", "This password is too common. Please choose a less predictable password")
	ErrPasswordLikeName = apperr.New(apperr.Validation, "password-like-identity", "Password must not be the same as your username or email")
	ErrLoginRequired    = apperr.New(apperr.Validation, "credentials-required", "Username and password are required")
	ErrFieldTooLong     = apperr.New(apperr.Validation, "field-too-long", "A field is too long")

	// Registration.
	ErrUsernameTaken = apperr.New(apperr.AlreadyExists, "username-taken", "Username already taken")
	// ErrEmailTaken never reaches a client: register answers the same for
	// known and unknown e-mails.
	ErrEmailTaken = apperr.New(apperr.AlreadyExists, "email-taken", "Email already registered")

	// One-time codes.
	ErrInvalidCode       = apperr.New(apperr.InvalidArgument, "otp-invalid", "Invalid verification code")
	ErrCodeExpired       = apperr.New(apperr.InvalidArgument, "otp-expired", "OTP has expired. Please request a new one.")
	ErrTooManyAttempts   = apperr.New(apperr.ResourceExhausted, "otp-too-many-attempts", "Too many attempts. Please request a new code.")
	ErrTooManyFailures   = apperr.New(apperr.ResourceExhausted, "otp-daily-limit", "Too many failed attempts today. Please try again tomorrow.")
	ErrResendTooSoonBase = apperr.New(apperr.ResourceExhausted, "otp-resend-too-soon", "Please wait before requesting a new code.")
	ErrResendHourlyBase  = apperr.New(apperr.ResourceExhausted, "otp-resend-limit", "Too many codes requested. Please try again later.")

	// Login and sessions.
	ErrBadCredentials    = apperr.New(apperr.Unauthenticated, "bad-credentials", "Incorrect username or password")
	ErrAccountInactive   = apperr.New(apperr.PermissionDenied, "account-inactive", "Account is inactive. Please verify your email to activate your account.")
	ErrLoginBusy         = apperr.New(apperr.ResourceExhausted, "login-busy", "Too many login attempts. Please try again shortly.")
	ErrBusy              = apperr.New(apperr.ResourceExhausted, "busy", "The server is busy. Please try again shortly.")
	ErrRefreshMissing    = apperr.New(apperr.Unauthenticated, "refresh-token-missing", "Refresh token is missing")
	ErrRefreshInvalid    = apperr.New(apperr.Unauthenticated, "refresh-token-invalid", "Invalid refresh token")
	ErrRefreshReused     = apperr.New(apperr.Unauthenticated, "refresh-token-reused", "Refresh token was already used. Please login again.")
	ErrSessionExpired    = apperr.New(apperr.Unauthenticated, "session-expired", "Your session has expired. Please login again.")
	ErrSessionRevoked    = apperr.New(apperr.Unauthenticated, "session-revoked", "Your session has ended. Please login again.")
	ErrUserNotFound      = apperr.New(apperr.NotFound, "user-not-found", "User not found")
	ErrCurrentPassword   = apperr.New(apperr.InvalidArgument, "current-password-incorrect", "Current password is incorrect")
	ErrPasswordUnchanged = apperr.New(apperr.Validation, "password-unchanged", "New password must be different from the current password")
	ErrPermissionDenied  = apperr.New(apperr.PermissionDenied, "permission-denied", "You are not allowed to read this user")
	ErrMailUnavailable   = apperr.New(apperr.Unavailable, "mail-unavailable", "We could not send the e-mail. Please try again later.")
	ErrUserIDInvalid     = apperr.New(apperr.Validation, "user-id-invalid", "user_id must be a valid id")

	// LINE Login.
	ErrLineNotConfigured      = apperr.New(apperr.Unavailable, "line-not-configured", "LINE Login is not available")
	ErrLineCancelled          = apperr.New(apperr.InvalidArgument, "line-cancelled", "LINE login was cancelled")
	ErrLineStateInvalid       = apperr.New(apperr.InvalidArgument, "line-state-invalid", "Invalid or expired LINE login request. Please try again.")
	ErrLineCodeRequired       = apperr.New(apperr.Validation, "line-code-required", "code and state are required")
	ErrLineFailed             = apperr.New(apperr.InvalidArgument, "line-failed", "LINE login failed. Please try again.")
	ErrLineUnavailable        = apperr.New(apperr.Unavailable, "line-unavailable", "LINE is not reachable. Please try again later.")
	ErrLinkTokenInvalid       = apperr.New(apperr.InvalidArgument, "line-link-expired", "LINE link session expired. Please sign in with LINE again.")
	ErrLineLinkedOther        = apperr.New(apperr.AlreadyExists, "line-linked-elsewhere", "This LINE account is already linked to another user")
	ErrUserHasOtherLine       = apperr.New(apperr.AlreadyExists, "user-has-line", "This account is already linked to another LINE account")
	ErrTwoStepEnabledRequired = apperr.New(apperr.Validation, "two-step-enabled-required", "enabled is required (true or false)")
	ErrRedirectInvalid        = apperr.New(apperr.Validation, "redirect-invalid", "redirect_to must be a path of this site")
)

// RetryError is a rate-limit answer (429) that says when to retry.
type RetryError struct {
	Err        *apperr.Error
	RetryAfter time.Duration
}

// Error implements error.
func (e *RetryError) Error() string { return e.Err.Error() }

// ResendTooSoon returns the 429 for a resend within the minimum interval.
func ResendTooSoon(wait time.Duration) error {
	secs := int((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	e := *ErrResendTooSoonBase
	e.Message = fmt.Sprintf("Please wait %d seconds before requesting a new code.", secs)
	return &RetryError{Err: &e, RetryAfter: time.Duration(secs) * time.Second}
}

// ResendLimitReached returns the 429 for the hourly send limit.
func ResendLimitReached(wait time.Duration) error {
	mins := int((wait + time.Minute - 1) / time.Minute)
	if mins < 1 {
		mins = 1
	}
	e := *ErrResendHourlyBase
	unit := "minutes"
	if mins == 1 {
		unit = "minute"
	}
	e.Message = fmt.Sprintf("Too many codes requested. Please try again in %d %s.", mins, unit)
	return &RetryError{Err: &e, RetryAfter: wait}
}

// Unwrap lets errors.As find the *apperr.Error (for the mapper) and
// errors.Is match the base sentinels.
func (e *RetryError) Unwrap() error { return e.Err }

package app

import (
	"context"
	"errors"
	"strings"

	"bidradar/services/auth/internal/domain"
)

// Login is a password sign-in with a username or an e-mail.
type Login struct {
	Login    string
	Password string
	// Client identifies the caller for the per-client limit (its IP).
	Client string
}

// LoginResult is either a session or, with two-step verification, the
// e-mail a code was sent to.
type LoginResult struct {
	Message string
	// TwoStep is true when a code was e-mailed and no tokens were issued.
	TwoStep bool
	Email   string
	Session Session
}

// Login messages.
const (
	LoginSuccessMessage = "Login successful."
	LoginOTPSentMessage = "OTP sent to your email"
)

// LoginHandler checks a password in the bounded hashing pool (429 when it is
// full), with the same cost for unknown users, and then either signs in or
// starts the two-step challenge.
type LoginHandler struct{ c *core }

// Handle runs the use case.
func (h LoginHandler) Handle(ctx context.Context, cmd Login) (LoginResult, error) {
	login, err := domain.CheckLoginInput(cmd.Login, cmd.Password)
	if err != nil {
		return LoginResult{}, err
	}
	if strings.Contains(login, "@") {
		login = domain.NormalizeEmail(login)
	}
	u, err := h.c.store.UserByLogin(ctx, login)
	if err != nil && !errors.Is(err, domain.ErrUserNotFound) {
		return LoginResult{}, err
	}
	found := err == nil
	// The limit is per account whichever name was typed (username or
	// e-mail); an unknown login is limited by that name, the same way.
	account := "login:" + strings.ToLower(login)
	if found {
		account = "user:" + u.ID
	}
	if _, wait, err := h.c.store.BeginLogin(ctx, account, cmd.Client, h.c.now()); err != nil {
		return LoginResult{}, err
	} else if wait > 0 {
		return LoginResult{}, domain.LoginThrottled(wait)
	}
	// An unknown user (or one without a password) still pays for a dummy
	// verification: same timing, same answer.
	match, err := h.c.hasher.Verify(ctx, domain.NormalizePassword(cmd.Password), u.PasswordHash)
	if err != nil {
		if errors.Is(err, domain.ErrBusy) {
			return LoginResult{}, domain.ErrLoginBusy
		}
		return LoginResult{}, err
	}
	if !found || !match || !u.HasPassword() {
		return LoginResult{}, domain.ErrBadCredentials
	}
	if err := h.c.store.LoginSucceeded(ctx, account); err != nil {
		return LoginResult{}, err
	}
	if !u.Active {
		return LoginResult{}, domain.ErrAccountInactive
	}
	if u.TwoStep {
		err := h.c.issueCode(ctx, codeRequest{Purpose: domain.PurposeLogin, Email: u.Email, Name: u.Name, AuthAt: h.c.now()})
		// A code sent less than a minute ago is still valid: answer as if
		// it had just been sent rather than refusing a correct password.
		if err != nil && !resendTooSoon(err) {
			return LoginResult{}, err
		}
		return LoginResult{Message: LoginOTPSentMessage, TwoStep: true, Email: u.Email}, nil
	}
	s, err := h.c.startSession(ctx, u, domain.ProviderPassword, 0)
	if err != nil {
		return LoginResult{}, err
	}
	return LoginResult{Message: LoginSuccessMessage, Email: u.Email, Session: s}, nil
}

// VerifyLoginOTP completes a two-step login.
type VerifyLoginOTP struct {
	Email string
	OTP   string
}

// VerifyLoginOTPHandler checks the login code and signs in; the code is
// used up in the transaction that opens the session.
type VerifyLoginOTPHandler struct{ c *core }

// Handle runs the use case.
func (h VerifyLoginOTPHandler) Handle(ctx context.Context, cmd VerifyLoginOTP) (Session, error) {
	email, otp, err := checkEmailAndOTP(cmd.Email, cmd.OTP)
	if err != nil {
		return Session{}, err
	}
	code, u, err := h.c.verifyUserCode(ctx, domain.PurposeLogin, email, otp)
	if err != nil {
		return Session{}, err
	}
	if !u.Active {
		return Session{}, domain.ErrAccountInactive
	}
	return h.c.startSession(ctx, u, domain.ProviderPassword, code.ID)
}

// ResendLoginOTP asks for a new two-step code.
type ResendLoginOTP struct{ Email string }

// ResendLoginOTPMessage is the answer whether or not a code was sent.
const ResendLoginOTPMessage = "OTP sent to your email"

// ResendLoginOTPHandler re-sends a two-step code, but only within
// LoginChallengeTTL of a correct password for that e-mail: otherwise a code
// alone would be enough to sign in. Unknown e-mails and stale challenges get
// the same answer and the same throttle, without a mail.
type ResendLoginOTPHandler struct{ c *core }

// Handle runs the use case.
func (h ResendLoginOTPHandler) Handle(ctx context.Context, cmd ResendLoginOTP) (int, string, error) {
	email, err := checkEmail(cmd.Email)
	if err != nil {
		return 0, "", err
	}
	now := h.c.now()
	req := codeRequest{Purpose: domain.PurposeLogin, Email: email, Delivery: deliverNothing}
	authAt, err := h.c.store.LatestLoginAuth(ctx, email)
	if err != nil {
		return 0, "", err
	}
	if !authAt.IsZero() && now.Sub(authAt) < domain.LoginChallengeTTL {
		u, err := h.c.store.UserByEmail(ctx, email)
		if err == nil && u.Active && u.TwoStep {
			req.Delivery, req.Name, req.AuthAt = deliverCode, u.Name, authAt
		} else if err != nil && !errors.Is(err, domain.ErrUserNotFound) {
			return 0, "", err
		}
	}
	if err := h.c.issueCode(ctx, req); err != nil {
		return 0, "", err
	}
	return expiresIn, ResendLoginOTPMessage, nil
}

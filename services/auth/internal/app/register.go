package app

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"bidradar/services/auth/internal/domain"
)

// Register is a sign-up request.
type Register struct {
	Username string
	Email    string
	Password string
	Name     string
}

// RegisterResult is the same for known and unknown e-mails.
type RegisterResult struct {
	Message   string
	Email     string
	ExpiresIn int
}

// RegisterMessage is the answer to every accepted registration.
const RegisterMessage = "Registration successful. Please check your email for the 6-digit verification code."

// RegisterHandler creates an inactive account and e-mails a registration
// code. The answer never says whether the e-mail already had an account:
//   - new e-mail: account created, code sent;
//   - e-mail of an inactive account: its data is kept (an unproven e-mail
//     must not let anyone replace the password) and a fresh code is sent;
//   - e-mail of an active account: a "someone tried to register" notice.
//
// The password is hashed on every path so that the timing matches. A taken
// username answers 409: that reveals nothing about e-mails.
type RegisterHandler struct{ c *core }

// Handle runs the use case.
func (h RegisterHandler) Handle(ctx context.Context, cmd Register) (RegisterResult, error) {
	nu, err := domain.ValidateRegistration(cmd.Username, cmd.Email, cmd.Password, cmd.Name)
	if err != nil {
		return RegisterResult{}, err
	}
	ok := RegisterResult{Message: RegisterMessage, Email: nu.Email, ExpiresIn: expiresIn}
	if taken, err := h.c.store.UsernameTaken(ctx, nu.Username); err != nil {
		return RegisterResult{}, err
	} else if taken {
		return RegisterResult{}, domain.ErrUsernameTaken
	}
	hash, err := h.c.hasher.Hash(ctx, domain.NormalizePassword(nu.Password))
	if err != nil {
		return RegisterResult{}, err
	}

	existing, err := h.c.store.UserByEmail(ctx, nu.Email)
	switch {
	case err == nil:
		return ok, h.existing(ctx, existing)
	case !errors.Is(err, domain.ErrUserNotFound):
		return RegisterResult{}, err
	}

	now := h.c.now()
	u := domain.User{
		ID: newID(), Username: nu.Username, Email: nu.Email, Name: nu.Name,
		PasswordHash: hash, CreatedAt: now, PasswordChangedAt: now,
	}
	err = h.c.store.CreateUser(ctx, u, domain.UserRegistered{
		EventID: uuid.NewString(), OccurredAt: now, UserID: u.ID, Email: u.Email, Username: u.Username, Name: u.Name,
	})
	switch {
	case errors.Is(err, domain.ErrEmailTaken):
		// Lost a race with another registration of the same e-mail.
		existing, err := h.c.store.UserByEmail(ctx, nu.Email)
		if err != nil {
			return RegisterResult{}, err
		}
		return ok, h.existing(ctx, existing)
	case err != nil:
		return RegisterResult{}, err
	}
	if err := h.c.issueCode(ctx, codeRequest{Purpose: domain.PurposeRegistration, Email: u.Email, Name: u.Name}); err != nil {
		return RegisterResult{}, err
	}
	return ok, nil
}

func (h RegisterHandler) existing(ctx context.Context, u domain.User) error {
	d := deliverCode
	if u.Active {
		d = deliverNotice
	}
	err := h.c.issueCode(ctx, codeRequest{Purpose: domain.PurposeRegistration, Email: u.Email, Name: u.Name, Delivery: d})
	var re *domain.RetryError
	if errors.As(err, &re) {
		// A new e-mail is never throttled here, so neither is a known one:
		// the earlier code stays valid, and the resend endpoint reports
		// the throttle to whoever asks for another code.
		return nil
	}
	return err
}

// VerifyRegistration activates an account with its registration code.
type VerifyRegistration struct {
	Email string
	OTP   string
}

// VerifyRegistrationMessage contains 'User verified' as the client expects.
const VerifyRegistrationMessage = "User verified successfully"

// VerifyRegistrationHandler checks the code, activates the account (with a
// UserVerified event in the same transaction) and signs the user in.
type VerifyRegistrationHandler struct{ c *core }

// Handle runs the use case.
func (h VerifyRegistrationHandler) Handle(ctx context.Context, cmd VerifyRegistration) (Session, error) {
	email, otp, err := checkEmailAndOTP(cmd.Email, cmd.OTP)
	if err != nil {
		return Session{}, err
	}
	code, u, err := h.c.verifyUserCode(ctx, domain.PurposeRegistration, email, otp)
	if err != nil {
		return Session{}, err
	}
	now := h.c.now()
	u, err = h.c.store.ActivateUser(ctx, u.ID, code.ID, domain.UserVerified{
		EventID: uuid.NewString(), OccurredAt: now, UserID: u.ID, Email: u.Email,
	})
	if err != nil {
		return Session{}, err
	}
	return h.c.startSession(ctx, u, domain.ProviderPassword, 0)
}

// ResendRegistrationOTP asks for a new registration (activation) code.
type ResendRegistrationOTP struct{ Email string }

// ResendRegistrationOTPMessage is the answer whether or not a code was sent.
const ResendRegistrationOTPMessage = "If the account is waiting for activation, a new verification code has been sent to your email."

// ResendRegistrationOTPHandler sends a fresh code to an inactive account. It
// answers the same for unknown and already active e-mails (no mail then),
// with the same throttle.
type ResendRegistrationOTPHandler struct{ c *core }

// Handle runs the use case.
func (h ResendRegistrationOTPHandler) Handle(ctx context.Context, cmd ResendRegistrationOTP) (int, string, error) {
	email, err := checkEmail(cmd.Email)
	if err != nil {
		return 0, "", err
	}
	req := codeRequest{Purpose: domain.PurposeRegistration, Email: email, Delivery: deliverNothing}
	u, err := h.c.store.UserByEmail(ctx, email)
	switch {
	case err == nil && !u.Active:
		req.Delivery, req.Name = deliverCode, u.Name
	case err != nil && !errors.Is(err, domain.ErrUserNotFound):
		return 0, "", err
	}
	if err := h.c.issueCode(ctx, req); err != nil {
		return 0, "", err
	}
	return expiresIn, ResendRegistrationOTPMessage, nil
}

func checkEmail(s string) (string, error) {
	email := domain.NormalizeEmail(s)
	if err := domain.ValidateEmail(email); err != nil {
		return "", err
	}
	return email, nil
}

func checkEmailAndOTP(emailIn, otpIn string) (string, string, error) {
	email, err := checkEmail(emailIn)
	if err != nil {
		return "", "", err
	}
	otp, err := domain.CheckOTPInput(otpIn)
	if err != nil {
		return "", "", err
	}
	return email, otp, nil
}

// Package app holds the auth service's use cases, one handler per use case.
// Handlers depend on the domain and on the interfaces it declares for what
// lies outside (store, mailer, hasher, signer, LINE); they never see protobuf or SQL.
package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"bidradar/services/auth/internal/domain"
)

// Deps are the dependencies of every use case.
type Deps struct {
	Store  domain.Store
	Hasher domain.PasswordHasher
	// Mailer queues mail; the queue's worker sends it.
	Mailer  domain.Mailer
	Signer  domain.AccessSigner
	Line    domain.LineProvider
	OTP     domain.OTPHasher
	Rotator domain.Rotator
	Log     *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// SupportEmail receives contact-us messages (SUPPORT_EMAIL); unset:
	// they are only stored.
	SupportEmail string
}

// App is the set of use cases.
type App struct {
	Register              RegisterHandler
	VerifyRegistration    VerifyRegistrationHandler
	ResendRegistrationOTP ResendRegistrationOTPHandler
	Login                 LoginHandler
	VerifyLoginOTP        VerifyLoginOTPHandler
	ResendLoginOTP        ResendLoginOTPHandler
	ForgotPassword        ForgotPasswordHandler
	ResetPassword         ResetPasswordHandler
	Refresh               RefreshHandler
	Logout                LogoutHandler
	GetUser               GetUserHandler
	SecuritySettings      SecuritySettingsHandler
	UpdateTwoStep         UpdateTwoStepHandler
	ChangePassword        ChangePasswordHandler
	LoginOptions          LoginOptionsHandler
	LineAuthorize         LineAuthorizeHandler
	LineCallback          LineCallbackHandler
	LineLinkSendOTP       LineLinkSendOTPHandler
	LineLinkVerify        LineLinkVerifyHandler
	ListSessions          ListSessionsHandler
	EndSession            EndSessionHandler
	EndAllSessions        EndAllSessionsHandler
	UpdateProfile         UpdateProfileHandler
	RequestDeletion       RequestAccountDeletionHandler
	DeleteAccount         DeleteAccountHandler
	SubmitContact         SubmitContactHandler
	RequestEmailChange    RequestEmailChangeHandler
	ConfirmEmailChange    ConfirmEmailChangeHandler
	// Upkeep, for the service's own checks and jobs.
	SessionEnded SessionEndedHandler
	Cleanup      CleanupHandler
}

// New wires the use cases; it rejects missing dependencies.
func New(d Deps) (*App, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("app: nil Store")
	case d.Hasher == nil:
		return nil, errors.New("app: nil Hasher")
	case d.Mailer == nil:
		return nil, errors.New("app: nil Mailer")
	case d.Signer == nil:
		return nil, errors.New("app: nil Signer")
	case d.Line == nil:
		return nil, errors.New("app: nil Line provider")
	case d.Log == nil:
		return nil, errors.New("app: nil Log")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if !d.OTP.Ready() || !d.Rotator.Ready() {
		return nil, errors.New("app: OTP hasher and refresh rotator need keys")
	}
	c := &core{
		store: d.Store, hasher: d.Hasher, mailer: d.Mailer, signer: d.Signer, line: d.Line,
		otp: d.OTP, rotator: d.Rotator, log: d.Log, now: d.Now, supportEmail: d.SupportEmail,
	}
	return &App{
		Register:              RegisterHandler{c},
		VerifyRegistration:    VerifyRegistrationHandler{c},
		ResendRegistrationOTP: ResendRegistrationOTPHandler{c},
		Login:                 LoginHandler{c},
		VerifyLoginOTP:        VerifyLoginOTPHandler{c},
		ResendLoginOTP:        ResendLoginOTPHandler{c},
		ForgotPassword:        ForgotPasswordHandler{c},
		ResetPassword:         ResetPasswordHandler{c},
		Refresh:               RefreshHandler{c},
		Logout:                LogoutHandler{c},
		GetUser:               GetUserHandler{c},
		SecuritySettings:      SecuritySettingsHandler{c},
		UpdateTwoStep:         UpdateTwoStepHandler{c},
		ChangePassword:        ChangePasswordHandler{c},
		LoginOptions:          LoginOptionsHandler{c},
		LineAuthorize:         LineAuthorizeHandler{c},
		LineCallback:          LineCallbackHandler{c},
		LineLinkSendOTP:       LineLinkSendOTPHandler{c},
		LineLinkVerify:        LineLinkVerifyHandler{c},
		ListSessions:          ListSessionsHandler{c},
		EndSession:            EndSessionHandler{c},
		EndAllSessions:        EndAllSessionsHandler{c},
		UpdateProfile:         UpdateProfileHandler{c},
		RequestDeletion:       RequestAccountDeletionHandler{c},
		DeleteAccount:         DeleteAccountHandler{c},
		SubmitContact:         SubmitContactHandler{c},
		RequestEmailChange:    RequestEmailChangeHandler{c},
		ConfirmEmailChange:    ConfirmEmailChangeHandler{c},
		SessionEnded:          SessionEndedHandler{c},
		Cleanup:               CleanupHandler{c},
	}, nil
}

// core is what the handlers share: ports plus the code and session helpers.
type core struct {
	store   domain.Store
	hasher  domain.PasswordHasher
	mailer  domain.Mailer
	signer  domain.AccessSigner
	line    domain.LineProvider
	otp     domain.OTPHasher
	rotator domain.Rotator
	log     *slog.Logger
	now     func() time.Time

	supportEmail string
}

// Session is a signed-in result: the user and a token pair.
type Session struct {
	User         domain.User
	Provider     domain.Provider
	FamilyID     string
	AccessToken  string
	RefreshToken string
	// ExpiresIn is the access token's lifetime in seconds.
	ExpiresIn int
}

// newID returns a time-ordered UUID (v7) for rows.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// startSession opens a new refresh-token family for u and signs its first
// access token. consumeCodeID, when non-zero, is used up atomically.
func (c *core) startSession(ctx context.Context, u domain.User, p domain.Provider, consumeCodeID int64) (Session, error) {
	now := c.now()
	refresh := domain.NewRefreshToken()
	fam, err := c.store.StartSession(ctx, domain.NewSession{
		FamilyID: newID(), UserID: u.ID, Provider: p, TokenHash: domain.HashToken(refresh),
		Now: now, ConsumeCodeID: consumeCodeID, Device: deviceFrom(ctx),
	})
	if err != nil {
		return Session{}, err
	}
	return c.sessionFor(u, fam, refresh, now)
}

func (c *core) sessionFor(u domain.User, fam domain.Family, refresh string, now time.Time) (Session, error) {
	access, exp, err := c.signer.SignAccess(domain.AccessClaims{
		UserID: u.ID, Email: u.Email, Username: u.Username, Provider: fam.Provider, FamilyID: fam.ID,
	}, now)
	if err != nil {
		return Session{}, err
	}
	return Session{
		User: u, Provider: fam.Provider, FamilyID: fam.ID, AccessToken: access, RefreshToken: refresh,
		ExpiresIn: int(exp.Sub(now).Round(time.Second) / time.Second),
	}, nil
}

package domain

import (
	"context"
	"time"
)

// UserRegistered is published when an account is created.
type UserRegistered struct {
	EventID    string
	OccurredAt time.Time
	UserID     string
	Email      string
	Username   string
	Name       string
}

// UserVerified is published when an account becomes active.
type UserVerified struct {
	EventID    string
	OccurredAt time.Time
	UserID     string
	Email      string
}

// NewSession describes a sign-in: a new refresh-token family and its first
// token. ConsumeCodeID, when non-zero, is a one-time code used up in the
// same transaction (a two-step login).
type NewSession struct {
	FamilyID      string
	UserID        string
	Provider      Provider
	TokenHash     []byte
	Now           time.Time
	ConsumeCodeID int64
	// Device is the client's User-Agent, shown in the user's session list.
	Device string
}

// NewCode is a code to store. A nil HMAC records a send that carries no
// usable code (an answer to an unknown e-mail, or a notice), so that the
// throttle behaves the same whether or not an account exists.
type NewCode struct {
	Purpose Purpose
	Email   string
	HMAC    []byte
	AuthAt  time.Time
	// Owner is the account asking for an e-mail change code: it may ask
	// for at most EmailChangeAddressesPerHour different addresses an hour.
	Owner string
}

// LineState is a pending LINE authorization (state, nonce, PKCE).
type LineState struct {
	StateHash    []byte
	Nonce        string
	CodeVerifier string
	RedirectTo   string
	UserID       string // the signed-in user who asked to link, if any
	CreatedAt    time.Time
	ExpiresAt    time.Time
}

// LineIdentity is what a verified LINE ID token says about its user.
type LineIdentity struct {
	LineID     string
	Email      string
	Name       string
	PictureURL string
}

// LinkRequest is a verified LINE identity waiting to be linked to an
// account by an e-mailed code.
type LinkRequest struct {
	TokenHash []byte
	Identity  LineIdentity
	ExpiresAt time.Time
}

// LineLinkCompletion links a LINE identity to the account of Email, or
// creates an active account for it (NewUser) when there is none, and signs
// in, all in one transaction.
type LineLinkCompletion struct {
	CodeID   int64
	LinkHash []byte
	Email    string
	Identity LineIdentity
	// NewUser is created when no account has Email (ID, Username, Name...).
	NewUser User
	// Session.UserID and the events' UserID are filled in by the store
	// with the linked account's id.
	Session    NewSession
	Registered UserRegistered // recorded only when NewUser was created
	Verified   UserVerified   // recorded when an account became active
}

// Store is the auth service's persistence port. Implementations translate
// their errors into the sentinels of this package.
type Store interface {
	LoginLimiter
	AccountStore
	// Users.
	UserByID(ctx context.Context, id string) (User, error)
	UserByEmail(ctx context.Context, email string) (User, error)
	// UserByLogin finds by e-mail (when login contains '@') or username,
	// both case-insensitively.
	UserByLogin(ctx context.Context, login string) (User, error)
	UserByLineID(ctx context.Context, lineID string) (User, error)
	UsernameTaken(ctx context.Context, username string) (bool, error)
	// CreateUser inserts u and its UserRegistered event. It answers
	// ErrUsernameTaken or ErrEmailTaken on conflicts.
	CreateUser(ctx context.Context, u User, ev UserRegistered) error
	// ActivateUser consumes code codeID, activates the user and records ev.
	ActivateUser(ctx context.Context, userID string, codeID int64, ev UserVerified) (User, error)
	SetTwoStep(ctx context.Context, userID string, enabled bool) error
	// SetPassword stores a new hash and revokes every family of the user
	// except keepFamilyID (empty: all). consumeCodeID, when non-zero, is used
	// up in the same transaction.
	SetPassword(ctx context.Context, userID, hash string, keepFamilyID string, consumeCodeID int64, now time.Time) error

	// One-time codes.
	// IssueCode serialises issuers of one (purpose, e-mail), applies the
	// send throttle (SendHistory.CheckSend at now), invalidates older codes
	// and stores c valid until now+OTPTTL.
	IssueCode(ctx context.Context, c NewCode, now time.Time) (OTPCode, error)
	// DailyFailures counts wrong submissions for (purpose, e-mail) since.
	DailyFailures(ctx context.Context, p Purpose, email string, since time.Time) (int, error)
	// SubmitCode atomically increments the attempts of the live code of
	// (purpose, e-mail) and returns it; ErrInvalidCode when there is none.
	SubmitCode(ctx context.Context, p Purpose, email string) (OTPCode, error)
	// RecordFailure counts one wrong submission of code id.
	RecordFailure(ctx context.Context, id int64, now time.Time) error
	// ConsumeCode marks code id used; ErrInvalidCode if it already was.
	ConsumeCode(ctx context.Context, id int64, now time.Time) error
	// LatestLoginAuth returns when the password was last checked for the
	// login code chain of email (zero if never).
	LatestLoginAuth(ctx context.Context, email string) (time.Time, error)

	// Sessions.
	StartSession(ctx context.Context, s NewSession) (Family, error)
	// Refresh applies DecideRefresh to the presented token under a lock on
	// its family and, when allowed, returns the family and the child token
	// (new or, in the grace period, the current one).
	Refresh(ctx context.Context, token string, rot Rotator, now time.Time) (Family, string, error)
	// RevokeByToken revokes the family of a refresh token, if any.
	RevokeByToken(ctx context.Context, token string, now time.Time) error
	// RevokeFamily ends the session an access token names (the user's own).
	RevokeFamily(ctx context.Context, familyID, userID string, now time.Time) error
	FamilyActive(ctx context.Context, familyID string, now time.Time) (bool, error)
	// FamilyEnded reports whether a family was revoked or has expired (one
	// that no longer exists, its user deleted, has not ended).
	FamilyEnded(ctx context.Context, familyID string, now time.Time) (bool, error)
	// Cleanup deletes what can no longer be used at now: old codes, expired
	// LINE states and link requests, long-ended families.
	Cleanup(ctx context.Context, now time.Time) error

	// LINE.
	SaveLineState(ctx context.Context, s LineState) error
	// TakeLineState deletes and returns the unexpired state; ErrLineStateInvalid otherwise.
	TakeLineState(ctx context.Context, stateHash []byte, now time.Time) (LineState, error)
	SaveLinkRequest(ctx context.Context, r LinkRequest) error
	LinkRequest(ctx context.Context, tokenHash []byte, now time.Time) (LinkRequest, error)
	// LinkLine sets the LINE id of a user (ErrLineLinkedOther, ErrUserHasOtherLine).
	LinkLine(ctx context.Context, userID string, id LineIdentity) (User, error)
	CompleteLineLink(ctx context.Context, c LineLinkCompletion) (User, Family, error)
}

package domain

import (
	"context"
	"time"
)

// What the use cases need from outside the service, implemented by
// internal/adapters and wired by authsvc (the store is in repository.go and
// account.go, the OTP and refresh keys in their own files).

// Mail is one message to send.
type Mail struct {
	To      string
	Subject string
	Text    string
	HTML    string
}

// Mailer sends e-mail. The use cases' Mailer queues it (one INSERT, so a
// request that mails takes as long as one that does not); the job queue's
// worker (pkg/queue) sends it afterwards, with retries.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// PasswordHasher hashes and checks passwords in a bounded pool. Both
// methods answer ErrBusy when the pool and its queue are full.
type PasswordHasher interface {
	Hash(ctx context.Context, password string) (string, error)
	// Verify checks password against a PHC string. An empty phc runs a
	// dummy verification of the same cost and reports false, so unknown
	// users take as long as known ones.
	Verify(ctx context.Context, password, phc string) (bool, error)
}

// AccessClaims are the claims of an access token.
type AccessClaims struct {
	UserID   string
	Email    string
	Username string
	Provider Provider
	FamilyID string
}

// AccessSigner issues signed access tokens.
type AccessSigner interface {
	SignAccess(c AccessClaims, now time.Time) (token string, expiresAt time.Time, err error)
}

// LineProvider is LINE Login v2.1.
type LineProvider interface {
	// Configured reports whether a channel is set up.
	Configured() bool
	// AuthorizeURL builds the authorization request URL.
	AuthorizeURL(state, nonce, codeChallenge string) string
	// Authenticate exchanges an authorization code (with its PKCE verifier)
	// and verifies the ID token against nonce.
	Authenticate(ctx context.Context, code, codeVerifier, nonce string) (LineIdentity, error)
}

package domain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// Session and token rules (docs/architecture.md#tokens-and-sessions).
const (
	AccessTokenTTL = 15 * time.Minute
	// FamilyLifetime is the absolute life of a refresh-token family: a
	// session ends 7 days after sign-in, however often it is refreshed.
	FamilyLifetime = 7 * 24 * time.Hour
	// RefreshGrace is how long the parent of the active refresh token stays
	// usable, so that concurrent tabs and queued 401 retries all succeed.
	RefreshGrace = 10 * time.Second
	// CookieMaxAge is the lifetime of both cookies (604800 s,
	// docs/product.md#business-constants-and-limits).
	CookieMaxAge = 604800
	// RefreshTokenBytes is the entropy of a refresh token (256 bits).
	RefreshTokenBytes = 32
)

// Provider is how a session was started.
type Provider string

// Session providers.
const (
	ProviderPassword Provider = "password"
	ProviderLine     Provider = "line"
)

// Family is a refresh-token family: one sign-in and all its rotations.
type Family struct {
	ID        string
	UserID    string
	Provider  Provider
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt time.Time
}

// RefreshToken is the stored state of one refresh token (its SHA-256 only).
type RefreshToken struct {
	Hash      []byte
	FamilyID  string
	CreatedAt time.Time
	// RotatedAt is when this token was exchanged for its child; zero while
	// it is the family's active token.
	RotatedAt time.Time
	// ChildHash is the hash of the token issued in exchange for this one.
	ChildHash []byte
	// ChildActive reports whether the child is still the active token.
	ChildActive bool
}

// RefreshDecision is what to do with a presented refresh token.
type RefreshDecision int

// Possible decisions.
const (
	// RefreshRotate: the token is active; issue its child.
	RefreshRotate RefreshDecision = iota
	// RefreshGraceReplay: the token is the parent of the active token and
	// was rotated less than RefreshGrace ago; answer with the current child.
	RefreshGraceReplay
	// RefreshRevokeFamily: a rotated token was reused outside the grace:
	// assume theft and revoke the whole family.
	RefreshRevokeFamily
	// RefreshRejectRevoked: the family was already revoked.
	RefreshRejectRevoked
	// RefreshRejectExpired: the family is past its absolute lifetime.
	RefreshRejectExpired
)

// DecideRefresh applies the rotation rules to a presented token of family f
// at now.
func DecideRefresh(f Family, t RefreshToken, now time.Time) RefreshDecision {
	switch {
	case !f.RevokedAt.IsZero():
		return RefreshRejectRevoked
	case !now.Before(f.ExpiresAt):
		return RefreshRejectExpired
	case t.RotatedAt.IsZero():
		return RefreshRotate
	case t.ChildActive && now.Sub(t.RotatedAt) < RefreshGrace:
		return RefreshGraceReplay
	default:
		return RefreshRevokeFamily
	}
}

// Err maps a rejecting decision to the client error.
func (d RefreshDecision) Err() error {
	switch d {
	case RefreshRejectRevoked:
		return ErrSessionRevoked
	case RefreshRejectExpired:
		return ErrSessionExpired
	case RefreshRevokeFamily:
		return ErrRefreshReused
	}
	return nil
}

// NewRefreshToken returns a fresh opaque 256-bit token (base64url).
func NewRefreshToken() string {
	var b [RefreshTokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is the stored form of an opaque token: SHA-256.
func HashToken(token string) []byte {
	s := sha256.Sum256([]byte(token))
	return s[:]
}

// ValidRefreshTokenFormat is a cheap shape check before any lookup.
func ValidRefreshTokenFormat(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(RefreshTokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// Rotator derives the child of a refresh token with a server key:
// child = HMAC-SHA256(key, parent). Because the child is a function of the
// parent, a replay of the parent within the grace period can be answered
// with the same child without keeping any token in clear text, and nobody
// without the key can predict it.
type Rotator struct{ key []byte }

// NewRotator returns a Rotator keyed with key (at least 32 bytes).
func NewRotator(key []byte) (Rotator, error) {
	if len(key) < 32 {
		return Rotator{}, fmt.Errorf("refresh rotation key must be at least 32 bytes, got %d", len(key))
	}
	return Rotator{key: append([]byte(nil), key...)}, nil
}

// Ready reports whether the rotator has a key.
func (r Rotator) Ready() bool { return len(r.key) > 0 }

// Child returns the refresh token that replaces parent.
func (r Rotator) Child(parent string) string {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte("bidradar-refresh-child-v1\x00"))
	m.Write([]byte(parent))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// SafeRedirect returns p when it is a local path ("/search", "/a?b=c"),
// "/" when it is empty, and an error for anything that could leave the site.
func SafeRedirect(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "/", nil
	}
	if len(p) > 512 || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n\t") || strings.HasPrefix(p, "/\\") {
		return "", ErrRedirectInvalid
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "", ErrRedirectInvalid
		}
	}
	return p, nil
}

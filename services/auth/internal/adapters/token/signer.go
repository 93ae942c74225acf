// Package token issues the access tokens: EdDSA JWTs through pkg/authn,
// whose jti carries the refresh-token family ("<family id>.<random>") so
// that a request can name its own session (ChangePassword keeps it).
package token

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"bidradar/pkg/authn"
	"bidradar/services/auth/internal/domain"
)

// Signer implements domain.AccessSigner.
type Signer struct {
	s   *authn.Signer
	ttl time.Duration
}

var _ domain.AccessSigner = (*Signer)(nil)

// KeyID derives the key id of a public key: base64url of the first 12
// bytes of its SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	s := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(s[:12])
}

// NewSigner returns a signer for the Ed25519 seed (32 bytes) issuing tokens
// valid for domain.AccessTokenTTL.
func NewSigner(seed []byte) (*Signer, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("token: signing key seed must be 32 bytes")
	}
	priv := ed25519.NewKeyFromSeed(seed)
	return &Signer{s: authn.NewSigner(priv, KeyID(priv.Public().(ed25519.PublicKey))), ttl: domain.AccessTokenTTL}, nil
}

// KeyID returns the key id of the signing key.
func (s *Signer) KeyID() string { return s.s.KeyID() }

// PublicKey returns the verification key.
func (s *Signer) PublicKey() ed25519.PublicKey { return s.s.PublicKey() }

// SignAccess implements domain.AccessSigner.
func (s *Signer) SignAccess(c domain.AccessClaims, now time.Time) (string, time.Time, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, err
	}
	exp := now.Add(s.ttl)
	tok, err := s.s.Sign(authn.Claims{
		UserID: c.UserID, Email: c.Email, Username: c.Username, Provider: string(c.Provider),
		ID: c.FamilyID + "." + hex.EncodeToString(b[:]), IssuedAt: now, ExpiresAt: exp,
	})
	return tok, exp, err
}

// Package authn issues and verifies BidRadar access tokens and puts the
// verified claims into request contexts.
//
// Access tokens are compact JWS (JWT) signed with Ed25519 ("EdDSA") by the
// auth service; every other service verifies them with the auth service's
// public keys. The format is hand-written on purpose: only one algorithm is
// ever accepted, so the usual JWT algorithm-confusion bugs cannot happen.
package authn

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Issuer and Audience are fixed: one auth service issues tokens for the
// BidRadar services.
const (
	Issuer   = "bidradar-auth"
	Audience = "bidradar"
)

// MaxTokenSize bounds the work done on untrusted input.
const MaxTokenSize = 4 << 10

// DefaultLeeway tolerates small clock differences between services.
const DefaultLeeway = 30 * time.Second

// Providers of an account's login.
const (
	ProviderPassword = "password"
	ProviderLINE     = "line"
)

// Claims are the verified facts an access token carries.
type Claims struct {
	UserID    string // sub
	Email     string
	Username  string // preferred_username
	Provider  string // "password" or "line"
	ID        string // jti
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Verification errors. Every failure wraps ErrInvalidToken; an expired
// token also wraps ErrTokenExpired, so a client can be told to refresh.
var (
	ErrInvalidToken = errors.New("authn: invalid token")
	ErrTokenExpired = errors.New("authn: token expired")
)

var b64 = base64.RawURLEncoding.Strict()

type header struct {
	Alg  string          `json:"alg"`
	Typ  string          `json:"typ,omitempty"`
	Kid  string          `json:"kid"`
	Crit json.RawMessage `json:"crit,omitempty"`
}

type payload struct {
	Sub      string          `json:"sub"`
	Email    string          `json:"email,omitempty"`
	Username string          `json:"preferred_username,omitempty"`
	Prov     string          `json:"prov,omitempty"`
	Jti      string          `json:"jti,omitempty"`
	Iat      int64           `json:"iat"`
	Exp      int64           `json:"exp"`
	Nbf      *int64          `json:"nbf,omitempty"`
	Iss      string          `json:"iss"`
	Aud      json.RawMessage `json:"aud"`
}

// Signer signs access tokens with one Ed25519 key. Only the auth service
// holds one.
type Signer struct {
	priv ed25519.PrivateKey
	kid  string
}

// NewSigner returns a Signer for priv, announced under key id kid.
func NewSigner(priv ed25519.PrivateKey, kid string) *Signer {
	return &Signer{priv: priv, kid: kid}
}

// KeyID returns the key id written into token headers.
func (s *Signer) KeyID() string { return s.kid }

// PublicKey returns the key verifiers need, or nil if the key is malformed.
func (s *Signer) PublicKey() ed25519.PublicKey {
	if len(s.priv) != ed25519.PrivateKeySize {
		return nil
	}
	return s.priv.Public().(ed25519.PublicKey)
}

// Sign returns the compact JWS for c. UserID, IssuedAt and a later
// ExpiresAt are required.
func (s *Signer) Sign(c Claims) (string, error) {
	switch {
	case len(s.priv) != ed25519.PrivateKeySize:
		return "", errors.New("authn: signer has no valid Ed25519 private key")
	case s.kid == "":
		return "", errors.New("authn: signer has no key id")
	case c.UserID == "":
		return "", errors.New("authn: claims without user id")
	case c.IssuedAt.IsZero() || !c.ExpiresAt.After(c.IssuedAt):
		return "", errors.New("authn: claims need IssuedAt before ExpiresAt")
	}
	h, err := json.Marshal(header{Alg: "EdDSA", Typ: "JWT", Kid: s.kid})
	if err != nil {
		return "", err
	}
	aud, _ := json.Marshal(Audience)
	p, err := json.Marshal(payload{
		Sub: c.UserID, Email: c.Email, Username: c.Username, Prov: c.Provider, Jti: c.ID,
		Iat: c.IssuedAt.Unix(), Exp: c.ExpiresAt.Unix(), Iss: Issuer, Aud: aud,
	})
	if err != nil {
		return "", err
	}
	signing := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	sig := ed25519.Sign(s.priv, []byte(signing))
	return signing + "." + b64.EncodeToString(sig), nil
}

// KeySource finds a verification key by key id.
type KeySource interface {
	PublicKey(kid string) (ed25519.PublicKey, bool)
}

// Verifier checks access tokens. It is safe for concurrent use.
type Verifier struct {
	keys   KeySource
	leeway time.Duration
	ended  *EndedSessions
}

// VerifierOption configures a Verifier.
type VerifierOption func(*Verifier)

// WithLeeway sets the tolerated clock skew for exp, nbf and iat (default
// 30 s).
func WithLeeway(d time.Duration) VerifierOption {
	return func(v *Verifier) { v.leeway = d }
}

// NewVerifier returns a Verifier trusting the keys in keys.
func NewVerifier(keys KeySource, opts ...VerifierOption) *Verifier {
	v := &Verifier{keys: keys, leeway: DefaultLeeway}
	for _, o := range opts {
		o(v)
	}
	return v
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidToken}, args...)...)
}

// Verify checks token strictly (size, exactly three parts, alg EdDSA, known
// kid, signature, iss, aud, exp/nbf/iat against now) and returns its claims.
func (v *Verifier) Verify(token string, now time.Time) (Claims, error) {
	if len(token) > MaxTokenSize {
		return Claims{}, invalid("longer than %d bytes", MaxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, invalid("want 3 parts, got %d", len(parts))
	}
	hb, err := b64.DecodeString(parts[0])
	if err != nil {
		return Claims{}, invalid("header encoding")
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil {
		return Claims{}, invalid("header json")
	}
	if h.Alg != "EdDSA" {
		return Claims{}, invalid("alg %q not allowed", h.Alg)
	}
	if len(h.Crit) != 0 {
		return Claims{}, invalid("unsupported crit header")
	}
	if v.keys == nil {
		return Claims{}, invalid("no keys")
	}
	pub, ok := v.keys.PublicKey(h.Kid)
	if !ok || len(pub) != ed25519.PublicKeySize {
		return Claims{}, invalid("unknown kid %q", h.Kid)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Claims{}, invalid("signature encoding")
	}
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return Claims{}, invalid("bad signature")
	}

	// Only signed bytes are parsed from here on.
	pb, err := b64.DecodeString(parts[1])
	if err != nil {
		return Claims{}, invalid("payload encoding")
	}
	var p payload
	if err := json.Unmarshal(pb, &p); err != nil {
		return Claims{}, invalid("payload json")
	}
	if p.Iss != Issuer {
		return Claims{}, invalid("issuer %q", p.Iss)
	}
	if !hasAudience(p.Aud) {
		return Claims{}, invalid("audience")
	}
	if p.Sub == "" {
		return Claims{}, invalid("no subject")
	}
	if p.Exp == 0 {
		return Claims{}, invalid("no expiry")
	}
	exp := time.Unix(p.Exp, 0).UTC()
	if !now.Before(exp.Add(v.leeway)) {
		return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, ErrTokenExpired)
	}
	if p.Nbf != nil && now.Add(v.leeway).Before(time.Unix(*p.Nbf, 0)) {
		return Claims{}, invalid("not valid yet")
	}
	iat := time.Unix(p.Iat, 0).UTC()
	if now.Add(v.leeway).Before(iat) {
		return Claims{}, invalid("issued in the future")
	}
	c := Claims{
		UserID: p.Sub, Email: p.Email, Username: p.Username, Provider: p.Prov, ID: p.Jti,
		IssuedAt: iat, ExpiresAt: exp,
	}
	if v.ended.Ended(FamilyID(c)) {
		return Claims{}, ErrSessionEnded
	}
	return c, nil
}

// EndedSessions returns the verifier's set of ended sessions (nil: none kept).
func (v *Verifier) EndedSessions() *EndedSessions { return v.ended }

// hasAudience accepts "aud" as a string or an array holding Audience, as
// RFC 7519 allows both.
func hasAudience(raw json.RawMessage) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == Audience
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, a := range many {
			if a == Audience {
				return true
			}
		}
	}
	return false
}

package authn

// Team key tokens: how the gateway tells a service that a call was made with
// a team API key (X-API-Key) it has verified with the teams service
// (docs/architecture.md#teams). The key itself never travels past the
// gateway; the service sees a compact JWS signed with HMAC-SHA256 under the
// shared SERVICE_TOKEN_KEY: header {"alg":"HS256","typ":"teamkey+jwt"},
// claims iss "bidradar-gateway", aud the called service, sub the key's id,
// team, scopes, iat and exp one minute later. Neither a service token nor an
// access token verifies as one (their headers differ), nor one as them.

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"bidradar/pkg/access"
	"bidradar/pkg/apperr"
)

// Team key token constants.
const (
	// TeamKeyHeader carries the token from the gateway to the service.
	TeamKeyHeader = "X-Team-Key-Token"
	// APIKeyHeader is where a team's own systems send their key.
	APIKeyHeader  = "X-API-Key"
	teamKeyIssuer = "bidradar-gateway"
	teamKeyType   = "teamkey+jwt"
)

// Errors of calls with a team key.
var (
	ErrKeyNotAccepted = apperr.New(apperr.Unauthenticated, "api-key-not-accepted", "API keys are not accepted for this call")
	ErrKeyScope       = apperr.New(apperr.PermissionDenied, "api-key-scope", "This API key's scopes do not allow this")
)

// TeamKey is a verified team API key's call.
type TeamKey struct {
	KeyID  string
	TeamID string
	// Scopes: "read" and/or "write".
	Scopes []string
}

// Allows reports whether the key's scopes meet need.
func (k TeamKey) Allows(need access.TeamKeyScope) bool {
	switch need {
	case access.KeyRead:
		return slices.Contains(k.Scopes, "read") || slices.Contains(k.Scopes, "write")
	case access.KeyWrite:
		return slices.Contains(k.Scopes, "write")
	}
	return false
}

type teamKeyPayload struct {
	Iss    string   `json:"iss"`
	Sub    string   `json:"sub"`
	Aud    string   `json:"aud"`
	Team   string   `json:"team"`
	Scopes []string `json:"scopes"`
	Iat    int64    `json:"iat"`
	Exp    int64    `json:"exp"`
}

var teamKeyHeaderB64 = func() string {
	h, _ := json.Marshal(serviceHeader{Alg: "HS256", Typ: teamKeyType})
	return b64.EncodeToString(h)
}()

// SignTeamKey returns a token telling audience (a service's full name) that
// the call is k's, valid from now for ServiceTokenTTL.
func (s *ServiceKey) SignTeamKey(k TeamKey, audience string, now time.Time) (string, error) {
	if k.KeyID == "" || k.TeamID == "" || audience == "" {
		return "", fmt.Errorf("authn: a team key token names its key, team and audience")
	}
	p, err := json.Marshal(teamKeyPayload{Iss: teamKeyIssuer, Sub: k.KeyID, Aud: audience, Team: k.TeamID, Scopes: k.Scopes,
		Iat: now.Unix(), Exp: now.Add(ServiceTokenTTL).Unix()})
	if err != nil {
		return "", err
	}
	signing := teamKeyHeaderB64 + "." + b64.EncodeToString(p)
	return signing + "." + b64.EncodeToString(s.mac(signing)), nil
}

// VerifyTeamKey checks a team key token for audience.
func (s *ServiceKey) VerifyTeamKey(token, audience string, now time.Time) (TeamKey, error) {
	if len(token) > MaxTokenSize {
		return TeamKey{}, invalid("longer than %d bytes", MaxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != teamKeyHeaderB64 {
		return TeamKey{}, invalid("not a team key token")
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, s.mac(parts[0]+"."+parts[1])) {
		return TeamKey{}, invalid("bad signature")
	}
	pb, err := b64.DecodeString(parts[1])
	if err != nil {
		return TeamKey{}, invalid("payload encoding")
	}
	var p teamKeyPayload
	if err := json.Unmarshal(pb, &p); err != nil {
		return TeamKey{}, invalid("payload json")
	}
	switch {
	case p.Iss != teamKeyIssuer, p.Aud != audience, p.Sub == "", p.Team == "":
		return TeamKey{}, invalid("claims")
	case p.Exp == 0 || !now.Before(time.Unix(p.Exp, 0).Add(DefaultLeeway)):
		return TeamKey{}, fmt.Errorf("%w: %w", ErrInvalidToken, ErrTokenExpired)
	case now.Add(DefaultLeeway).Before(time.Unix(p.Iat, 0)), time.Unix(p.Exp, 0).Sub(time.Unix(p.Iat, 0)) > ServiceTokenTTL:
		return TeamKey{}, invalid("lifetime")
	}
	return TeamKey{KeyID: p.Sub, TeamID: p.Team, Scopes: p.Scopes}, nil
}

type teamKeyCtx struct{}

// WithTeamKey returns ctx carrying a verified team key's call.
func WithTeamKey(ctx context.Context, k TeamKey) context.Context {
	return context.WithValue(ctx, teamKeyCtx{}, k)
}

// TeamKeyFromContext returns the team key of the call, if it was made with one.
func TeamKeyFromContext(ctx context.Context) (TeamKey, bool) {
	k, ok := ctx.Value(teamKeyCtx{}).(TeamKey)
	return k, ok
}
